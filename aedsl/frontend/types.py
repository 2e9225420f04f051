"""Compile-time values and the types of the spec language, with the size limits elaboration enforces.

`CInt` is a folded compile-time integer; `Word` and `Array` are what a type expression denotes
(`u8`, `bit`, `u32[4]`, `bytes`). Runtime values are IR `Value`s and arrays are IR `Memory`s
(`aedsl/ir/nodes.py`); this module knows nothing of the IR.
"""
from __future__ import annotations

from dataclasses import dataclass

MAX_WIDTH = 4096          # bits in one word (u<4096> is far beyond any spec)
MAX_ARRAY = 1 << 20       # elements in one array
MAX_FORALL = 4096         # iterations of one compile-time loop
MAX_CONST_BITS = 1 << 15  # size of a compile-time integer


@dataclass(frozen=True)
class CInt:
    """A compile-time integer; `width` None = an untyped literal that adopts its partner's width."""
    value: int
    width: int | None = None


@dataclass(frozen=True)
class Word:
    width: int

    def __str__(self) -> str:
        return "bit" if self.width == 1 else f"u{self.width}"


@dataclass(frozen=True)
class Array:
    elem_width: int
    length: int | None  # None = bytes

    def __str__(self) -> str:
        return "bytes" if self.length is None else f"u{self.elem_width}[{self.length}]"


def fits(value: int, width: int) -> bool:
    return 0 <= value < (1 << width)
