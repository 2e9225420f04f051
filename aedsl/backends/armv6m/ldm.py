"""Consecutive word loads merged into one LDM, after register allocation.

A run of `ldr rX, [rB, #0]`, `ldr rY, [rB, #4]`, ... (in any order, one word each from
[rB] upward, destinations distinct low registers) costs 2 cycles a word; `ldm rB!, {...}`
costs 1 + N. LDM fills the registers in ascending order from ascending addresses, so:

- when the destinations already ascend with the offsets, the run becomes one LDM;
- otherwise, when every destination is dead again before the end of the run's basic block,
  the destinations are renamed among themselves (a permutation, applied to every reference of
  those registers from the run to the point where none of them is live any more) so that they
  ascend, then the run becomes one LDM. That region may not reach another LDM (renaming its
  list could break its ascending order).

The base is written back (`ldm rB!`) unless it is itself a destination; then it must be dead
after the run. Preserves every value read later; the loads happen as before (same addresses).
"""
from __future__ import annotations

from aedsl.codegen.liveness import Cfg, block_liveness, defs_uses
from aedsl.codegen.mir import Imm, Mem, MFunction, MInst, R

LOW = frozenset(range(8))


def _word_load(inst: MInst):
    """(dest, base, offset) of `ldr rD, [rB, #off]` on low registers, else None."""
    if inst.mn != "ldr" or len(inst.ops) != 2:
        return None
    d, m = inst.ops
    if not (isinstance(d, R) and isinstance(m, Mem) and isinstance(m.disp, int)):
        return None
    if d.reg not in LOW or m.base not in LOW:
        return None
    return d.reg, m.base, m.disp


def _sub(op, perm: dict):
    if isinstance(op, R) and op.reg in perm:
        return R(perm[op.reg])
    if isinstance(op, Mem) and op.base in perm:
        return Mem(perm[op.base], op.disp)
    return op


def merge_loads(mf: MFunction, target) -> int:
    """Apply the merge wherever it fits; returns how many LDMs were made."""
    made = 0
    while True:
        insts = mf.insts
        cfg = Cfg(insts, target)
        du = [defs_uses(i, target) for i in insts]
        live_out = block_liveness(cfg, du, lambda r: r in LOW)
        done = False
        for bi, (a, b) in enumerate(cfg.blocks):
            # live-after sets of the block's instructions
            after = [set() for _ in range(b - a)]
            live = set(live_out[bi])
            for i in range(b - 1, a - 1, -1):
                after[i - a] = set(live)
                d, u = du[i]
                live.difference_update(d)
                live.update(r for r in u if r in LOW)
            i = a
            while i < b and not done:
                first = _word_load(insts[i])
                if first is None:
                    i += 1
                    continue
                base = first[1]
                run = []
                j = i
                while j < b:
                    w = _word_load(insts[j])
                    if w is None or w[1] != base or any(w[0] == x[0] for x in run):
                        break
                    run.append(w)
                    j += 1
                    if w[0] == base:            # the base is overwritten: the run ends here
                        break
                offs = sorted(x[2] for x in run)
                if len(run) < 2 or offs != [4 * k for k in range(len(run))]:
                    i += 1
                    continue
                dests = [x[0] for x in sorted(run, key=lambda x: x[2])]
                regs = sorted(dests)
                wb = base not in dests
                if wb and base in after[j - 1 - a]:
                    i += 1
                    continue
                perm = {d: r for d, r in zip(dests, regs) if d != r}
                end = j
                if perm:
                    # the region after the run where any destination is still live
                    end = j
                    while end < b and after[end - 1 - a] & set(dests):
                        inst = insts[end]
                        # an LDM made earlier fills its registers in ascending order: a
                        # renaming could put them out of order, so the region stops there
                        if inst.mn in ("label", "bl", "push", "pop", "ldm") or target.desc(inst).branch:
                            break
                        end += 1
                    if after[end - 1 - a] & set(dests):
                        i += 1
                        continue
                    for k in range(j, end):
                        insts[k].ops = [_sub(o, perm) for o in insts[k].ops]
                ldm = MInst("ldm", [R(base)] + [R(r) for r in regs], depth=insts[i].depth, loc=insts[i].loc)
                mf.insts = insts[:i] + [ldm] + insts[j:]
                made += 1
                done = True
            if done:
                break
        if not done:
            return made
