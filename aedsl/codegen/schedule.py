"""Pre-allocation scheduling of machine IR for register pressure (shared by every target).

MIR shape matched: a run of instructions between two fixed points of a function (labels,
branches, calls, pseudo-instructions such as accelerator ports, instructions that write a
physical register other than through a copy, stack-pointer changes). Selection emits a wide
value's limbs interleaved (limb 0 and limb 1 of `a ^ b`, then of `b & c`, ...), so in a bitsliced
round (a bitsliced S-box on five 64-bit words, ARX quarter-rounds) every limb of every word is
live at once, more than the target's registers, while each limb's own computation needs far
fewer. The run is re-ordered by bottom-up list scheduling (as register-reduction schedulers do):
from the end of the run, among the instructions all of whose dependants are placed, the one that
makes the fewest registers newly live goes (its operands not yet live, minus the definitions it
ends), ties to the one feeding the most recently placed instruction, then to the later one in
the original order. A run's new order is kept only if its peak number of live virtual registers
drops.

A second strategy ("lanes") matches a bitsliced region: consecutive instructions that each
compute one limb of a limb-parallel op (`MInst.lane`, set by selection for bitwise ops: a
bitsliced S-box on 64-bit words over 16-bit limbs). Where the run's peak exceeds the allocatable
registers, the region is ordered limb-major: all of limb 0's S-box, then limb 1's, so one
column's working set is live at a time and the other columns wait in memory (the hand-written
schedule of such rounds). The peak need not drop (the region's inputs and outputs are live
anyway); what drops is the number of values used many times while spilled.
A third strategy ("depth"), in runs whose peak exceeds the allocatable registers, orders a run
consumer by consumer: for each sink of the dependence graph (a group nothing in the run reads
after: a value the run leaves live, a store), in the original order or its reverse
("depth_rev"), everything it still waits on goes depth-first, then the sink; so each result is
finished as soon as its inputs are (an S-box output and its linear layer before the next S-box
output is begun) rather than every operation over every result at once. It keeps no peak in
check itself: it is a starting order for the pressure scheduler (STRATEGIES lists
"depth+pressure": the steps run one after the other), whose ties follow the order it starts
from.
`codegen.interface.run_mir_pipeline` allocates the function as selected and in each strategy's
order, and keeps the order whose allocated code the cost model finds cheapest.

Dependencies kept: every register read after its write, no write moved across a read or write of
the same register (physical registers included); memory accesses keep their order relative to
stores (loads may pass loads); a store a target describes only by its memory kind (ARM `str`)
keeps its order with every access of the same frame area (directly, or through a register that
may point into it: the call area a call's results are read from and the next call's arguments
written to) and with every access through a pointer to memory outside the frame where it goes
through such a pointer too (two buffers may be one: a decryption that authenticates the
plaintext it has just written reads `pt[i]` from the `dst` it stored `dst[i]` into); an
instruction that reads the condition flags stays glued to the instructions before it back to the
one that sets them (the group moves as one).

Preserves: the function's results and effects (a topological order of the dependencies above).
"""
from __future__ import annotations

from aedsl.ir.passes.common import is_size_mode

from .liveness import defs_uses
from .mir import Frame, Inc, Ind, Mem, MFunction, MInst, is_vreg
from .regalloc import copy_regs
from .target import Target

def _touches_memory(inst: MInst, target: Target) -> tuple[bool, bool]:
    """(reads memory, writes memory) of `inst` by its memory operands' positions (an ARM store
    lists its memory operand as read, the base register being an input: `_explicit_store`)."""
    d = target.desc(inst)
    reads = writes = False
    for i, op in enumerate(inst.ops):
        if isinstance(op, (Mem, Ind, Inc)):
            if i in d.writes:
                writes = True
            if i in d.reads or i not in d.writes:
                reads = True
    return reads, writes


def _explicit_store(inst: MInst, target: Target) -> bool:
    """A store its description names as one (`memory="store"`) without a written memory
    operand position (ARM `str`, `strh`, `strb`)."""
    return target.desc(inst).memory == "store" and not _touches_memory(inst, target)[1]


def _frame_pointers(insts: list[MInst], target: Target) -> dict[int, frozenset]:
    """Virtual registers that may hold an address inside this function's frame: vreg -> the
    frame areas (Frame kind:key) it may point into. Seeded by address instructions
    (`memory="address"`, e.g. ARM `add rd, sp, #frame`), followed through every instruction
    that reads such a register and writes another (copies, pointer arithmetic), to a fixpoint."""
    out: dict[int, set] = {}
    du = []
    for inst in insts:
        if inst.mn in ("label", "comment"):
            continue
        d = target.desc(inst)
        defs, uses = defs_uses(inst, target)
        if d.memory == "address":
            for op in inst.ops:
                if isinstance(op, Mem) and isinstance(op.disp, Frame):
                    for r in defs:
                        if is_vreg(r):
                            out.setdefault(r, set()).add(f"{op.disp.kind}:{op.disp.key}")
        if d.memory != "load":          # physical registers (call arguments) are not followed
            du.append(([r for r in defs if is_vreg(r)], [r for r in uses if is_vreg(r)]))
    changed = True
    while changed:
        changed = False
        for defs, uses in du:
            src = set().union(*(out.get(u, ()) for u in uses)) if uses else set()
            for r in defs:
                if src and not src <= out.get(r, set()):
                    out.setdefault(r, set()).update(src)
                    changed = True
    return {r: frozenset(v) for r, v in out.items()}


def _region(op, pointers: dict[int, frozenset]) -> tuple:
    """What memory operand `op` may address: ("frame", "kind:key", offset) for a frame address,
    ("into", areas) through a register that may point into those frame areas, ("ptr",) through
    any other register (memory outside this frame: buffers, tables, the caller's data)."""
    if isinstance(op, Mem) and isinstance(op.disp, Frame):
        return ("frame", f"{op.disp.kind}:{op.disp.key}", op.disp.extra)
    base = op.base if isinstance(op, Mem) else op.reg
    if base in pointers:
        return ("into", pointers[base])
    return ("ptr",)


def _fixed(inst: MInst, target: Target, defs: list[int]) -> bool:
    """Instructions nothing may cross: labels, branches and calls, pseudo-instructions, and
    instructions that define a physical register (argument/return registers, the stack pointer)
    other than plain copies into virtual registers."""
    if inst.mn in ("label", "comment"):
        return inst.mn == "label"
    d = target.desc(inst)
    if d.branch or d.pseudo:
        return True
    return any(not is_vreg(r) for r in defs)


def groups(insts: list[MInst], target: Target) -> list[list[int]]:
    """Indices of `insts` in movable groups: an instruction reading the flags is merged with
    every group back to the one holding the last instruction that set them (so nothing that
    sets the flags can come between). Comments join the next instruction's group."""
    groups: list[list[int]] = []
    pending: list[int] = []
    setter = -1                       # group index of the last flag-setting instruction
    copy_to = None                    # the register the previous instruction copied into
    for i, inst in enumerate(insts):
        if inst.mn == "comment":
            pending.append(i)
            continue
        d = target.desc(inst)
        glue = copy_to is not None and copy_to in defs_uses(inst, target)[1]
        copy = copy_regs(inst, target)
        copy_to = copy[1] if copy and is_vreg(copy[0]) and is_vreg(copy[1]) else None
        if glue and not d.flags_in:
            # a copy feeding a two-address instruction moves with it (the allocator merges them)
            groups[-1].extend(pending + [i])
        elif d.flags_in and setter >= 0:
            merged = [j for g in groups[setter:] for j in g] + pending + [i]
            del groups[setter:]
            groups.append(merged)
        else:
            groups.append(pending + [i])
        pending = []
        if d.flags_out:
            setter = len(groups) - 1
    if pending:
        groups.append(pending)
    return groups


def _peak(order: list[list[int]], du: dict[int, tuple[list[int], list[int]]], live_out: set[int]) -> int:
    last: dict[int, int] = {}
    defined: set[int] = set()
    for gi, g in enumerate(order):
        for i in g:
            for r in du[i][1]:
                if is_vreg(r):
                    last[r] = gi
            defined.update(r for r in du[i][0] if is_vreg(r))
    for r in live_out:
        last[r] = len(order)
    live = set(r for r in last if r not in defined)
    peak = len(live)
    for gi, g in enumerate(order):
        for i in g:
            for r in du[i][0]:
                if is_vreg(r) and r in last and last[r] > gi:
                    live.add(r)
        peak = max(peak, len(live))
        for i in g:
            for r in du[i][1]:
                if last.get(r) == gi:
                    live.discard(r)
    return peak


def _list_order(n: int, waits_on: list, releases: list, pick, placed=None) -> list[int]:
    """List scheduling: repeatedly take the group `pick(ready)` chooses among those with nothing
    left to wait on (`waits_on[g]`: the groups it waits for), `placed(g, position)` told, and
    release the groups that wait on it (`releases[g]`)."""
    left = [len(waits_on[g]) for g in range(n)]
    ready = [g for g in range(n) if left[g] == 0]
    order: list[int] = []
    while ready:
        g = pick(ready)
        ready.remove(g)
        if placed is not None:
            placed(g, len(order))
        order.append(g)
        for h in releases[g]:
            left[h] -= 1
            if left[h] == 0:
                ready.append(h)
    assert len(order) == n, "scheduling: dependency cycle"
    return order


def _bottom_up(n, preds, succs, gdefs, guses, live_out):
    """Bottom-up list scheduling: from the end of the run, place a group all of whose
    successors are placed, the one that makes the fewest registers newly live (its uses not yet
    live, minus its definitions that end a live range here); ties to the group feeding the most
    recently placed one, then the later group in the original order."""
    live = {r for r in live_out}
    placed_at: dict[int, int] = {}

    def score(g):
        uses = {r for r in guses[g] if is_vreg(r)}
        defs = {r for r in gdefs[g] if is_vreg(r)}
        new_live = len([r for r in uses if r not in live and r not in defs])
        ends = len([r for r in defs if r in live and r not in uses])
        feeds = max((placed_at.get(s, -1) for s in succs[g]), default=-1)
        return (new_live - ends, -feeds, -g)

    def placed(g, position):
        placed_at[g] = position
        defs = {r for r in gdefs[g] if is_vreg(r)}
        uses = {r for r in guses[g] if is_vreg(r)}
        live.difference_update(defs - uses)
        live.update(uses)

    order = _list_order(n, succs, preds, lambda ready: min(ready, key=score), placed)
    return list(reversed(order))


def dependencies(groups: list[list[int]], insts: list[MInst], target: Target, pointers=None):
    """(preds, defs, uses, du): for each group the groups it must follow, the registers it
    defines and reads, and each instruction's (defs, uses). `pointers`: the function's frame
    pointers (`_frame_pointers` of all its instructions; default: of `insts` alone)."""
    du = {i: defs_uses(insts[i], target) for g in groups for i in g}
    gdefs = [[r for i in g for r in du[i][0]] for g in groups]
    guses = [[r for i in g for r in du[i][1]] for g in groups]
    mem = [tuple(any(x) for x in zip(*(_touches_memory(insts[i], target) for i in g
                                       if insts[i].mn != "comment"))) or (False, False)
           for g in groups]
    n = len(groups)
    preds: list[set[int]] = [set() for _ in range(n)]
    last_def: dict[int, int] = {}
    readers: dict[int, list[int]] = {}
    last_store = -1
    loads_since: list[int] = []
    for g in range(n):
        for r in guses[g]:
            if r in last_def:
                preds[g].add(last_def[r])
        for r in gdefs[g]:
            if r in last_def:
                preds[g].add(last_def[r])
            preds[g].update(readers.get(r, ()))
        for r in guses[g]:
            readers.setdefault(r, []).append(g)
        for r in gdefs[g]:
            last_def[r] = g
            readers[r] = []
        rd, wr = mem[g] if mem[g] else (False, False)
        if rd or wr:
            if last_store >= 0:
                preds[g].add(last_store)
            if wr:
                preds[g].update(loads_since)
                last_store = g
                loads_since = []
            else:
                loads_since.append(g)
        preds[g].discard(g)
    _order_explicit_stores(groups, insts, target, preds, pointers)
    return preds, gdefs, guses, du


def _order_explicit_stores(groups, insts, target: Target, preds: list[set[int]], pointers=None) -> None:
    """Keep explicit stores (`_explicit_store`) in order with every earlier or later memory
    access that may alias them (`_alias_preds`); e.g. a call's result loaded from the frame's call
    area and the next call's argument stored to the same words. A pointer into the frame may be
    set outside the run (a byte path's scratch pointer, set in the block before), so `pointers`
    comes from the whole function."""
    if pointers is None:
        pointers = _frame_pointers(insts, target)
    regions = []
    for g in groups:
        rs = []
        for i in g:
            inst = insts[i]
            if inst.mn == "comment":
                continue
            store = _explicit_store(inst, target)
            d = target.desc(inst)
            mems = [op for op in inst.ops if isinstance(op, (Mem, Ind, Inc))]
            if store or (any(_touches_memory(inst, target)) and d.memory != "address"):
                rs += [(store, _region(op, pointers)) for op in mems]
            if not mems and d.memory in ("load", "store") and d.addr:
                # a register-offset access (ARM `ldrb rT, [rB, rI]`): the region of its base
                base = inst.ops[d.addr[0]].reg
                rs.append((d.memory == "store", ("into", pointers[base]) if base in pointers else ("ptr",)))
        regions.append(rs)
    _alias_preds(regions, preds)


def _alias_preds(regions: list[list[tuple[bool, tuple]]], preds: list[set[int]]) -> None:
    """Add to `preds[g]` every earlier group h with an access that may alias one of g's, at least
    one of the two a store (`regions[g]`: g's accesses as (store, `_region`)). Two regions may
    overlap when they are frame addresses of the same area within a word; a register pointing
    into frame areas and any access to those areas; two accesses through pointers to memory
    outside the frame (buffers the caller passed may be one). A pointer outside the frame never
    reaches into it. The earlier accesses are indexed by region, so each access meets only those
    it may alias (a fully unrolled cipher has thousands)."""
    ptr = ([], [])                                      # groups: [loads, stores] through pointers
    frame: dict[str, list[tuple[int, bool, int]]] = {}  # area -> (offset, store, group)
    into: list[tuple[frozenset, bool, int]] = []        # (areas, store, group)
    for g, rs in enumerate(regions):
        for store, r in rs:
            if r[0] == "ptr":
                preds[g].update(ptr[1])
                if store:
                    preds[g].update(ptr[0])
            elif r[0] == "frame":
                preds[g].update(h for off, s, h in frame.get(r[1], ())
                                if (store or s) and abs(off - r[2]) < 4)
                preds[g].update(h for areas, s, h in into if (store or s) and r[1] in areas)
            else:
                for area in r[1]:
                    preds[g].update(h for _, s, h in frame.get(area, ()) if store or s)
                preds[g].update(h for areas, s, h in into if (store or s) and areas & r[1])
        for store, r in rs:
            if r[0] == "ptr":
                ptr[store].append(g)
            elif r[0] == "frame":
                frame.setdefault(r[1], []).append((r[2], store, g))
            else:
                into.append((r[1], store, g))


def _lane_major(n, preds, succs, lanes: list) -> list[int]:
    """Limb-major order of bitsliced regions: a region is a stretch of consecutive groups (in
    the original order) that each compute one limb (`MInst.lane`); inside it, the groups go lane
    by lane (all of limb 0, then limb 1, ...), each lane in its original order, and everything
    else keeps its place. List scheduling on that priority, so a group that reads another lane's
    value (a dependence the tags do not show) still follows it."""
    key = []
    region = 0
    for g in range(n):
        if lanes[g] is None or g == 0 or lanes[g - 1] is None:
            region += 1
        key.append((region, lanes[g] or 0, g))
    return _list_order(n, preds, succs, lambda ready: min(ready, key=key.__getitem__))


def _depth_first(n: int, preds: list, succs: list, reverse: bool = False) -> list[int]:
    """Consumer-driven order: for each sink (a group with no successor), in the original order
    or reversed, its not yet placed predecessors depth-first (each group's predecessors in the
    original order), then the sink. A topological order of `preds`."""
    order: list[int] = []
    seen = [False] * n
    sinks = [g for g in range(n) if not succs[g]]
    if reverse:
        sinks.reverse()
    for root in sinks:
        seen[root] = True
        stack = [(root, iter(sorted(preds[root])))]
        while stack:
            g, waits = stack[-1]
            for p in waits:
                if not seen[p]:
                    seen[p] = True
                    stack.append((p, iter(sorted(preds[p]))))
                    break
            else:
                stack.pop()
                order.append(g)
    return order


def _group_lane(g: list[int], insts: list[MInst]):
    """The one lane every instruction of a group computes, else None."""
    lanes = {insts[i].lane for i in g if insts[i].mn != "comment"}
    return lanes.pop() if len(lanes) == 1 else None


def _schedule_run(groups: list[list[int]], insts: list[MInst], target: Target,
                  live_out: set[int], strategy: str, pointers) -> list[list[int]] | None:
    preds, gdefs, guses, du = dependencies(groups, insts, target, pointers)
    n = len(groups)
    succs: list[list[int]] = [[] for _ in range(n)]
    for g in range(n):
        for p in preds[g]:
            succs[p].append(g)
    before = _peak(groups, du, live_out)
    if strategy == "lanes":
        # a bitsliced region whose limbs do not all fit: compute it limb by limb (the working
        # set of one limb) rather than op by op over every limb
        lanes = [_group_lane(g, insts) for g in groups]
        if before <= len(target.allocatable) or len({x for x in lanes if x is not None}) < 2:
            return None
        order = _lane_major(n, preds, succs, lanes)
        if order == list(range(n)):
            return None
        return [groups[g] for g in order]
    if strategy in ("depth", "depth_rev"):
        # like "lanes", only where the run's values do not all fit in registers
        if before <= len(target.allocatable):
            return None
        order = _depth_first(n, preds, succs, reverse=strategy == "depth_rev")
        return None if order == list(range(n)) else [groups[g] for g in order]
    new = [groups[g] for g in _bottom_up(n, preds, succs, gdefs, guses, live_out)]
    if _peak(new, du, live_out) < before:
        return new
    return None


# What the MIR pipeline tries besides the selected order (`interface.run_mir_pipeline`), each a
# full allocation; "a+b": step a, then step b on its order. Plain "pressure" stays: where a run is
# re-ordered consumer by consumer, "depth+pressure" may end worse (NORX32-4-1 on stm32f030).
STRATEGIES = ("pressure", "lanes", "depth+pressure", "depth_rev+pressure")

# A function this long (a fully unrolled cipher) tries only the strategies that ever won there:
# over the 2 094 schedule points of the variants the test suite compiles, the limb-major and the
# consumer-by-consumer ("depth") orders never won at LONG instructions or more (22 functions: the
# selected order, "pressure" or "depth_rev" won), and each of them costs one to two baseline
# allocations there (AES-256 S-box-only fully unrolled on cc430f6137: 5.5 of 12 s).
LONG = 3000
LONG_STRATEGIES = ("pressure", "depth_rev+pressure")


def strategies(mf: MFunction) -> tuple[str, ...]:
    """The strategies the MIR pipeline tries on `mf` (STRATEGIES; LONG_STRATEGIES for a long one)."""
    return LONG_STRATEGIES if len(mf.insts) >= LONG else STRATEGIES


def schedule(mf: MFunction, target: Target, strategy: str = "pressure") -> bool:
    """Re-order every run between fixed points (in place) by `strategy`: "pressure" = bottom-up
    list scheduling for fewer live virtual registers, kept where the run's peak drops; "lanes" =
    bitsliced regions limb-major (`_lane_major`), in runs whose peak exceeds the allocatable
    registers; "depth" / "depth_rev" = consumer by consumer (`_depth_first`), in such runs too.
    True if any run changed."""
    from .liveness import Cfg, block_liveness, live_after as block_live_after
    insts = mf.insts
    cfg = Cfg(insts, target)
    du_all = [defs_uses(i, target) for i in insts]
    live_out_blocks = block_liveness(cfg, du_all, is_vreg)
    pointers = _frame_pointers(insts, target)

    def reads_flags(k: int) -> bool:
        return insts[k].mn not in ("label", "comment") and target.desc(insts[k]).flags_in

    def sets_flags(k: int) -> bool:
        return insts[k].mn not in ("label", "comment") and target.desc(insts[k]).flags_out

    out: list[MInst] = []
    changed = False
    for bi, (a, b) in enumerate(cfg.blocks):
        live_after = block_live_after(du_all, a, b, live_out_blocks[bi], is_vreg)
        # split the block into runs of movable instructions and fixed instructions
        segments: list[tuple[bool, list[int]]] = []
        run: list[int] = []
        flags_from_run = False          # the run has set the flags since it began
        for k in range(a, b):
            fixed = _fixed(insts[k], target, du_all[k][0]) or (reads_flags(k) and not flags_from_run)
            if fixed:
                tail: list[int] = []
                if reads_flags(k) and run:
                    # the flags it reads come from the run's last setter: from there on, keep;
                    # a setter that reads the flags itself (subc, rrc: a carry chain) takes the
                    # setter before it along
                    while run:
                        j = run.pop()
                        tail.insert(0, j)
                        if sets_flags(j) and not reads_flags(j):
                            break
                if run:
                    segments.append((True, run))
                segments.append((False, tail + [k]))
                run, flags_from_run = [], False
            else:
                run.append(k)
                flags_from_run = flags_from_run or sets_flags(k)
        if run:
            segments.append((True, run))
        for movable, idx in segments:
            if movable and len(idx) >= 4:
                local = [insts[i] for i in idx]
                new = _schedule_run(groups(local, target), local, target, live_after[idx[-1]], strategy,
                                     pointers)
                if new is not None:
                    out.extend(local[i] for g in new for i in g)
                    changed = True
                    continue
            out.extend(insts[i] for i in idx)
    mf.insts = out
    return changed


def static_cost(mf: MFunction, target: Target) -> int:
    """Cycles of the allocated code as the cost model sees it, each instruction weighted by
    8^(loop depth): how a schedule is judged (by the code allocation made of it)."""
    total = 0
    for inst in mf.insts:
        if inst.mn in ("label", "comment"):
            continue
        total += target.cost(inst)[1] * 8 ** inst.depth
    return total


def static_size(mf: MFunction, target: Target) -> int:
    """Bytes of the allocated code by the cost model's instruction sizes: how a schedule is
    judged in size mode (`opt=size`), cycles (`static_cost`) breaking ties."""
    return sum(target.cost(inst)[0] for inst in mf.insts if inst.mn not in ("label", "comment"))


def judge(mf: MFunction, target: Target, knobs: dict) -> tuple[int, ...]:
    """What the MIR pipeline minimises between the selected and the re-ordered function: the
    static cycles, or in size mode (`opt=size`) the bytes, then the cycles."""
    if is_size_mode(knobs):
        return static_size(mf, target), static_cost(mf, target)
    return (static_cost(mf, target),)
