"""The pass pipeline: an ordered list of named passes, each a pure function IR -> IR.

A pass module in `aedsl/ir/passes/` provides `NAME` and `run(module, knobs) -> Module` (it must
not change its input: clone first). Register it in `PASSES` in pipeline order.
"""
from __future__ import annotations

import importlib

from .nodes import Module

# Pass modules, in order (module names under aedsl.ir.passes).
PASSES: list[str] = ["inline", "unroll", "constfold", "cse_dce", "legalize", "table_fusion"]


def passes() -> list:
    return [importlib.import_module(f"aedsl.ir.passes.{name}") for name in PASSES]


def run(module: Module, knobs: dict[str, str], until: str | None = None) -> Module:
    """Run the passes in order; with `until`, stop after the pass of that name."""
    names = [p.NAME for p in passes()]
    if until is not None and until not in names:
        raise KeyError(f"no pass named {until!r} (passes: {', '.join(names) or 'none yet'})")
    for p in passes():
        module = p.run(module, knobs)
        if p.NAME == until:
            break
    return module
