"""A spill slot read again: the value copied into the reload's register where the slot's value
was last in a register (after register allocation and slot placement; target-neutral: reads
InstrDesc, each instruction's defined and used registers, and the cost model).

Shape matched, inside one basic block: at H a register R takes a spill slot S's value (`mov S,
R`, a reload) or gives it (`mov R, S`, a store); at J the block reads S again into a register X
(`mov S, X`), with S not written in between, no label, branch, call or target barrier in
between, and X neither read nor written strictly between H and J (its value before J dead).
R itself may change in between: where it is only overwritten, kept_spills.py renames the
overwrites and the reload becomes a copy; where an instruction updates R in place, the slot's
value is that update's input and only this rule applies (NORX's H, `x ^ y ^ ((x & y) << 1)`
with x spilled: `ldr r6, [sp, #8]; eors r6, r4; ldr r1, [sp, #8]; ands r1, r4`). X takes R's
value right after H (`mov R, X`) and the reload at J goes: a register copy for a load (ARMv6-M:
1 cycle for 2, the same two bytes). Taken where the cost model prices the reload above the copy;
the [H, J] of the rewrites in a block do not overlap (each X is idle over its own).

Preserves: X holds S's value from just after H to J, as the reload made it at J (S unchanged in
between, X neither read nor written there, so nothing read X's old value after H); every other
register and memory word is as before.
"""
from __future__ import annotations

from .kept_spills import copy_beats_reload, slot_holder, slot_written
from .liveness import defs_uses
from .mir import MFunction, MInst, R, slot_key
from .target import Target

WINDOW = 64                 # instructions searched back from a reload, and on from its holder


def copy_ahead(mf: MFunction, target: Target, regs: frozenset[int],
               barriers: frozenset[str] = frozenset()) -> int:
    """Rewrite the reloads described above; returns how many went. Runs on every schedule
    the pipeline judges, so it looks only within WINDOW instructions of each reload and
    computes the registers an instruction defines and uses only there."""
    stop = frozenset({"label"}) | barriers
    insts = mf.insts
    cache: dict[int, tuple] = {}

    def du(k: int) -> tuple:
        if k not in cache:
            cache[k] = defs_uses(insts[k], target)
        return cache[k]

    after: dict[int, list[MInst]] = {}          # index -> copies to put right after it
    gone: set[int] = set()
    free_from = 0                               # the rewrites' [H, J] do not overlap
    for j, inst in enumerate(insts):
        if inst.mn != target.move_mn or len(inst.ops) != 2 or slot_key(inst.ops[0]) is None:
            continue
        found = _holder(insts, du, j, target, regs, stop)
        if found is None:
            continue
        h, r, x = found
        if h < free_from or (r in du(h)[0] and not _read_later(insts, du, h, r, target, stop)):
            continue                            # (a reload at H nothing reads: dce's to delete)
        if not copy_beats_reload(target, r, inst):
            continue
        after.setdefault(h, []).append(MInst(target.move_mn, [R(r), R(x)], depth=insts[h].depth, loc=inst.loc))
        gone.add(j)
        free_from = j
    if gone:
        out = []
        for k, inst in enumerate(insts):
            if k not in gone:
                out.append(inst)
            out.extend(after.get(k, ()))
        mf.insts = out
    return len(gone)


def _read_later(insts, du, h, r, target, stop) -> bool:
    """Whether an instruction after h in its block reads r before one writes it (within WINDOW;
    False where the block or the window ends first: the rule then leaves it)."""
    for k in range(h + 1, min(len(insts), h + 1 + WINDOW)):
        x = insts[k]
        if x.mn == "comment":
            continue
        if x.mn in stop or target.desc(x).branch:
            return False
        d, u = du(k)
        if r in u:
            return True
        if r in d:
            return False
    return False


def _holder(insts, du, j, target, regs, stop):
    """(H, R, X) for a reload of a spill slot at j into X, or None."""
    inst = insts[j]
    src, dst = inst.ops
    key = slot_key(src)
    if not isinstance(dst, R) or dst.reg not in regs:
        return None
    x = dst.reg
    for h in range(j - 1, max(-1, j - 1 - WINDOW), -1):
        y = insts[h]
        if y.mn == "comment":
            continue
        desc = target.desc(y)
        if y.mn in stop or desc.branch or desc.memory == "call":
            return None
        r = slot_holder(y, key, target)
        if r is not None:
            # X holds it already (copies.py's case), or R is no register X's class takes
            return (h, r, x) if r != x and r in regs else None
        if slot_written(y, key, target):
            return None                         # S written in between
        if x in du(h)[0] or x in du(h)[1]:
            return None                         # X read or written in between
    return None
