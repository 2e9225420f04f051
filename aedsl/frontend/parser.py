"""Text -> Lark parse tree, with syntax errors turned into `SpecError`s."""
from __future__ import annotations

import hashlib
import io
import sys
from functools import lru_cache
from pathlib import Path

import lark
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from aedsl.resources import cache_root, write_cached

from .diagnostics import SpecError

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")

# Readable names for the grammar's anonymous terminals in "expected ..." messages.
_TERMINAL_TEXT = {
    "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'",
    "COMMA": "','", "COLON": "':'", "EQUAL": "'='", "NAME": "a name", "INT": "a number",
    "STRING": "a string", "DOT": "'.'", "GT": "'>'", "LESSTHAN": "'<'", "AT": "'@'",
    "__ANON_0": "'..'", "__ANON_1": "'->'", "MINUS": "'-'", "TILDE": "'~'", "VBAR": "'|'",
    "CIRCUMFLEX": "'^'", "AMPERSAND": "'&'", "SHIFT_OP": "a shift", "CMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/' or '%'",
}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR parser. Building its tables takes a good part of a compile's start-up, so they are
    kept on disk (`$AEDSL_CACHE/lark/`, named by a hash of the grammar, the options and the Lark
    and Python versions). The file is written under a private name and renamed, so a process
    never reads another's half-written tables; a file that cannot be read or written only costs
    the build."""
    grammar = GRAMMAR_PATH.read_text()
    options = dict(parser="lalr", propagate_positions=True, maybe_placeholders=True)
    key = f"{grammar}{sorted(options.items())}{lark.__version__}{sys.version_info[:2]}"
    cached = cache_root() / "lark" / f"grammar-{hashlib.sha256(key.encode()).hexdigest()[:20]}.pickle"
    try:
        with open(cached, "rb") as f:
            return Lark.load(f)
    except Exception:        # absent, or damaged in any way: build the tables again
        pass
    parser = Lark(grammar, **options)
    tables = io.BytesIO()
    parser.save(tables)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        write_cached(cached, tables.getvalue())
    except OSError:
        pass
    return parser


def _expected(tokens) -> str:
    names = []
    for t in sorted(tokens):
        if t.startswith("__ANON") and t not in _TERMINAL_TEXT:
            continue
        text = _TERMINAL_TEXT.get(t)
        if text is None:
            # Keyword terminals are named after the keyword in upper case (FN, FOR, ...).
            text = f"'{t.lower()}'" if t.isalpha() else t
        if text not in names:
            names.append(text)
    if not names:
        return ""
    if len(names) > 6:
        names = names[:6] + ["..."]
    return "; expected " + ", ".join(names)


# Parse trees of this process by source text: a sweep or a test session compiles one spec (and
# the specs it uses) under many knob sets, and the parse does not depend on the knobs. The
# frontend only reads trees (nothing in it changes one), so a tree is shared between compiles.
_TREES: dict[str, Tree] = {}
_TREES_MAX = 64


def parse(source: str, path: str = "<spec>") -> Tree:
    tree = _TREES.get(source)
    if tree is None:
        tree = _parse(source, path)
        if len(_TREES) >= _TREES_MAX:
            _TREES.pop(next(iter(_TREES)))
        _TREES[source] = tree
    return tree


def _parse(source: str, path: str) -> Tree:
    try:
        return _parser().parse(source)
    except UnexpectedEOF as e:
        lines = source.splitlines() or [""]
        raise SpecError("unexpected end of file" + _expected(e.expected), path, len(lines),
                        len(lines[-1]) + 1, source) from None
    except UnexpectedToken as e:
        tok: Token = e.token
        if tok.type == "$END":
            lines = source.splitlines() or [""]
            raise SpecError("unexpected end of file" + _expected(e.expected), path, len(lines),
                            len(lines[-1]) + 1, source) from None
        raise SpecError(f"unexpected {tok.value!r}" + _expected(e.expected), path, e.line, e.column,
                        source) from None
    except UnexpectedCharacters as e:
        ch = source[e.pos_in_stream] if 0 <= e.pos_in_stream < len(source) else "?"
        raise SpecError(f"unexpected character {ch!r}", path, e.line, e.column, source) from None
    except UnexpectedInput as e:  # any other parser complaint
        raise SpecError("syntax error", path, getattr(e, "line", 0), getattr(e, "column", 0),
                        source) from None
