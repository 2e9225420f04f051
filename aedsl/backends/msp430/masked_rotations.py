"""A rotation under a mask that keeps the bits of one shift is that shift (MSP430 machine IR,
after allocation).

Shape: k < 8 one-bit rotations of a register r in a row, then `and #M, r` right after them
(comments aside, no label between): left, k times `rla r; adc r` (rotl 1); right, k times
`bit #1, r; rrc r` (rotr 1). rotl(x, k) is x << k in bits k..15 and x >> (16 - k) in bits
0..k-1; rotr(x, k) is x >> k in bits 0..15-k and x << (16 - k) in the top k bits. The selector
makes these for a wide shift's per-limb funnel (`shl_multi` / `shr_multi`: one rotation, two
masks, one part for each result limb), and a 32-bit `16 * i` or `(n + 15) / 16` shows them.

- M within the plain shift's bits: the shift. Left, `rla r` k times (`rlam #n` steps of at
  most 4 on MSP430X: one word each, n cycles, SLAU208 "MSP430X Format II Instruction Cycles and
  Length"); right, `rrum #n` steps on MSP430X, `rra r` k times on the original CPU (bit 15
  copies down, and M clears those copies). The `and` goes where M is exactly the shift's bits,
  zeros entered (not after `rra`), and no instruction reads the flags it set
  (`liveness.flags_dead_after`).
- M within the far part: `swpb r`, then a shift by 8 - k the other way (x >> (16 - k) is the
  high byte shifted down by 8 - k; x << (16 - k) the low byte shifted up), where that takes
  fewer words and no more cycles than the 2k steps; the `and` stays (it clears what else the
  shift leaves).

Every instruction of the rotation writes only r and the flags, which the `and` (or, where it
goes, the shift) sets again.

Preserves: the value of every register, memory, and every flag any instruction reads.
"""
from __future__ import annotations

from aedsl.codegen.liveness import Cfg, flags_dead_after
from aedsl.codegen.mir import Imm, MFunction, MInst, R
from .target import rxxm_counts

M16 = 0xFFFF
_STEP = {"left": ("rla", "adc"), "right": ("bit", "rrc")}


def _step(insts, i: int, j: int, side: str, reg: R) -> bool:
    """insts[i], insts[j] are one rotation step of `reg` to `side`."""
    first, second = insts[i], insts[j]
    mn1, mn2 = _STEP[side]
    if first.mn != mn1 or second.mn != mn2 or second.ops != [reg]:
        return False
    return first.ops == ([Imm(1), reg] if side == "right" else [reg])


def _rotation(insts, order: list[int], p: int):
    """(side, register, step count, index in `order` of the `and`, its mask) of k one-bit
    rotations starting at order[p] and the `and` of the same register right after them, or None."""
    x = insts[order[p]]
    if x.mn == "rla" and len(x.ops) == 1 and isinstance(x.ops[0], R):
        side, reg = "left", x.ops[0]
    elif x.mn == "bit" and len(x.ops) == 2 and x.ops[0] == Imm(1) and isinstance(x.ops[1], R):
        side, reg = "right", x.ops[1]
    else:
        return None
    k, q = 0, p
    while q + 1 < len(order) and _step(insts, order[q], order[q + 1], side, reg):
        k, q = k + 1, q + 2
    if k == 0 or k >= 8 or q >= len(order):
        return None
    a = insts[order[q]]
    if a.mn != "and" or len(a.ops) != 2 or a.ops[1] != reg or not isinstance(a.ops[0], Imm):
        return None
    return side, reg, k, q, a.ops[0].value & M16


def _steps(mn: str, reg: R, k: int, cpux: bool) -> list[tuple[str, list]]:
    """A shift of reg by k: `rlam`/`rrum #n` steps of at most 4 on MSP430X (`cpux`), else k
    one-bit `mn` (rla, rra). Each step has an operand list of its own (passes edit them in place)."""
    if cpux:
        wide = "rlam" if mn == "rla" else "rrum"
        return [(wide, [Imm(n), reg]) for n in rxxm_counts(k)]
    return [(mn, [reg]) for _ in range(k)]


def _plan(side: str, reg: R, k: int, mask: int, cpux: bool):
    """(the instructions that replace the k rotation steps, whether the `and` may go), or None
    where the mask keeps bits from both ends of the rotation or nothing is saved.

    rotl(x, k) is x << k in its bits k..15 and x >> (16 - k) in its bits 0..k-1; rotr(x, k) is
    x >> k in its bits 0..15-k and x << (16 - k) in its top k bits. A mask within one of those
    parts keeps only that shift. The far part (x >> (16 - k), x << (16 - k)) is `swpb` and a
    shift by 8 - k, whose other bits the mask clears."""
    low = (1 << k) - 1
    near = ~(low if side == "left" else low << (16 - k)) & M16      # bits of the plain shift
    if mask & ~near & M16 == 0:
        if side == "left":
            steps, exact = _steps("rla", reg, k, cpux), mask == near
            return steps, exact                       # zeros enter from the right either way
        if cpux:
            return _steps("rrum", reg, k, cpux), mask == near
        return _steps("rra", reg, k, False), False    # bit 15 copies down: the mask clears them
    if mask & near == 0:                              # the far part alone
        back = "rra" if side == "left" else "rla"     # its other bits are masked off
        steps = [("swpb", [reg])] + _steps(back, reg, 8 - k, cpux)
        words, cycles = len(steps), 1 + (8 - k)
        if words < 2 * k and cycles <= 2 * k:
            return steps, False
    return None


def masked_rotations(mf: MFunction, target, cpux: bool) -> int:
    """Rewrite every masked rotation of `mf` (see the module docstring); returns the number of
    instructions removed."""
    insts = mf.insts
    out: list[MInst] = []
    removed = 0
    for a, b in Cfg(insts, target).blocks:
        order = [k for k in range(a, b) if insts[k].mn != "comment"]
        done = a                                  # insts[a:done] are in `out`
        p = 0
        while p < len(order):
            hit = _rotation(insts, order, p)
            if hit is None:
                p += 1
                continue
            side, reg, k, q, mask = hit
            plan = _plan(side, reg, k, mask, cpux)
            if plan is None:
                p = q + 1
                continue
            start, end = order[p], order[q]       # the first step, the `and`
            out.extend(insts[done:start])
            like = insts[start]
            shift = [MInst(mn, ops, depth=like.depth, loc=like.loc, origin=like.origin, origin_loc=like.origin_loc)
                     for mn, ops in plan[0]]
            keep_and = not (plan[1] and flags_dead_after(insts, end, target, b))
            out.extend(shift)
            out.extend(x for x in insts[start:end] if x.mn == "comment")
            if keep_and:
                out.append(insts[end])
            removed += 2 * k + 1 - len(shift) - keep_and
            done, p = end + 1, q + 1
        out.extend(insts[done:b])
    mf.insts = out
    return removed
