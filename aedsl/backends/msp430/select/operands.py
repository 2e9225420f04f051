"""Limb and operand helpers of the MSP430 selector: 16-bit masks, zero tests, displacements, the
`@Rn` form of a zero-displacement operand, the carry kept in C, and IR use counts."""
from __future__ import annotations

from aedsl.codegen.mir import Frame, Imm, Ind, Mem

M16 = 0xFFFF


def top_mask(width: int) -> int | None:
    r = width % 16
    return None if r == 0 else (1 << r) - 1


class _InFlags:
    """The limb of a carry/borrow that lives in the C flag until the next op reads it."""

    def __repr__(self) -> str:
        return "<C flag>"


IN_FLAGS = _InFlags()


def use_counts(block) -> dict:
    """id(value) -> how often `block` (its ops, their regions, the yields) reads it."""
    n: dict = {}

    def walk(b):
        for op in b.ops:
            for a in op.args:
                n[id(a)] = n.get(id(a), 0) + 1
            for r in op.regions:
                walk(r)
        for v in b.yields:
            n[id(v)] = n.get(id(v), 0) + 1

    walk(block)
    return n


def is_zero(x) -> bool:
    return isinstance(x, Imm) and (x.value & M16) == 0


def cheap_src(x):
    """`@Rn` for a `0(Rn)` source operand (one word and one cycle less)."""
    return Ind(x.base) if isinstance(x, Mem) and x.base is not None and x.disp == 0 else x


def disp_add(disp, k: int):
    """Displacement `disp` (a number, a frame reference or a symbol) plus k bytes."""
    if isinstance(disp, int):
        return disp + k
    if isinstance(disp, Frame):
        return Frame(disp.kind, disp.key, disp.extra + k)
    return f"{disp}+{k}"
