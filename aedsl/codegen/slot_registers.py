"""Stretches of a spill slot's life within one block carried in registers instead (after
register allocation; target-neutral: reads InstrDesc, the cost model and `Target.move`).

Shape matched: a stretch of a spill slot's life (`Frame("slot", k)`, a frame word only the
allocator's spill code reaches) within one basic block: a store of a register into it
(`target.move(rX, slot)`) and reads of its whole word after it, with no call, label or target
barrier in between, where the slot is dead after the stretch: either the slot's next reference
is another store in the same block (one slot holds every step of a spilled chain of two-address
steps, `mov a, t; eor b, t`: the copy's ends share it), or every reference of the slot lies in
that block and the first is a store (entering the block it is written before it is read, and
leaving it the next reference is that store again: a loop's next turn). Chaitin-style colouring
gives a value one place for its whole life, so a value computed in the middle of a loop body under
high pressure and carried to the next turn goes to a slot and is copied into its loop-carried
register at the latch (Ascon's linear layer on MSP430: `mov r4, 36(sp)` ... `mov 36(sp), r8`, every
register busy somewhere in between), although at each point of the stretch some register is idle.

The value is carried instead by a chain of registers, each idle (not live, not written) over its
part of the stretch, with a register copy where one part hands over to the next; found from the
stretch's end backwards, furthest reach first (fewest copies): when the last reference copies
the slot into a register P (`target.move(slot, rP)`), the chain ends in P itself, as far back as
P's old value is dead, and that copy goes. The store becomes a copy into the chain's first
register (none when that is X, dead after the store), each read reads the register holding the
value there. Taken only where the cost model says the copies cost fewer cycles and no more bytes
than the store, the slot reads and the final copy. Reads other than a copy (`xor 4(sp), r5`) are
taken only where the target accepts a register in that operand (not `reg_only`, not a memory
instruction: Thumb's loads and stores keep their slots). Chain registers are ones the function
may use without new saves (`usable`), of the class `regs`. The slot keeps its frame word (the
frame layout is not renumbered).

Preserves: every instruction reads the value it read before (the chain holds the slot's value
over the whole stretch, each register where nothing else lives in it or writes it), and every
register and memory word live after the stretch holds what it held (the slot's word is not:
nothing reads it before its next store); register copies change no flags (the contract of
`Target.move`).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from .liveness import Cfg, block_liveness, defs_uses
from .mir import MFunction, MInst, R, frame_kind
from .target import Target


def _moves(inst: MInst, target: Target, slot) -> tuple[str, int] | None:
    """("store", X) if `inst` is the target's move of register X into `slot`, ("load", P) if it
    is its move of `slot` into register P, else None."""
    for op in inst.ops:
        if isinstance(op, R):
            for kind, m in (("store", target.move(op, slot)), ("load", target.move(slot, op))):
                if m.mn == inst.mn and list(m.ops) == list(inst.ops):
                    return kind, op.reg
    return None


def _takes_register(inst: MInst, pos: int, target: Target) -> bool:
    d = target.desc(inst)
    return pos in d.reads and pos not in d.writes and pos not in d.reg_only and not d.memory


def _as(old: MInst, new: MInst) -> MInst:
    """`new`'s instruction with `old`'s depth, source line and report fields."""
    return replace(old, mn=new.mn, ops=list(new.ops))


def _with(inst: MInst, pos: int, op) -> MInst:
    ops = list(inst.ops)
    ops[pos] = op
    return inst.with_ops(ops)


def _chain(first: int, last: int, live_before: dict, du: list, cands: list[int], end: int | None, x: int):
    """[(register, first gap it holds the value in)] from the stretch's start, gap k being the
    point before instruction k, covering gaps first+1 .. last with the fewest hand-overs, the
    last register `end` when given; among equals the stored register `x` (its store then goes)
    and then the target's preference order. None if no chain exists."""
    order = {r: (r != x, k) for k, r in enumerate(cands)}
    def free(r, k):
        return r not in live_before[k]

    def reach(r, g):                  # the earliest gap from which r can hold up to gap g
        s = g
        while s - 1 > first and free(r, s - 1) and r not in du[s - 1][0] and r not in du[s - 1][1]:
            s -= 1
        return s

    g = last
    if end is not None:
        if not free(end, g):
            return None
        reg = end
    else:
        fits = [r for r in cands if free(r, g)]
        if not fits:
            return None
        reg = min(fits, key=lambda r: (reach(r, g), order[r]))
    chain = []
    while True:
        s = reach(reg, g)
        chain.append((reg, s))
        if s == first + 1:
            return chain[::-1]
        fits = [r for r in cands if r != reg and free(r, s)]
        if not fits:
            return None
        reg = min(fits, key=lambda r: (reach(r, s), order[r]))
        if reach(reg, s) == s:
            return None               # no register reaches back past this point
        g = s


def slot_registers(mf: MFunction, target: Target, usable: set[int], regs: frozenset[int],
                   barriers: frozenset[str] = frozenset(), order: tuple[int, ...] | None = None,
                   extra_bytes: int = 0) -> set[int]:
    """Carry the slots described above in registers (in place); returns the registers it put to
    use. `usable`: registers the function may take without new saves; `regs`: the registers a
    chain may use (one class); `barriers`: mnemonics nothing is carried across; `order`: the
    candidates in preference order (default: the allocatable registers); `extra_bytes`: how many
    bytes a stretch's copies may add for the cycles they save (0: none)."""
    insts = mf.insts
    refs: dict = defaultdict(list)
    for i, inst in enumerate(insts):
        for pos, op in enumerate(inst.ops):
            if frame_kind(op) == "slot":
                refs[op.disp.key].append((i, pos))
    if not refs:
        return set()
    cfg = Cfg(insts, target)
    block_of = {}
    for bi, (a, b) in enumerate(cfg.blocks):
        for i in range(a, b):
            block_of[i] = bi
    du = [defs_uses(i, target) for i in insts]
    live_out = block_liveness(cfg, du, lambda r: r >= 0)
    cands = [r for r in (target.allocatable if order is None else order) if r in usable and r in regs]
    taken: set[int] = set()
    gone: set[int] = set()
    before: dict[int, list[MInst]] = defaultdict(list)     # copies put in front of an instruction
    cached: dict[int, tuple[int, dict]] = {}     # block -> (first index known, live before each)
    for sites, slot in _webs(insts, refs, block_of, target):
        first, last = sites[0][0], sites[-1][0]
        store = _moves(insts[first], target, slot)
        load = _moves(insts[last], target, slot)
        load = load[1] if load and load[0] == "load" else None
        reads = [(i, p) for i, p in sites[1:] if not (i == last and load is not None)]
        if not all(_takes_register(insts[i], p, target) for i, p in reads) \
                or any(insts[i].mn in barriers or insts[i].mn == "label"
                       or (insts[i].mn != "comment" and (target.desc(insts[i]).memory == "call"
                                                          or target.desc(insts[i]).branch))
                       for i in range(first + 1, last + 1)):
            continue
        bi = block_of[first]
        live_before = _live_before(cached, bi, cfg.blocks[bi][1], first, du, live_out[bi])
        x = store[1]
        chain = _chain(first, last, live_before, du, cands, load if load in regs else None, x)
        if chain is None and load is not None:
            chain = _chain(first, last, live_before, du, cands, None, x)
        if chain is None:
            continue
        new_store = None if chain[0][0] == x else _as(insts[first], target.move(R(x), R(chain[0][0])))
        hand = [(s, _as(insts[s], target.move(R(r0), R(r1)))) for (r0, _), (r1, s) in zip(chain, chain[1:])]
        holder = {}
        for r, s in chain:
            for k in range(s, last + 1):
                holder[k] = r
        end = chain[-1][0]
        new_load = None if load is None or end == load else _as(insts[last], target.move(R(end), R(load)))
        new_reads = [(i, _with(insts[i], p, R(holder[i]))) for i, p in reads]
        old_cost = [target.cost(insts[first])] + [target.cost(insts[i]) for i, _ in reads] \
            + ([target.cost(insts[last])] if load is not None else [])
        new_cost = [target.cost(m) for m in [new_store, new_load] if m is not None] \
            + [target.cost(m) for _, m in hand] + [target.cost(m) for _, m in new_reads]
        ob, oc = sum(c[0] for c in old_cost), sum(c[1] for c in old_cost)
        nb, nc = sum(c[0] for c in new_cost), sum(c[1] for c in new_cost)
        if not (nc < oc and nb <= ob + extra_bytes):
            continue
        if new_store is None:
            gone.add(first)
            du[first] = ([], [])
        else:
            insts[first] = new_store
            du[first] = defs_uses(new_store, target)
        for i, m in new_reads:
            insts[i] = m
            du[i] = defs_uses(m, target)
        if load is not None:
            if new_load is None:
                gone.add(last)
                du[last] = ([], [])     # the chain's last register carries the value through it
            else:
                insts[last] = new_load
                du[last] = defs_uses(new_load, target)
        for s, m in hand:
            before[s].append(m)
        taken.update(r for r, _ in chain)
        _mark_live(du, chain, last)
        valid, known = cached[bi]
        cached[bi] = (max(valid, last + 1), known)    # du changed at first .. last only
    out: list[MInst] = []
    for i, inst in enumerate(insts):
        out.extend(before.get(i, ()))
        if i not in gone:
            out.append(inst)
    mf.insts = out
    return taken


def _live_before(cached: dict, bi: int, end: int, first: int, du: list, live_out: set) -> dict:
    """The registers live before each instruction k of block `bi` (ending at `end`), for
    first < k < end, from the block's live-out set; what an earlier call computed is reused
    from the index below which `du` has since changed (`cached[bi]`)."""
    valid, known = cached.get(bi, (end, {}))
    if valid > first + 1:
        live = set(live_out) if valid == end else set(known[valid])
        for k in range(valid - 1, first, -1):
            d, u = du[k]
            live.difference_update(d)
            live.update(u)
            known[k] = set(live)
        valid = first + 1
    cached[bi] = (valid, known)
    return known


def _webs(insts: list[MInst], refs: dict, block_of: dict, target: Target):
    """The stretches to carry, in the order of their first reference: (sites, slot operand), each
    a store of a register into the slot and the reads after it up to the slot's next store, when
    that next store is in the same block (nothing reads the stored value after the stretch), or
    up to the slot's last reference when every reference is in one block and the first is a
    store (the next turn of a loop stores before it reads). The allocator gives the values of a
    chain of two-address steps one slot (`mov a, t; eor b, t`: the copy's ends share it), so one
    slot may hold several such stretches."""
    out = []
    for key, sites in refs.items():
        slot = insts[sites[0][0]].ops[sites[0][1]]
        if len({i for i, _ in sites}) != len(sites) or any(insts[i].ops[p] != slot for i, p in sites):
            continue
        stores = [n for n, (i, _) in enumerate(sites) if (_moves(insts[i], target, slot) or ("",))[0] == "store"]
        one_block = len({block_of[i] for i, _ in sites}) == 1 and stores[:1] == [0]
        for a, b in zip(stores, stores[1:] + [len(sites)]):
            web = sites[a:b]
            if len(web) < 2:
                continue
            if b < len(sites) and block_of[sites[b][0]] == block_of[web[0][0]] == block_of[web[-1][0]]:
                out.append((web, slot))
            elif b == len(sites) and one_block:
                out.append((web, slot))
    return sorted(out, key=lambda w: w[0][0][0])


def _mark_live(du, chain, last) -> None:
    """Record the chain in the def/use lists so that later stretches of the same block see its
    registers busy: each part's register is written by the instruction before its first gap (the
    store; a hand-over copy stands in front of the next instruction) and read by the one after
    its last gap (where the next hand-over copy stands, or the stretch's last reference)."""
    ends = [s for _, s in chain[1:]] + [last]
    for (r, s), end in zip(chain, ends):
        d, u = du[s - 1]
        du[s - 1] = (list(d) + [r], list(u))
        d, u = du[end]
        du[end] = (list(d), list(u) + [r])
