"""Spilled values read several times from a free register (after register allocation;
target-neutral: reads InstrDesc and the cost model).

Shape matched: inside one basic block of allocated machine IR, a spill slot (a frame word the
allocator owns) read as a source operand by two or more instructions with no write to it in
between, while some register is free from the first of those reads to the last. Chaitin-style
spilling keeps a spilled value in memory over its whole live range, so where its uses bunch
together (one S-box column reading its five inputs three times each, one word of a linear layer
read by three rotations) every use pays for the memory operand. Here the value is loaded once,
`move(slot, F)` right before the first read, and the reads in between read F: live-range
splitting done where the allocation has left a register idle.

Which register: one the function may use without new saves (the allocation already uses it, or
the calling convention lets every function clobber it), not live and neither read nor written
anywhere from the load to the last read. Which reads: word reads of the slot (a read of a byte
above its low one is left as it is and does not end the run); a read is rewritten only where
the target accepts a register there (the same mnemonic with a register operand), and the run is
taken only where the cost model says the load plus the rewritten reads are cheaper, in cycles
(and, in size mode, not larger), best runs first.

Preserves: every instruction reads the value it read before (F holds the slot's value from the
load to the last rewritten read: the slot is not written in between and F is not touched), and
every other register and memory word is unchanged.
"""
from __future__ import annotations

from .copies import TRACKED_FRAME
from .liveness import Cfg, block_liveness, defs_uses
from .mir import Frame, Mem, MFunction, MInst, R
from .target import Target

MAX_RUN = 24                        # reads one load may serve (bounds the search)


def _slot(op) -> tuple | None:
    if isinstance(op, Mem) and op.base is not None and isinstance(op.disp, Frame) and op.disp.kind in TRACKED_FRAME:
        return (op.base, op.disp.kind, op.disp.key)
    return None


def _accesses(inst: MInst, target: Target):
    """(word reads: [(operand position, slot)], slots written) of one instruction."""
    d = target.desc(inst)
    reads, written = [], set()
    for i, op in enumerate(inst.ops):
        s = _slot(op)
        if s is None:
            continue
        if i in d.writes:
            written.add(s)
        elif op.disp.extra == 0 and i not in d.reg_only:
            reads.append((i, s))
    return reads, written


def _with_reg(inst: MInst, pos: int, reg: int) -> MInst:
    ops = list(inst.ops)
    ops[pos] = R(reg)
    return inst.with_ops(ops)


def reload_runs(mf: MFunction, target: Target, usable: set[int], size_mode: bool = False) -> set[int]:
    """Rewrite bunched reads of spill slots to read a free register (in place); returns the
    registers it put to use. `usable`: the registers the function may take without new saves."""
    insts = mf.insts
    cfg = Cfg(insts, target)
    du = [defs_uses(i, target) for i in insts]
    physical = set(target.allocatable)
    live_out = block_liveness(cfg, du, lambda r: r >= 0)
    move_mn = target.move(R(0), R(0)).mn
    loads: dict[int, MInst] = {}            # instruction index -> the load to put before it
    rewrites: dict[int, list[tuple[int, int]]] = {}
    taken: set[int] = set()
    for bi, (a, b) in enumerate(cfg.blocks):
        # registers busy at each instruction: live across it, or read or written by it
        busy = [0] * (b - a)
        live = set(live_out[bi])
        for k in range(b - 1, a - 1, -1):
            d, u = du[k]
            mask = 0
            for r in live | set(d) | set(u):
                if r in physical:
                    mask |= 1 << r
            live.difference_update(d)
            live.update(u)
            busy[k - a] = mask
        # runs of reads of each slot with no write between
        runs: dict[tuple, list[list[tuple[int, int]]]] = {}
        for k in range(a, b):
            inst = insts[k]
            if inst.mn in ("label", "comment"):
                continue
            reads, written = _accesses(inst, target)
            if target.desc(inst).branch:
                reads = []
            for pos, s in reads:
                if s not in written:
                    runs.setdefault(s, [[]])[-1].append((k, pos))
            for s in written:
                runs.setdefault(s, [[]]).append([])
        candidates = []
        for s_, groups in runs.items():
            for reads in groups:
                if len(reads) < 2:
                    continue
                saving = [_saving(insts[k], pos, target, move_mn) for k, pos in reads]
                k0, pos0 = reads[0]
                load_b, load_c = target.cost(target.move(insts[k0].ops[pos0], R(target.allocatable[0])))
                for i in range(len(reads) - 1):
                    total_c = total_b = 0
                    for j in range(i, min(len(reads), i + MAX_RUN)):
                        if saving[j] is None:
                            break
                        total_b += saving[j][0]
                        total_c += saving[j][1]
                        if j == i:
                            continue
                        if total_c > load_c and not (size_mode and total_b < load_b):
                            candidates.append((total_c - load_c, reads[i][0], reads[j][0], reads[i:j + 1], s_))
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        used_positions: set[tuple[int, int]] = set()
        for gain, first, last, sub, s in candidates:
            if any(p in used_positions for p in sub) or first in loads:
                continue
            span = 0
            for k in range(first, last + 1):
                span |= busy[k - a]
            free = [r for r in target.allocatable if r in usable and not (span >> r) & 1]
            if not free:
                continue
            reg = free[0]
            for k in range(first, last + 1):
                busy[k - a] |= 1 << reg
            used_positions.update(sub)
            mem = insts[first].ops[sub[0][1]]
            loads[first] = target.move(mem, R(reg))
            loads[first].depth, loads[first].loc = insts[first].depth, insts[first].loc
            for k, pos in sub:
                rewrites.setdefault(k, []).append((pos, reg))
            taken.add(reg)
    if not loads:
        return taken
    out: list[MInst] = []
    for k, inst in enumerate(insts):
        if k in loads:
            out.append(loads[k])
        for pos, reg in rewrites.get(k, ()):
            inst = _with_reg(inst, pos, reg)
        out.append(inst)
    mf.insts = out
    return taken


def _saving(inst: MInst, pos: int, target: Target, move_mn: str):
    """(bytes, cycles) saved by reading a register instead of the slot at operand `pos`; None
    where the target takes no register there (a load or store form other than the move, as
    Thumb's `ldr` and `str`, an address or a call)."""
    if target.desc(inst).memory and inst.mn != move_mn:
        return None
    probe = target.allocatable[0]
    old = target.cost(inst)
    new = target.cost(_with_reg(inst, pos, probe))
    return old[0] - new[0], old[1] - new[1]
