"""Spilled values read several times from a free register (after register allocation;
target-neutral: reads InstrDesc and the cost model).

Shape matched: inside one basic block of allocated machine IR, a spill slot (a frame word the
allocator owns), or a word read through a pointer register (a state in memory: read only,
never written from the register, and the run ends at anything that may change the word: a write
through another pointer or to the word, a change of the pointer, a call), accessed by two or
more instructions, each reading it as a word operand or
updating it in place (`rrc 0(sp)`, `xor r5, 4(sp)`), with stores to it (`mov r5, 4(sp)`)
allowed between once a run updates it, while some register is free from the first of those
accesses to the last. Chaitin-style spilling keeps a spilled value in memory over its whole
live range, so where its uses bunch together (one S-box column reading its five inputs three
times each, one word of a linear layer read by three rotations, a bit permutation shifting
bits into an accumulator one `rrc` at a time; a bit-level shift register in memory, whose taps
read each word again and again) every use pays for the memory operand. Here the
value is loaded once, `move(slot, F)` right before the first access (none if that is a store),
the accesses in between use F, and where the run wrote the value, `move(F, slot)` follows its
last access: live-range splitting done where the allocation has left a register idle.

Which register: one the function may use without new saves (the allocation already uses it, or
the calling convention lets every function clobber it), not live and neither read nor written
anywhere from the first access to the last. Which accesses: word accesses the target takes a
register for (the same mnemonic with a register operand); any other access to the slot (a
byte of it, a write the rule does not take) ends the run. A run is taken only where the cost
model says the load, the store and the rewritten accesses are cheaper, in cycles (and, in size
mode, not larger), best runs first; a run that writes the slot must also update it in place
(a store followed by reads is left to copies.py, which reads the stored register).

Preserves: every instruction reads the value it read before (F holds the slot's value from the
load to the last access, and what the run stores goes to F; nothing else reads the slot in
between), the slot holds its final value after the run, and every other register and memory
word is unchanged.
"""
from __future__ import annotations

from .copies import TRACKED_FRAME
from .liveness import Cfg, block_liveness, defs_uses
from .mir import Frame, Ind, Inc, Mem, MFunction, MInst, R, address, as_mem
from .target import Target

MAX_RUN = 24                        # reads one load may serve (bounds the search)


def _slot(op) -> tuple | None:
    """The key of a frame word the allocator owns, (base, kind, key); or of a word of memory
    through a pointer register, (base, "mem", displacement)."""
    if isinstance(op, Mem) and op.base is not None and isinstance(op.disp, Frame) and op.disp.kind in TRACKED_FRAME:
        return (op.base, op.disp.kind, op.disp.key)
    a = address(op)
    # a word through a pointer is at an even displacement (a byte at an odd one, as `mov.b
    # 3(r12)` reads, is no word a register could hold: reading the word there would be unaligned)
    return None if a is None or not isinstance(a[1], int) or a[1] % 2 else (a[0], "mem", a[1])


def _whole(op) -> bool:
    """The operand names its slot's whole word (not a byte inside a frame word)."""
    return not (isinstance(op, Mem) and isinstance(op.disp, Frame) and op.disp.extra != 0)


def _accesses(inst: MInst, target: Target):
    """(word accesses a register can take: [(operand position, slot, reads, writes)], slots
    written otherwise, slots read otherwise: a byte of the word) of one instruction. Memory
    through a pointer is only read through a register: a write to it is `other`."""
    d = target.desc(inst)
    access, other, touched = [], set(), set()
    for i, op in enumerate(inst.ops):
        s = _slot(op)
        if s is None:
            continue
        if _whole(op) and i not in d.reg_only and not (s[1] == "mem" and i in d.writes):
            access.append((i, s, i in d.reads, i in d.writes))
        elif i in d.writes:
            other.add(s)
        else:
            touched.add(s)
    return access, other, touched


def _clobbered(inst: MInst, target: Target, defs: list[int], keys) -> set:
    """The pointer-memory keys among `keys` whose register copy `inst` may make stale: it
    writes memory that may be theirs (anything but a frame slot, and through their own
    pointer only a word apart from theirs), it changes their pointer, or it is a call."""
    d = target.desc(inst)
    mem = [k for k in keys if k[1] == "mem"]
    if not mem:
        return set()
    if d.memory == "call" or d.branch == "call":
        return set(mem)
    out = {k for k in mem if k[0] in defs}
    for i, op in enumerate(inst.ops):
        if i not in d.writes or not isinstance(op, (Mem, Ind, Inc)):
            continue
        s = _slot(op)
        if s is not None and s[1] != "mem":
            continue                  # a frame slot the allocator owns: no pointer reaches it
        for k in mem:
            if s is None or s[0] != k[0] or abs(s[2] - k[2]) < target.word_bytes:
                out.add(k)
    return out


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
    move_mn = target.move_mn
    loads: dict[int, MInst] = {}            # instruction index -> the load to put before it
    stores: dict[int, MInst] = {}           # instruction index -> the store to put after it
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
        # runs of accesses to each slot that a register can take (word reads, in-place
        # updates, stores), ended by anything else that writes it
        runs: dict[tuple, list[list[tuple[int, int, bool, bool]]]] = {}
        for k in range(a, b):
            inst = insts[k]
            if inst.mn in ("label", "comment"):
                continue
            access, other, touched = _accesses(inst, target)
            other |= _clobbered(inst, target, du[k][0], runs)
            if target.desc(inst).branch:
                other |= {s for _, s, _, _ in access}
                access = []
            for pos, s, rd, wr in access:
                runs.setdefault(s, [[]])[-1].append((k, pos, rd, wr))
            for s in other:
                runs.setdefault(s, [[]]).append([])
            for s in touched - other:
                # memory read as it is: a run before it may not hold a newer value in F
                runs.setdefault(s, [[]])[-1].append((k, None, True, False))
        candidates = []
        for s_, groups in runs.items():
            for acc in groups:
                real = [(k, pos) for k, pos, _, _ in acc if pos is not None]
                if len(real) < 2:
                    continue
                saving = [None if pos is None else _saving(insts[k], pos, target, move_mn)
                          for k, pos, _, _ in acc]
                k0, pos0 = real[0]
                at = insts[k0].ops[pos0]
                load_b, load_c = target.cost(target.move(at, R(target.allocatable[0])))
                store_b, store_c = target.cost(target.move(R(target.allocatable[0]), as_mem(at)))
                for i in range(len(acc) - 1):
                    total_c = total_b = 0
                    wrote = updated = False
                    for j in range(i, min(len(acc), i + MAX_RUN)):
                        if saving[j] is None:
                            break
                        total_b += saving[j][0]
                        total_c += saving[j][1]
                        wrote = wrote or acc[j][3]
                        updated = updated or (acc[j][2] and acc[j][3])
                        if j == i or (wrote and not updated):
                            continue
                        cost_c = (load_c if acc[i][2] else 0) + (store_c if wrote else 0)
                        cost_b = (load_b if acc[i][2] else 0) + (store_b if wrote else 0)
                        if total_c > cost_c and not (size_mode and total_b < cost_b):
                            candidates.append((total_c - cost_c, acc[i][0], acc[j][0],
                                               [(k, pos) for k, pos, _, _ in acc[i:j + 1]], s_,
                                               acc[i][2], wrote))
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        used_positions: set[tuple[int, int]] = set()
        for gain, first, last, sub, s, loaded, wrote in candidates:
            if any(p in used_positions for p in sub) or first in loads or (wrote and last in stores):
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
            if loaded:
                loads[first] = target.move(mem, R(reg))
                loads[first].depth, loads[first].loc = insts[first].depth, insts[first].loc
            if wrote:
                stores[last] = target.move(R(reg), mem)
                stores[last].depth, stores[last].loc = insts[last].depth, insts[last].loc
            for k, pos in sub:
                rewrites.setdefault(k, []).append((pos, reg))
            taken.add(reg)
    if not rewrites:
        return taken
    out: list[MInst] = []
    for k, inst in enumerate(insts):
        if k in loads:
            out.append(loads[k])
        for pos, reg in rewrites.get(k, ()):
            inst = _with_reg(inst, pos, reg)
        out.append(inst)
        if k in stores:
            out.append(stores[k])
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
