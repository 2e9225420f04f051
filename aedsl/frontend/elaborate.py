"""Parse tree -> IR: the frontend's entry point.

Elaboration and lowering are one walk: every runtime expression becomes IR ops in the block
being built, every compile-time expression (knobs, consts, `forall` indices, literals) is folded
on the way. The work is split by responsibility:

    declarations.py   one spec file: knobs, consts, types, tables, perms, domains, `use`, asserts
    consteval.py      compile-time evaluation of declaration expressions
    evaluate.py       the expression visitor and constant folding both of the above share
    lower.py          one `fn` -> IR Function: parameters and statements
    lower_expr.py     expressions and calls in function bodies -> IR ops
    lazy_if.py        runtime `if c then a else b`: a select, or a branch when an arm can fault
    secrecy.py        which values may be secret (a lazy if's condition must be public)
    builtins.py       the builtin functions (cat, rev8, len, loads/stores, accelerator ops)
    widths.py         width checks where a runtime value is needed
    builder.py        the blocks, fresh names and variable scopes of the function being built
    types.py          compile-time integers, word and array types, size limits
    syntax.py         parse-tree helpers (positions, integer literals, assigned names)

Entry point: `load_module(path, knobs) -> ir.Module`; raises `SpecError` for every problem.
`spec_files(path)` lists the files a spec may read (itself and every spec it may `use`), for
callers that key a cache on a spec's text.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..ir.nodes import Module
from .declarations import WORD_BITS, SpecElaborator, find_used_spec
from .diagnostics import SpecError
from .lazy_if import resolve as resolve_conditionals
from .types import CInt


def load_module(path: str | Path, knobs: dict[str, str] | None = None,
                word_bits: int = WORD_BITS) -> Module:
    """Elaborate the spec at `path` with `knobs` bound (name -> value text); a knob whose default
    is `word` and that `knobs` does not set takes `word_bits` (the target's machine word)."""
    path = Path(path)
    module = Module(name=path.stem, knobs={})
    try:
        spec = SpecElaborator(path, dict(knobs or {}), module, "", {}, word_bits=word_bits)
        spec.run()
        resolve_conditionals(module)
    except RecursionError:
        raise SpecError("spec is nested too deeply", str(path)) from None
    if not module.functions:
        # an empty file, or one of knobs and constants only: nothing to check or compile
        raise SpecError("the spec defines no functions", spec.display, 1, 1, spec.source)
    module.name = spec.spec_name
    module.knobs = {k: _plain(spec.globals[k][1]) for k in spec.knob_order}
    module.consts = {k: e[1].value for k, e in spec.globals.items()
                     if e[0] == "const" and isinstance(e[1], CInt)}
    module.domains = dict(spec.domains)
    return module


def _plain(v):
    return v.value if isinstance(v, CInt) else v


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_USE = re.compile(r"\buse\s+[A-Za-z_]\w*\s*=\s*([A-Za-z_]\w*)")


def spec_files(path: str | Path) -> list[Path]:
    """`path` and every spec file it may use, directly or through another, whatever the knobs
    (a `use` under any branch of an `if` counts), in the order first met; a used spec that cannot
    be found is left out (elaboration reports it). A scan of the text for `use NAME = SPEC`, not
    a parse: cheap, and it may only list a file too many."""
    out: list[Path] = []
    todo = [Path(path)]
    while todo:
        p = todo.pop(0)
        if p.resolve() in {q.resolve() for q in out}:
            continue
        out.append(p)
        for name in _USE.findall(_COMMENT.sub(" ", p.read_text())):
            found = find_used_spec(p, name)
            if found is not None:
                todo.append(found)
    return out
