"""Register copies removed after allocation by renaming the copy's destination (shared by
every target; the target says which registers are interchangeable and what nothing may cross).

The target's register copy `move(rS, rD)` between two registers of the class `regs`, where rS
dies at the copy, is deleted when every later read of rD, up to rD's next definition or its
death, can read rS instead: one basic block, no branch, call or target barrier (Thumb: push,
pop) in between, no auto-increment of either register, rS not written while rD is still needed,
and rD not live at the block's end. An instruction updating rD in place (`eors rD, rX`,
`xor r11, r15`) then updates rS. Two-operand selection with a spilled or precoloured value
leaves such copies behind when the allocator could not give both ends one register (MSP430: a
spilled value built in a temporary, `mov r4, r15; xor r11, r15; mov r15, 44(sp)` where r4 dies,
becomes `xor r11, r4; mov r4, 44(sp)`). Where rS lives on after the copy, the copy goes the
same way when rD is only read while it holds the copy and rS is not written meanwhile (a pointer
copied for one store through it: `mov r11, r12; mov r15, -10(r12)` -> `mov r15, -10(r11)`).
Where rS is written again while rD still holds the
copy, the copy goes too when the two registers can exchange names from the copy up to the first
point where both are dead, with no label, barrier, branch or call in between (a call or a
branch ties registers to their names): the copied value then stays in rS and what the block
wrote into rS goes to rD. Preserves every value read later; a register move sets no flags (the
target contract of `move`), so none change.
"""
from __future__ import annotations

from typing import Callable

from aedsl.codegen.liveness import Cfg, block_liveness, defs_uses, live_after
from aedsl.codegen.mir import Inc, Ind, Mem, MFunction, MInst, R
from aedsl.codegen.regalloc import copy_regs


def rename_reads(inst: MInst, target, old: int, new: int) -> MInst:
    """`inst` reading register `new` where it read `old` (as a register operand it reads, or as
    the base of a memory operand)."""
    d = target.desc(inst)
    ops = list(inst.ops)
    for i, op in enumerate(ops):
        if isinstance(op, R) and op.reg == old and i in d.reads:
            ops[i] = R(new)
        elif isinstance(op, Mem) and op.base == old:
            ops[i] = Mem(new, op.disp)
        elif isinstance(op, Ind) and op.reg == old:
            ops[i] = Ind(new)
    return inst.with_ops(ops)


def in_place(inst: MInst, target, r: int) -> bool:
    """Does `inst` read and write r through one operand (its new value stays where r was)?"""
    d = target.desc(inst)
    return any(n in d.reads and n in d.writes and op == R(r) for n, op in enumerate(inst.ops))


def rename_copies(mf: MFunction, target, regs: frozenset[int], barriers: frozenset[str] = frozenset(),
                  updates_in_place: Callable[[MInst, object, int], bool] = in_place) -> int:
    """Delete the copies described above; returns how many. `regs`: the registers a copy may
    join; `barriers`: mnemonics nothing is renamed across (besides labels, branches, calls);
    `updates_in_place`: the target's `in_place` where it has instructions the operand rule
    does not describe."""
    stop = frozenset({"label"}) | barriers
    insts = mf.insts
    cfg = Cfg(insts, target)
    du = [defs_uses(i, target) for i in insts]
    # a renaming keeps every block's live-in and live-out sets (rD is not live at the block's
    # end, rS is live up to the copy already): each block is done on its own
    live_out = block_liveness(cfg, du, lambda r: r in regs)
    removed = 0
    out: list[MInst] = []
    for bi, (a, b) in enumerate(cfg.blocks):
        block, bdu = insts[a:b], du[a:b]
        # live after each instruction, kept up to date from the search's start on
        after = [None] * len(block)
        _update(after, live_after(bdu, 0, len(block), live_out[bi], regs.__contains__))
        start = 0
        while True:
            change = _first_change(block, bdu, after, target, regs, stop, updates_in_place, start)
            if change is None:
                break
            kind, i, d, s, where = change
            changed = where if kind == "swap" else max(where, default=i)
            if kind == "rename":
                for j in where:
                    block[j] = rename_reads(block[j], target, d, s)
                    bdu[j] = defs_uses(block[j], target)
            else:
                for j in range(i + 1, where + 1):
                    block[j] = swap_regs(block[j], d, s)
                    bdu[j] = defs_uses(block[j], target)
            del block[i], bdu[i], after[i]
            # liveness before the copy is unchanged, and after the last changed instruction
            # (now at changed - 1): what lies between is computed again
            top = max(changed - 1, i)
            if top < len(block):
                _update(after, live_after(bdu, i, top + 1, after[top], regs.__contains__))
            start = i
            removed += 1
        out.extend(block)
    mf.insts = out
    return removed


def swap_regs(inst: MInst, a: int, b: int) -> MInst:
    """`inst` with registers a and b exchanged wherever it names them."""
    def sw(r: int) -> int:
        return b if r == a else a if r == b else r
    ops = []
    for op in inst.ops:
        if isinstance(op, R):
            op = R(sw(op.reg))
        elif isinstance(op, Mem) and op.base is not None:
            op = Mem(sw(op.base), op.disp)
        elif isinstance(op, Ind):
            op = Ind(sw(op.reg))
        elif isinstance(op, Inc):
            op = Inc(sw(op.reg))
        ops.append(op)
    return inst.with_ops(ops)


def _swap_end(block, after, i, d, s, target, stop) -> int | None:
    """The first index j after the copy at i where rD and rS are both dead, with nothing in
    (i, j] that ties a register to its name (label, target barrier, branch, call); None if
    there is none in the block."""
    for j in range(i + 1, len(block)):
        inst = block[j]
        if inst.mn in stop:
            return None
        if inst.mn != "comment":
            desc = target.desc(inst)
            if desc.branch or desc.memory == "call":
                return None
        if d not in after[j] and s not in after[j]:
            return j
    return None


def _update(after: list, sets: dict) -> None:
    for k, live in sets.items():
        after[k] = live


def _first_change(block, du, after, target, regs, stop, updates_in_place, start=0):
    """The block's first copy from `start` that can go (`after`: the registers of `regs` live
    after each instruction, `liveness.live_after`): ("rename", its index, rD, rS, the indices
    whose reads of rD become rS), or ("swap", its index, rD, rS, j) when rD and rS
    exchange names up to index j, where both are dead (rS written while rD is still needed:
    the value then stays in rS and what the block wrote into rS goes to rD), or None."""
    n = len(block)
    first = next((i for i in range(start, n) if copy_regs(block[i], target)), None)
    if first is None:
        return None
    for i in range(first, n):
        cp = copy_regs(block[i], target)
        if cp is None:
            continue
        s, d = cp
        if s == d or s not in regs or d not in regs:
            continue
        # rS still live after the copy: its reads of rD may read rS as long as neither changes
        # (no write of rS, no in-place update of rD, which would then update rS) while rD holds
        # the copy (a pointer copied for each use of it: `mov r11, r12; mov r15, -10(r12)`)
        both = s in after[i]
        rename, j, ok = [], i + 1, True
        while d in after[j - 1]:
            inst = block[j] if j < n else None
            if inst is None or inst.mn in stop or (inst.mn != "comment" and target.desc(inst).branch) \
                    or any(isinstance(op, Inc) and op.reg in (s, d) for op in inst.ops):
                ok = False
                break
            dj, uj = du[j]
            if d in uj:
                rename.append(j)
            if d in dj and not updates_in_place(inst, target, d):
                break                   # a new value of rD: not renamed
            if d in dj and both:
                ok = False              # rD updated in place: rS would change under its own reads
                break
            if s in dj and d in after[j]:
                ok = False
                break
            j += 1
        if ok:
            return "rename", i, d, s, rename
        if both:
            continue
        j = _swap_end(block, after, i, d, s, target, stop)
        if j is not None:
            return "swap", i, d, s, j
    return None
