"""Two-address operations copy the operand that dies (shared by every target; before register
allocation, on virtual registers).

Selection makes `d = a op b` as `move(a, d); op b, d` with the first operand copied, whichever
operand dies there. When the instruction `op` commutes (`InstrDesc.commutes`: swapping its two
read operands gives the same result and flags: xor, and, or, add, ...), `b` is a register that
dies at `op`, and `a` is still needed after it, the pair becomes `move(b, d); op a, d`: the
allocator can then give `d` the register of `b` and drop the copy, where before it needed a
register for `d` beside `a`'s and a copy (the S-box line `t0 = x0 ^ (~x1 & x2)` with x0 read
again: `~x1 & x2` is made in a temporary and x0 xored into it). The new copy sits right before
`op`; between the two places nothing may read or write `d` nor write `a` or `b`, and no label,
branch or call lies in between (one basic block). Preserves every value and flag read later:
`d` gets the same value, `a` and `b` are read unchanged, and a register move sets no flags
(the target contract of `move`).
"""
from __future__ import annotations

from aedsl.codegen.liveness import Cfg, block_liveness, defs_uses, live_after
from aedsl.codegen.mir import MFunction, MInst, R
from aedsl.codegen.regalloc import copy_regs


def commute_copies(mf: MFunction, target) -> int:
    """Rewrite the pairs described above; returns how many."""
    insts = mf.insts
    if not any(i.mn not in ("label", "comment") and target.desc(i).commutes for i in insts):
        return 0
    cfg = Cfg(insts, target)
    du = [defs_uses(i, target) for i in insts]
    live_out = block_liveness(cfg, du, lambda r: True)
    moved: dict[int, MInst] = {}              # index of an op -> the copy placed before it
    dropped: set[int] = set()                 # indices of the copies moved there
    for bi, (a, b) in enumerate(cfg.blocks):
        after = live_after(du, a, b, live_out[bi])
        for i in range(a, b):
            pair = _operands(insts[i], target)
            if pair is None:
                continue
            p, q = pair
            dst, other = insts[i].ops[p].reg, insts[i].ops[q].reg
            if other == dst or other in after[i]:
                continue
            k = _defining_copy(insts, du, a, i, dst, target, dropped)
            if k is None:
                continue
            src = insts[k].ops[0].reg
            if src in (dst, other) or src not in after[i] \
                    or any(src in du[j][0] for j in range(k + 1, i)):
                continue
            ops = list(insts[i].ops)
            ops[q] = R(src)
            moved[i] = insts[k].with_ops([R(other), R(dst)])
            dropped.add(k)
            insts[i] = insts[i].with_ops(ops)
            du[i] = defs_uses(insts[i], target)
    if not moved:
        return 0
    out: list[MInst] = []
    for i, inst in enumerate(insts):
        if i in dropped:
            continue
        if i in moved:
            out.append(moved[i])
        out.append(inst)
    mf.insts = out
    return len(moved)


def _operands(inst: MInst, target) -> tuple[int, int] | None:
    """(position of the operand read and written, position of the other register read) of a
    commuting two-address instruction over registers, else None."""
    if inst.mn in ("label", "comment"):
        return None
    desc = target.desc(inst)
    if not desc.commutes or len(desc.reads) != 2 or len(desc.writes) != 1:
        return None
    p = desc.writes[0]
    if p not in desc.reads:
        return None
    q = desc.reads[0] if desc.reads[1] == p else desc.reads[1]
    if not (isinstance(inst.ops[p], R) and isinstance(inst.ops[q], R)):
        return None
    return p, q


def _defining_copy(insts, du, start: int, i: int, dst: int, target, dropped: set[int]) -> int | None:
    """Index of the register copy into `dst` that instruction i reads, when it lies in the same
    block (from `start`) with no read of `dst` in between; else None."""
    for k in range(i - 1, start - 1, -1):
        d, u = du[k]
        if dst in d:
            cp = copy_regs(insts[k], target)
            return k if k not in dropped and cp is not None and cp[1] == dst else None
        if dst in u:
            return None
    return None
