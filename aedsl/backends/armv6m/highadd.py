"""Adding or comparing a high register without copying it to a low one first, after spill slots
are placed.

A value spilled to a high register (r8-r12) and added to an index reads
`mov rT, rH; adds rD, rT, rK` (two instructions): ADD (register) T2 adds any register to a low
one in place, so when rK dies at the ADDS this is `add rK, rH`, with rD's value now in rK:
every read of rD up to its next definition (or its death) reads rK instead (an instruction
updating rD in place, `eors rD, rX`, updates rK). Conditions: one
basic block, rK not written before the last renamed read, rT dead after the ADDS unless it is
rD, rD dead at the block's end or redefined in it, and the flags ADDS set not read (T2 sets
none). Preserves every value read later.

Likewise `mov rT, rH; cmp rX, rT` (a loop's bound spilled to a high register, read by the
latch's compare) is `cmp rX, rH` where rT dies at the compare: CMP (register) T2 names any
registers but PC, not both low (ARM DDI 0419C A6.7.18), and sets the flags as T1 does
(`fold_high_compares`; either operand). Preserves the flags and every value read later.
"""
from __future__ import annotations

from aedsl.codegen.liveness import Cfg, block_liveness, defs_uses, flags_dead_after, live_after
from aedsl.codegen.rename import rename_reads
from aedsl.codegen.mir import Mem, MFunction, MInst, R

LOW = frozenset(range(8))
HIGH = frozenset(range(8, 13))
LR = 14


def _low(r: int) -> bool:
    return r in LOW


def fold_high_compares(mf: MFunction, target) -> int:
    """`mov rT, rH; cmp a, b` with rT one of a, b and dead after the compare -> `cmph` on rH (an
    assembler `cmp` of T2); rH one of r8-r12 or LR. Returns how many copies were removed."""
    insts = mf.insts
    cfg = Cfg(insts, target)
    du = [defs_uses(i, target) for i in insts]
    live_out = block_liveness(cfg, du, _low)
    out, done = list(insts), 0
    for bi, (a, b) in enumerate(cfg.blocks):
        after = live_after(du, a, b, live_out[bi], _low)
        for i in range(a, b - 1):
            mv, cmp = insts[i], insts[i + 1]
            if not (mv.mn == "mov" and isinstance(mv.ops[0], R) and mv.ops[0].reg in HIGH | {LR}
                    and isinstance(mv.ops[1], R) and mv.ops[1].reg in LOW):
                continue
            if cmp.mn != "cmp" or not all(isinstance(o, R) for o in cmp.ops):
                continue
            h, t = mv.ops[0], mv.ops[1]
            if list(cmp.ops).count(t) != 1 or t.reg in after[i + 1]:
                continue
            out[i] = None
            out[i + 1] = MInst("cmph", [h if o == t else o for o in cmp.ops], depth=cmp.depth, loc=cmp.loc)
            done += 1
    mf.insts = [x for x in out if x is not None]
    return done


def fold_high_adds(mf: MFunction, target) -> int:
    """Apply the rewrite wherever it fits; returns how many copies were removed."""
    done = 0
    while True:
        insts = mf.insts
        cfg = Cfg(insts, target)
        du = [defs_uses(i, target) for i in insts]
        live_out = block_liveness(cfg, du, _low)
        change = None
        for bi, (a, b) in enumerate(cfg.blocks):
            after = live_after(du, a, b, live_out[bi], _low)
            for i in range(a, b - 1):
                mv, ad = insts[i], insts[i + 1]
                if not (mv.mn == "mov" and isinstance(mv.ops[0], R) and mv.ops[0].reg in HIGH
                        and isinstance(mv.ops[1], R) and mv.ops[1].reg in LOW):
                    continue
                if ad.mn != "adds" or not all(isinstance(o, R) for o in ad.ops):
                    continue
                h, t = mv.ops[0].reg, mv.ops[1].reg
                rd, x, y = (o.reg for o in ad.ops)
                if t not in (x, y) or x == y:
                    continue
                k = y if x == t else x
                live_next = after[i + 1]
                if k in live_next or (t != rd and t in live_next):
                    continue
                # the reads of rd to rename, up to its redefinition or death
                rename = []
                j = i + 2
                ok = True
                if rd != k:
                    while rd in after[j - 1]:
                        inst = insts[j] if j < b else None
                        # a call reads its arguments from fixed registers: a renamed read
                        # there would pass the wrong one
                        if inst is None or inst.mn in ("label", "bl") or (inst.mn != "comment"
                                                                          and target.desc(inst).branch):
                            ok = False
                            break
                        dj, uj = du[j]
                        if rd in uj:
                            rename.append(j)
                        desc = target.desc(inst)
                        if inst.mn == "ldm":        # the base updated only when written back
                            in_place = inst.ops[0] == R(rd) and R(rd) not in inst.ops[1:]
                        else:
                            in_place = any(n in desc.reads and n in desc.writes and op == R(rd)
                                           for n, op in enumerate(inst.ops))
                        if rd in dj and not in_place:
                            break               # a new value of rd: not renamed
                        if k in dj and rd in after[j]:
                            ok = False
                            break
                        j += 1
                if not ok or not flags_dead_after(insts, i + 1, target, b):
                    continue
                change = (i, k, h, rd, rename)
                break
            if change:
                break
        if change is None:
            return done
        i, k, h, rd, rename = change
        new = list(insts)
        for j in rename:
            new[j] = rename_reads(insts[j], target, rd, k)
        new[i:i + 2] = [MInst("addh", [R(k), R(h)], depth=insts[i + 1].depth, loc=insts[i + 1].loc)]
        mf.insts = new
        done += 1
