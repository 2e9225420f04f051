"""Register allocation by graph colouring with coalescing and spilling (Chaitin-Briggs).

The algorithm, in the order it runs (repeated until nothing spills):

1. Liveness over the CFG (`liveness.py`), then the interference graph: a register defined by an
   instruction interferes with everything live after it — except, for a copy `mov a, b`, with
   `a` itself (so copies can be coalesced). Physical registers (arguments arriving in r12..)
   are precoloured nodes of the same graph.
2. Conservative coalescing (Briggs): the two ends of a copy that do not interfere are merged when
   the merged node has fewer than K neighbours of significant degree, so merging cannot make the
   graph harder to colour. Two-address selection (`mov a, t; xor b, t`) relies on this to
   leave no copy behind when `a` dies. Where the colouring of step 3 then spills (in the first
   round, at most AGGRESSIVE_MAX_SPILLS values), it is tried again with every copy whose ends
   do not interfere merged (aggressive coalescing), and that one is kept if what it spills
   costs less: in a loop whose carried values fill the registers
   every neighbour is of high degree, so Briggs merges none of the loop's copies, and the
   colouring of the unmerged copies can fail where the merged graph colours (Grain-128AEADv2's
   AUGen as a loop: a word of its accumulator read, xored and written back through a slot every
   turn, where all fit r4-r15).
3. Simplify/select with optimistic colouring: remove nodes of degree < K; when none is left,
   remove the node of least spill cost per degree (cost = uses and defs weighted 10^loop depth)
   and hope. Popping assigns the first free colour in the target's preference order.
4. A node left without a colour is spilled to a stack slot. The target's instructions decide how:
   a spilled register is replaced *in place* by its slot's memory operand wherever the
   instruction accepts memory there (MSP430 accepts memory in nearly every operand, so a spill
   costs a few cycles per use and no extra instruction); where a register is required
   (`InstrDesc.reg_only`, or the base of an address) a short-lived temporary is reloaded before /
   stored after, and temporaries are never spilled again. A spilled value built by a run of
   read-modify-write steps (`mov a, v; swpb v; bis b, v`) is built in one temporary and stored
   once where the cost model says that is faster (`_split_chains`). Nodes spilled in one round that are
   the two ends of a copy and do not interfere share a slot (`_share_slots`), and the copy, now
   `mov slot, slot`, is deleted: a loop-carried value and the value the body yields for it would
   otherwise be copied memory to memory every iteration.
5. Rematerialisation (targets with `Target.rematerialize`): a spilled register whose only
   definition is `mov #imm, v` (MIR shape: one def, a move from an `Imm`) gets no slot; its
   definition is deleted and every use reads a temporary loaded with the constant just before
   (`movs rT, #imm`: one cycle on Thumb-1 against a store plus a reload per use through a high
   register or the stack). Typical case: a rotate amount selected once and used by every RORS
   of a loop body.
6. Homes in memory the value came from (targets whose instructions take memory operands:
   `Target.arg_homes`, `Target.word_homes`, MSP430). A spilled group loaded from an incoming
   stack argument word that nothing else reads lives in that word (`_Homes.arg_home`: the caller
   reads its outgoing arguments no more): no slot, no copy at entry. A spilled value defined
   once, by a load of a word through a pointer, that straight code neither overwrites nor moves
   the pointer of before the value's last use, is read from that word at each use
   (`_Homes.word_home`): no slot and no store, the load deleted; such a value's definition adds
   nothing to its spill cost. Not where the pointer itself is spilled in the same round (the
   home's operands would name a register that no longer holds it). Both loads become
   `mov M, M` and go with the self-moves. A spilled variable loaded from a word through an
   incoming pointer before the first label and stored back to it after the last
   (`Target.writeback_homes`, `writeback_homes.py`: an in-place primitive's state) lives in
   that word: the load and the store become `mov M, M` and go; the pointer is then kept in a
   register.
"""
from __future__ import annotations

import bisect
import heapq
from collections import defaultdict
from dataclasses import dataclass

from .liveness import Cfg, block_liveness, defs_uses
from .mir import Imm, Inc, Ind, Mem, MFunction, MInst, R, address, as_mem, frame_kind, is_vreg, regs_in
from .target import Target
from . import writeback_homes


class RegAllocError(Exception):
    pass


@dataclass
class Allocation:
    colour: dict[int, int]
    n_slots: int
    used_phys: set[int]
    rounds: int
    writeback: int = 0          # spilled groups given a write-back home (writeback_homes.py)


def copy_regs(inst: MInst, target: Target):
    """(source, destination) of a register-to-register copy (the target's move), else None."""
    if inst.mn != target.move_mn or len(inst.ops) != 2:
        return None
    s, d = inst.ops
    if type(s) is R and type(d) is R:
        return s.reg, d.reg
    return None


def _build(fn: MFunction, target: Target):
    alloc = set(target.allocatable)

    def relevant(r):
        return is_vreg(r) or r in alloc

    insts = fn.insts
    cfg = Cfg(insts, target)
    du = [defs_uses(i, target) for i in insts]
    live_out = block_liveness(cfg, du, relevant)
    adj: dict[int, set[int]] = defaultdict(set)
    moves: list[tuple[int, int]] = []
    cost: dict[int, float] = {}

    def node(r):
        if r not in adj:
            adj[r] = set()

    for bi, (a, b) in enumerate(cfg.blocks):
        live = set(live_out[bi])
        for i in range(b - 1, a - 1, -1):
            d, u = du[i]
            d = [r for r in d if relevant(r)]
            u = [r for r in u if relevant(r)]
            w = 10.0 ** min(insts[i].depth, 4)
            for r in d + u:
                node(r)
                cost[r] = cost.get(r, 0.0) + w
            cp = copy_regs(insts[i], target)
            if cp and relevant(cp[0]) and relevant(cp[1]):
                moves.append(cp)
                live.discard(cp[0])
            for x in d:
                for y in live:
                    if x != y:
                        adj[x].add(y)
                        adj[y].add(x)
            # two defs of one instruction interfere with each other
            for x in d:
                for y in d:
                    if x != y:
                        adj[x].add(y)
            live.difference_update(d)
            live.update(u)
    if target.word_homes:
        # a value defined once, by a load of a word through a pointer, is spilled by reading
        # the word at each use (`_Homes.word_home`, where that is safe): no store, so its definition
        # costs nothing to spill
        mv = target.move_mn
        ndefs: dict[int, int] = defaultdict(int)
        loads: dict[int, float] = {}
        for inst, (d, _) in zip(insts, du):
            for r in d:
                ndefs[r] += 1
            if (inst.mn == mv and len(inst.ops) == 2 and isinstance(inst.ops[1], R)
                    and address(inst.ops[0]) is not None):
                loads[inst.ops[1].reg] = 10.0 ** min(inst.depth, 4)
        for r, w in loads.items():
            if ndefs[r] == 1 and r in cost:
                cost[r] -= w
    return adj, moves, cost


def _coalesce(adj, moves, k, no_spill, aggressive=False):
    """Briggs-conservative coalescing (`aggressive`: every copy whose ends do not interfere);
    returns the alias map (node -> representative)."""
    alias: dict[int, int] = {}

    def find(x):
        while x in alias:
            x = alias[x]
        return x

    for s, d in moves:
        a, b = find(s), find(d)
        if a == b or b in adj.get(a, ()):
            continue
        if not is_vreg(a) and not is_vreg(b):
            continue
        if not is_vreg(b):
            a, b = b, a          # keep the physical register as the representative
        if (a in no_spill) != (b in no_spill):
            continue
        if not aggressive:
            neigh = adj[a] | adj[b]
            significant = sum(1 for n in neigh if len(adj[n]) >= k or not is_vreg(n))
            if significant >= k:
                continue
        # merge b into a
        for n in adj[b]:
            adj[n].discard(b)
            adj[n].add(a)
            adj[a].add(n)
        del adj[b]
        alias[b] = a
    return {x: find(x) for x in list(alias)}


def _colour(adj, cost, target: Target, no_spill, hints=None, partners=None):
    k = len(target.allocatable)
    order = list(target.allocatable)
    vregs = sorted(r for r in adj if is_vreg(r))
    degree = {r: len(adj[r]) for r in vregs}
    removed: set[int] = set()
    low = [r for r in vregs if degree[r] < k]
    heapq.heapify(low)
    stack = []
    remaining = set(vregs)
    while remaining:
        r = None
        while low:
            c = heapq.heappop(low)
            if c in remaining:
                r = c
                break
        if r is None:
            cands = [x for x in remaining if x not in no_spill] or list(remaining)
            r = min(cands, key=lambda x: (cost.get(x, 0.0) / max(degree[x], 1), x))
        remaining.discard(r)
        removed.add(r)
        stack.append(r)
        for n in adj[r]:
            if n in remaining:
                degree[n] -= 1
                if degree[n] == k - 1:
                    heapq.heappush(low, n)
    colour: dict[int, int] = {}
    spilled: list[int] = []
    for r in reversed(stack):
        taken = set()
        for n in adj[r]:
            if is_vreg(n):
                if n in colour:
                    taken.add(colour[n])
            else:
                taken.add(n)
        free = [c for c in order if c not in taken]
        if free and hints and r in hints:
            # biased colouring: a temporary of a spilled value takes a register the value's
            # other temporaries use, so the reload may find the value still there
            siblings = [colour[s] for s in hints[r] if s in colour and colour[s] in free]
            if siblings:
                free.insert(0, max(set(siblings), key=lambda c: (siblings.count(c), -order.index(c))))
        if free and partners and r in partners:
            # biased colouring: a copy's two ends that coalescing kept apart take one colour
            # when it is free, and the copy disappears
            same = [colour[p] for p in partners[r] if p in colour and colour[p] in free]
            same += [p for p in partners[r] if not is_vreg(p) and p in free]
            if same:
                free.insert(0, same[0])
        if free:
            colour[r] = free[0]
        else:
            spilled.append(r)
    return colour, spilled


def _rename(fn: MFunction, m: dict[int, int]) -> None:
    if not m:
        return

    def sub(op):
        if isinstance(op, R) and op.reg in m:
            return R(m[op.reg])
        if isinstance(op, Mem) and op.base in m:
            return Mem(m[op.base], op.disp)
        if isinstance(op, Ind) and op.reg in m:
            return Ind(m[op.reg])
        if isinstance(op, Inc) and op.reg in m:
            return Inc(m[op.reg])
        return op

    for inst in fn.insts:
        inst.ops = [sub(o) for o in inst.ops]


def _constants(fn: MFunction, target: Target) -> dict[int, Imm]:
    """Virtual registers whose only definition is a move from an immediate -> that immediate."""
    mv = target.move_mn
    ndefs: dict[int, int] = defaultdict(int)
    imm: dict[int, Imm] = {}
    for inst in fn.insts:
        if inst.mn in ("label", "comment"):
            continue
        for r in defs_uses(inst, target)[0]:
            if is_vreg(r):
                ndefs[r] += 1
        if inst.mn == mv and len(inst.ops) == 2 and isinstance(inst.ops[0], Imm) and isinstance(inst.ops[1], R):
            imm[inst.ops[1].reg] = inst.ops[0]
    return {r: v for r, v in imm.items() if ndefs[r] == 1}


def _hint(hints: dict, key, t: int) -> None:
    """Record temporary `t` as one of the temporaries of spilled value `key` (biased colouring):
    hints[t] is the list of them all, shared; hints[key] the same list."""
    group = hints.setdefault(key, [])
    group.append(t)
    hints[t] = group


def _rematerialize(fn: MFunction, target: Target, consts: dict[int, Imm], hints: dict) -> None:
    """Delete the definitions of the spilled constants `consts` and load the constant into a
    fresh temporary before each use."""
    out: list[MInst] = []
    for inst in fn.insts:
        if inst.mn in ("label", "comment"):
            out.append(inst)
            continue
        if len(inst.ops) == 2 and isinstance(inst.ops[1], R) and inst.ops[1].reg in consts \
                and inst.mn == target.move_mn and isinstance(inst.ops[0], Imm):
            continue
        before, new_ops = [], []
        for op in inst.ops:
            reg = op.reg if isinstance(op, (R, Ind, Inc)) else op.base if isinstance(op, Mem) else None
            if reg is not None and reg in consts:
                t = fn.vreg()
                fn.no_spill.add(t)
                before.append(target.move(consts[reg], R(t)))
                _hint(hints, ("imm", consts[reg].value), t)
                op = R(t) if isinstance(op, R) else Mem(t, op.disp) if isinstance(op, Mem) else type(op)(t)
            new_ops.append(op)
        for x in before:
            x.depth, x.loc = inst.depth, inst.loc
        inst.ops = new_ops
        out.extend(before)
        out.append(inst)
    fn.insts = out


def _chain_end(insts: list[MInst], i: int, v: int, target: Target) -> int:
    """The end (exclusive) of the run of instructions from i that each write v, name it in one
    operand only and (after the first) also read it: a value built by a definition and
    read-modify-write steps (`mov a, v; swpb v; bis b, v`). Comments may sit inside; a label,
    a branch or a call ends it."""
    j = i
    first = True
    end = i
    while j < len(insts):
        inst = insts[j]
        if inst.mn == "comment":
            j += 1
            continue
        d = target.desc(inst)
        if inst.mn == "label" or d.branch or d.memory == "call":
            break
        at = [k for k, op in enumerate(inst.ops) if isinstance(op, R) and op.reg == v]
        named = any(isinstance(op, (Mem, Ind, Inc)) and (op.base if isinstance(op, Mem) else op.reg) == v
                    for op in inst.ops)
        if len(at) != 1 or named or at[0] not in d.writes or (not first and at[0] not in d.reads):
            break
        first = False
        j += 1
        end = j
    return end


def _split_chains(fn: MFunction, target: Target, slots: dict[int, int], hints: dict) -> None:
    """Where a spilled value is built by a run of read-modify-write steps, build it in a
    temporary and store it once, if the target's cost model says that is faster than every
    step reading and writing the slot (MSP430: `swpb 4(sp)` and `bis r15, 4(sp)` take 4 cycles
    each, against 1 in a register and 4 for the store). Preserves the program: the slot holds
    the same value after the run, and nothing reads it inside the run."""
    insts = fn.insts
    out: list[MInst] = []
    i = 0
    while i < len(insts):
        inst = insts[i]
        # a run starts at an instruction naming one spilled value only (a head that also reads
        # another slot, `mov 12(sp), v`, would hold a second temporary's register: measured
        # slower on Ascon-p and Spongent)
        spilled = {op.reg for op in inst.ops if isinstance(op, R) and op.reg in slots}
        v = spilled.pop() if len(spilled) == 1 and inst.mn != "label" else None
        end = _chain_end(insts, i, v, target) if v is not None else i
        steps = [x for x in insts[i:end] if x.mn != "comment"]
        if len(steps) < 2:
            out.append(inst)
            i += 1
            continue
        slot = _slot_operand(target, slots[v])
        t = fn.vreg()

        def renamed(x: MInst, to) -> MInst:
            return x.with_ops([to if isinstance(op, R) and op.reg == v else op for op in x.ops])

        head = steps[0]
        reload = any(isinstance(op, R) and op.reg == v and k in target.desc(head).reads
                     for k, op in enumerate(head.ops))
        load = target.move(slot, R(t))
        store = target.move(R(t), slot)
        in_mem = sum(target.cost(renamed(x, slot))[1] for x in steps)
        in_reg = (sum(target.cost(renamed(x, R(t)))[1] for x in steps) + target.cost(store)[1]
                  + (target.cost(load)[1] if reload else 0))
        if in_reg >= in_mem:
            out.append(inst)
            i += 1
            continue
        fn.no_spill.add(t)
        _hint(hints, ("slot", slots[v]), t)
        for x in (load, store):
            x.depth, x.loc = head.depth, head.loc
        if reload:
            out.append(load)
        out += [renamed(x, R(t)) if x.mn != "comment" else x for x in insts[i:end]]
        out.append(store)
        i = end
    fn.insts = out


def _rewrite_spills(fn: MFunction, target: Target, slots: dict[int, int], hints: dict) -> None:
    _split_chains(fn, target, slots, hints)
    out: list[MInst] = []
    for inst in fn.insts:
        if inst.mn in ("label", "comment"):
            out.append(inst)
            continue
        d = target.desc(inst)
        before, after = [], []
        new_ops = []
        for i, op in enumerate(inst.ops):
            if isinstance(op, R) and op.reg in slots:
                slot = _slot_operand(target, slots[op.reg])
                if i in d.reg_only:
                    t = fn.vreg()
                    fn.no_spill.add(t)
                    _hint(hints, ("slot", slots[op.reg]), t)
                    if i in d.reads:
                        before.append(target.move(slot, R(t)))
                    if i in d.writes:
                        after.append(target.move(R(t), slot))
                    new_ops.append(R(t))
                else:
                    new_ops.append(slot)
            elif isinstance(op, (Mem, Ind, Inc)) and (op.base if isinstance(op, Mem) else op.reg) in slots:
                base = op.base if isinstance(op, Mem) else op.reg
                slot = _slot_operand(target, slots[base])
                t = fn.vreg()
                fn.no_spill.add(t)
                _hint(hints, ("slot", slots[base]), t)
                before.append(target.move(slot, R(t)))
                if isinstance(op, Mem):
                    new_ops.append(Mem(t, op.disp))
                elif isinstance(op, Ind):
                    new_ops.append(Ind(t))
                else:
                    new_ops.append(Inc(t))
                    after.append(target.move(R(t), slot))
            else:
                new_ops.append(op)
        for x in before + after:
            x.depth, x.loc = inst.depth, inst.loc
        inst.ops = new_ops
        out.extend(before)
        out.append(inst)
        out.extend(after)
    fn.insts = out


def _slot_operand(target: Target, slot) -> object:
    """The memory operand of a spill slot: stack slot k, or an incoming argument's own word."""
    return target.spill_operand(slot) if isinstance(slot, int) else slot


class _Homes:
    """Where spilled groups may live besides a stack slot (`arg_home`, `word_home`), from one
    pass over the function (it does not change while one round assigns its spilled groups)."""

    def __init__(self, fn: MFunction, target: Target):
        mv = target.move_mn
        self.fn, self.target = fn, target
        self.occ: dict[int, list[int]] = defaultdict(list)     # register -> instructions naming it
        self.defs: list[set[int]] = []                          # registers each instruction writes
        self.defpos: dict[int, list[int]] = defaultdict(list)  # register -> instructions writing it
        self.barriers: list[int] = []                           # labels, branches, calls, addresses
        self.writes: list[tuple[int, int | None, int | None]] = []   # (index, base, disp) of memory writes
        self.arg_refs: dict = defaultdict(int)                  # argument word -> references
        self.arg_load: dict[int, tuple[int, Mem]] = {}          # register -> (index, the word) of its load
        for i, inst in enumerate(fn.insts):
            if inst.mn == "comment":
                self.defs.append(set())
                continue
            if inst.mn == "label":
                self.barriers.append(i)
                self.defs.append(set())
                continue
            d = target.desc(inst)
            if d.branch or d.memory in ("call", "address"):
                self.barriers.append(i)
            named = set()
            for k, op in enumerate(inst.ops):
                named.update(regs_in(op))
                if frame_kind(op) == "arg":
                    self.arg_refs[op] += 1
                if k in d.writes and isinstance(op, (Mem, Ind, Inc)) and frame_kind(op) != "slot":
                    self.writes.append((i, *(address(op) or (None, None))))   # no address: may be any word
            for r in named:
                self.occ[r].append(i)
            written = set(defs_uses(inst, target)[0])
            self.defs.append(written)
            for r in written:
                self.defpos[r].append(i)
            o = inst.ops
            if (inst.mn == mv and len(o) == 2 and isinstance(o[1], R) and frame_kind(o[0]) == "arg"
                    and o[0].disp.extra == 0 and o[1].reg not in self.arg_load):
                self.arg_load[o[1].reg] = (i, o[0])

    def arg_home(self, group: list[int], taken: set) -> Mem | None:
        """The incoming stack argument word a spilled group may live in: one a member is loaded
        from (`mov arg_k, v`, the first such load) when that load is the function's only
        reference to the word. The caller reads its outgoing argument words no more, so the
        callee may overwrite it; the load becomes `mov arg_k, arg_k` and is deleted."""
        loads = sorted(self.arg_load[m] for m in group if m in self.arg_load and self.arg_load[m][1] not in taken)
        if not loads:
            return None
        word = loads[0][1]
        return word if self.arg_refs[word] == 1 else None

    def word_home(self, group: list[int]) -> Mem | None:
        """The memory word a spilled group is rematerialised from: the group is one value,
        defined once by a load `mov M, v` (M a word through a pointer register), and from that
        load to its last use the code runs straight (no label, branch or call) and neither
        changes the pointer nor writes memory that may be M (any write but to a spill slot or
        through the same pointer a word apart). Each use then reads M itself (a memory operand,
        or a reload where a register is needed), the load goes and nothing is stored: what the
        code did before the load was hoisted, where a register was free."""
        members = set(group)
        sites = sorted(set().union(*(self.occ.get(m, ()) for m in group)))
        if not sites:
            return None
        defs = [i for i in sites if self.defs[i] & members]
        if len(defs) != 1 or defs[0] != sites[0]:
            return None
        load = self.fn.insts[defs[0]]
        if load.mn != self.target.move_mn or len(load.ops) != 2 or not isinstance(load.ops[1], R):
            return None
        a = address(load.ops[0])
        if a is None:
            return None
        base, disp = a
        lo, hi = defs[0] + 1, sites[-1] + 1                   # the instructions after the load
        if _any_in(self.barriers, lo, hi) or _any_in(self.defpos.get(base, []), lo, hi):
            return None
        k = bisect.bisect_left(self.writes, (lo,))
        while k < len(self.writes) and self.writes[k][0] < hi:
            _, b, d = self.writes[k]
            if b != base or d is None or abs(d - disp) < self.target.word_bytes:
                return None
            k += 1
        return Mem(base, disp)          # also where the load read @p: a home may be written too


def _any_in(positions: list[int], lo: int, hi: int) -> bool:
    """Whether the sorted `positions` hold one in [lo, hi)."""
    k = bisect.bisect_left(positions, lo)
    return k < len(positions) and positions[k] < hi


def _share_slots(spilled, moves, alias, adj) -> list[list[int]]:
    """Spilled nodes grouped to share a stack slot: the two ends of a copy that do not interfere
    (checked against every member of both groups) take one slot, so the copy, which would be a
    memory-to-memory move, disappears. Typical case: a loop-carried value spilled together with
    the value the loop body yields for it (OCB3's 128-bit offset and checksum: 6 cycles a word
    per iteration)."""
    spilled = list(spilled)
    group = {s: [s] for s in spilled}

    def rep(x):
        return alias.get(x, x)

    for a, b in moves:
        a, b = rep(a), rep(b)
        if a == b or a not in group or b not in group or group[a] is group[b]:
            continue
        ga, gb = group[a], group[b]
        if any(y in adj.get(x, ()) for x in ga for y in gb):
            continue
        ga.extend(gb)
        for x in gb:
            group[x] = ga
    out, seen = [], set()
    for s in spilled:
        if id(group[s]) not in seen:
            seen.add(id(group[s]))
            out.append(group[s])
    return out


# The second colouring (every non-interfering copy merged) is tried only in the first round and
# where the conservative one spills at most this many values: the case it is for, a loop whose
# carried values fill the registers exactly, spills one to three; functions that spill more
# gained nothing from it and paid a second colouring a round (the fast test tier took 17 s more).
AGGRESSIVE_MAX_SPILLS = 4


def allocate(fn: MFunction, target: Target, max_rounds: int = 30, writeback: bool = True) -> Allocation:
    """Allocate registers of `fn` in place: afterwards every operand names a physical register
    or a spill slot (`Frame("slot", k)`); self-copies are removed. `writeback`: use write-back
    homes where the target has them (step 6); a pointer they keep in a register can leave a
    later round without a colour for it (RegAllocError: the MIR pipeline then allocates the
    function without them, `interface._with_and_without_homes`)."""
    return _allocate(fn, target, max_rounds, writeback and target.writeback_homes)


def _allocate(fn: MFunction, target: Target, max_rounds: int, writeback: bool) -> Allocation:
    k = len(target.allocatable)
    slots: dict[int, int] = {}
    hints: dict = {}            # reload temporary or spilled value -> the value's temporaries
    homes: set = set()          # memory words spilled values live in (argument and write-back homes)
    n_slots = 0
    n_written = 0
    for rnd in range(1, max_rounds + 1):
        adj, moves, cost = _build(fn, target)
        trials = []
        for aggressive in (False, True):
            g = {r: set(n) for r, n in adj.items()}
            alias = _coalesce(g, moves, k, fn.no_spill, aggressive)
            partners: dict[int, list[int]] = defaultdict(list)
            for s, d in moves:
                a, b = alias.get(s, s), alias.get(d, d)
                if a != b and b not in g.get(a, ()):
                    partners[a].append(b)
                    partners[b].append(a)
            colour, spilled = _colour(g, cost, target, fn.no_spill, hints, partners)
            members = defaultdict(list)               # a merged node spills all it stands for
            for x, rep in alias.items():
                members[rep].append(x)
            spill_cost = sum(cost.get(y, 0.0) for x in spilled for y in [x] + members[x])
            trials.append((spill_cost, g, alias, colour, spilled))
            if not spilled or rnd > 1 or len(spilled) > AGGRESSIVE_MAX_SPILLS:
                break
        # the conservative coalescing unless merging every non-interfering copy spills less
        _, adj, alias, colour, spilled = min(trials, key=lambda t: t[0])
        _rename(fn, alias)
        if not spilled:
            _rename(fn, colour)
            fn.insts = [i for i in fn.insts if not ((c := copy_regs(i, target)) and c[0] == c[1])]
            used = {c for c in colour.values()}
            for inst in fn.insts:
                for r in defs_uses(inst, target)[0]:
                    if r in target.allocatable:
                        used.add(r)
            return Allocation(colour, n_slots, used, rnd, n_written)
        if any(s in fn.no_spill for s in spilled):
            raise RegAllocError(f"{fn.name}: out of registers for reload temporaries")
        if target.rematerialize:
            consts = _constants(fn, target)
            reload = target.cost(target.move(target.spill_operand(0), R(0)))[1]
            remat = {s: consts[s] for s in spilled
                     if s in consts and target.cost(target.move(consts[s], R(0)))[1] <= reload}
            if remat:
                _rematerialize(fn, target, remat, hints)
                spilled = [s for s in spilled if s not in remat]
        new = {}
        groups = _share_slots(spilled, moves, alias, adj)
        found, keep = writeback_homes.find(fn, target, groups, set(spilled), homes) if writeback else ({}, set())
        for p in sorted({p for p, _ in found.values()}):
            writeback_homes.normalize_pointer(fn, target, p)
            fn.no_spill.add(p)
        n_written += len(found)
        index = _Homes(fn, target) if target.arg_homes or target.word_homes else None
        for gi, group in enumerate(groups):
            if set(group) & keep:
                continue                # a pointer kept in a register for its homes: not spilled
            if gi in found:
                for s in group:
                    new[s] = Mem(*found[gi])
                continue
            home = index.arg_home(group, homes) if target.arg_homes else None
            if home is None and target.word_homes:
                home = index.word_home(group)
                if home is not None and home.base in spilled:
                    # its pointer goes to memory in this same round: the home's operands would
                    # name a register that no longer holds it (they are put in after the spilled
                    # registers' references were rewritten)
                    home = None
            if home is not None:
                homes.add(home)
                for s in group:
                    new[s] = home
                continue
            for s in group:
                new[s] = n_slots
            n_slots += 1
        slots.update(new)
        _rewrite_spills(fn, target, new, hints)
        mv = target.move_mn
        fn.insts = [i for i in fn.insts if not (i.mn == mv and len(i.ops) == 2 and isinstance(i.ops[1], Mem)
                                                and as_mem(i.ops[0]) == i.ops[1])]
    raise RegAllocError(f"{fn.name}: register allocation did not converge in {max_rounds} rounds")
