"""Text -> Lark parse tree, with syntax errors turned into `SpecError`s."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

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
    return Lark(GRAMMAR_PATH.read_text(), parser="lalr", propagate_positions=True,
                maybe_placeholders=True)


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


def parse(source: str, path: str = "<spec>") -> Tree:
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
