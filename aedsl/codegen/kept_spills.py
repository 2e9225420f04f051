"""A register holding a spilled value kept over a short-lived overwrite, so that the value's
reload goes (after register allocation; target-neutral: reads InstrDesc, liveness and the
cost model).

Shape matched, inside one basic block: register R holds the value of a spill slot S (the block
stored R there, `mov R, S`, or loaded it from there, `mov S, R`); instructions D1, D2, .. then
write new values into R, each read only up to its E (the last value dead after its E); and S
is read back into a register X at J, with S not written in between. The allocator gave those
values R because the reload at J is spill code, placed after the colouring chose. Each goes to
a register F idle over its [D, E] instead, so R still holds S's value at J, where
`copies.remove_redundant_moves` deletes the reload (X = R) or turns it into a register copy.
Typical cases on ARMv6-M: a value stored to its slot and read back three instructions later,
its register taken in between by a value read once (PHOTON256's serial MixColumns); an in-place
permutation's state pointer, spilled across its round loop, taken over by the last state word
loaded through it and reloaded at once for the next load (`ldr r0, [r0, #4]; mov r12, r0;
ldr r0, [sp, #16]; ldr r7, [r0]`: Ascon-p's entry, until its count came passed mapped and the
schedule changed).

Which F: a register of `regs` (the class the target's instructions accept alike) in `usable`
(no new saves), not live anywhere in [D, E] and neither read nor written there; the lowest
first (the values' lives do not overlap, so one F may serve several). Not where a D updates R
in place (`adds R, #1`: the slot's value is its input) or D..J
auto-increments R, nor across a label, branch, call or target barrier. Taken only where the
cost model prices the reload above its replacement.

Preserves: every instruction reads the values it read before. Each D's value is written to
its F and read from it up to its E; F held nothing live there. R keeps S's value from the first
D to J, where no instruction read R's content after the last E (R was dead there); a D's own
read of R (an address) still reads R, or the previous value's F, before it writes.
"""
from __future__ import annotations

from .liveness import Cfg, block_liveness, defs_uses, live_after
from .mir import Inc, MFunction, MInst, R, slot_key
from .rename import in_place, rename_reads
from .target import Target


def slot_holder(inst: MInst, key, target: Target) -> int | None:
    """The register a copy `inst` moves spill slot `key`'s value into or out of (`mov S, R` or
    `mov R, S`), else None."""
    if inst.mn != target.move_mn or len(inst.ops) != 2:
        return None
    p, q = inst.ops
    return p.reg if isinstance(p, R) and slot_key(q) == key else \
        q.reg if isinstance(q, R) and slot_key(p) == key else None


def slot_written(inst: MInst, key, target: Target) -> bool:
    """Whether `inst` writes spill slot `key`."""
    desc = target.desc(inst)
    return any(slot_key(op) == key for i, op in enumerate(inst.ops) if i in desc.writes or desc.memory == "store")


def copy_beats_reload(target: Target, src: int, reload: MInst) -> bool:
    """Whether a copy from register `src` into the reload's register is cheaper than the reload
    `reload` (cycles first, then bytes)."""
    copy = MInst(target.move_mn, [R(src), reload.ops[1]], depth=reload.depth, loc=reload.loc)
    (copy_bytes, copy_cycles), (load_bytes, load_cycles) = target.cost(copy), target.cost(reload)
    return (copy_cycles, copy_bytes) < (load_cycles, load_bytes)


def keep_spilled(mf: MFunction, target: Target, regs: frozenset[int], usable: set[int],
                 barriers: frozenset[str] = frozenset()) -> set[int]:
    """Rename the overwrites described above; returns the registers F it newly used."""
    stop = frozenset({"label"}) | barriers
    insts = mf.insts
    cfg = Cfg(insts, target)
    du = [defs_uses(i, target) for i in insts]
    live_out = block_liveness(cfg, du, lambda r: r in regs)
    taken: set[int] = set()
    for bi, (a, b) in enumerate(cfg.blocks):
        after = live_after(du, a, b, live_out[bi], regs.__contains__)
        for j in range(a, b):
            change = _candidate(insts, du, after, a, j, target, regs, usable, stop)
            if change is None:
                continue
            r, webs = change
            for d, e, f in webs:
                insts[d] = _rename_def(insts[d], target, r, f)
                for k in range(d + 1, e + 1):
                    insts[k] = rename_reads(insts[k], target, r, f)
                for k in range(d, e + 1):
                    du[k] = defs_uses(insts[k], target)
                taken.add(f)
            after = live_after(du, a, b, live_out[bi], regs.__contains__)
    return taken


def _candidate(insts, du, after, a, j, target, regs, usable, stop):
    """(R, its writes to rename) for a reload at j, or None."""
    inst = insts[j]
    if inst.mn != target.move_mn or len(inst.ops) != 2:
        return None
    src, dst = inst.ops
    key = slot_key(src)
    if key is None or not isinstance(dst, R):
        return None
    # back from j: the last write of each register, up to the copy that put S's value in R
    written: dict[int, int] = {}
    for s in range(j - 1, a - 1, -1):
        x = insts[s]
        if x.mn == "comment":
            continue
        desc = target.desc(x)
        if x.mn in stop or desc.branch or desc.memory == "call":
            return None
        holder = slot_holder(x, key, target)
        if holder is not None:
            if holder in regs:
                d = written.get(holder)
                if d is None:
                    return None                 # R holds S at j already: copies.py's case
                return _renamed(insts, du, after, d, j, holder, target, regs, usable)
        if slot_written(x, key, target):
            return None                         # S written: no older copy holds it
        for r in du[s][0]:
            written[r] = s                      # (the earliest after the holder's copy wins)
    return None


def _renamed(insts, du, after, d, j, r, target, regs, usable):
    """(R, [(D, E, F), ..]): the writes D of R before j, d the first, each with its value's last
    read E and an idle register F for [D, E]; None where one has no F or updates R in place."""
    if any(isinstance(op, Inc) and op.reg == r for k in range(d, j) for op in insts[k].ops):
        return None                             # R auto-incremented: updated in place
    webs = []
    for k in range(d, j):
        dk, uk = du[k]
        if r in uk and webs:
            webs[-1][1] = k
        if r in dk:
            if in_place(insts[k], target, r):
                return None                     # R updated in place: its old value is an input
            webs.append([k, k])
    if r in after[webs[-1][1]]:
        return None                             # the last value is read after its E (past j)
    reload = insts[j]
    if reload.ops[1].reg != r and not copy_beats_reload(target, r, reload):
        return None
    out = []
    for dd, e in webs:
        busy = (after[dd] - set(du[dd][0])) | {u for u in du[dd][1] if u in regs}   # live before D
        for k in range(dd, e + 1):
            busy |= after[k] | set(du[k][0]) | set(du[k][1])
        free = sorted(f for f in regs & usable if f not in busy and f != r)
        if not free:
            return None
        out.append((dd, e, free[0]))
    return r, out


def _rename_def(inst: MInst, target: Target, old: int, new: int) -> MInst:
    """`inst` writing register `new` where it wrote `old` (its reads of `old` kept)."""
    desc = target.desc(inst)
    ops = [R(new) if i in desc.writes and op == R(old) else op for i, op in enumerate(inst.ops)]
    return inst.with_ops(ops)
