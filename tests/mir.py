"""Machine-IR functions written by hand, for tests of single MIR passes."""
from __future__ import annotations

from aedsl.codegen.mir import MFunction


def mfunction(*insts) -> MFunction:
    """A function `f` holding `insts` in order."""
    f = MFunction("f")
    f.insts = list(insts)
    return f


def text(f: MFunction) -> list[str]:
    """Its instructions, one repr each (what the tests compare)."""
    return [repr(i) for i in f.insts]
