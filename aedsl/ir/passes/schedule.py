"""Order the pure ops of every block so that fewer values are live at once (register pressure).

IR shape matched: any block (a function body, a loop body, an `if` arm). Word legalization
leaves wide computations limb-interleaved (limb 0 and limb 1 of `a ^ b`, then of `b & c`, ...):
in a bitsliced round (an S-box layer on five 64-bit words, a quarter-round on sixteen words) every
limb of every word is then live at once, which is more than the target's registers, while the
computation of each result needs far fewer. This pass re-emits a block by top-down list
scheduling: the ops that must keep their place (effects, loads from writable memories, loops and
conditionals) go in their original relative order, each as soon as its operands are there; among
the ready pure ops, the one that adds the fewest live values goes first (results minus operands
read for the last time), ties to the one drawing on the fewest block inputs the work so far has
not touched (one limb's chain is finished before the next starts), then to the one reading the
most recently defined value, then to the original order. Constants and slices occupy no register
of their own and are placed just before their first consumer. The new order is kept only if the
block's peak number of live values (from definition to last use in the block) is lower than the
original's; otherwise the block is left as it was. Knob `op_order=source` leaves every block as
written.

Preserves: the results and memory effects of every function (only pure ops move, and each still
comes after the definitions of its operands; ops with effects and reads keep their order).
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Function, Memory, Module, Op, Value
from .common import is_pure

NAME = "schedule"
KNOBS = (Knob("op_order", "pass", ("pressure", "source"), "pressure",
              doc="order of pure ops in a block: pressure (fewest live values) or source (as written)"),)


def acts(knobs: dict) -> bool:
    return knobs.get("op_order", "pressure") != "source"


def _counts(v) -> bool:
    """A value that occupies a register while live."""
    return isinstance(v, Value) and v.width > 0


def _reads(ops: list[Op], yields: list, consts: set[int]):
    """For every op, the register values it reads, looking through transparent ops (a slice's
    use is a use of its source; constants are immediates), and the same for the yields."""
    producer = {id(r): op for op in ops for r in op.results}

    def eff(v, out: list) -> None:
        p = producer.get(id(v))
        if p is not None and _transparent(p):
            for a in p.args:
                eff(a, out)
        elif _counts(v) and id(v) not in consts and not any(x is v for x in out):
            out.append(v)

    reads = {}
    for op in ops:
        out: list = []
        for a in list(op.args) + [v for r in op.regions for v in _free_uses(r)]:
            eff(a, out)
        reads[id(op)] = out
    ys: list = []
    for y in yields:
        eff(y, ys)
    return producer, reads, ys


def peak_live(ops: list[Op], yields: list, consts: set[int]) -> int:
    """The largest number of register values live at once in `ops` (a value is live from its
    definition, or the block's start, to its last use in the block, yields counted last;
    constants and slices occupy none, a slice's use keeps its source live)."""
    producer, reads, ys = _reads(ops, yields, consts)
    last: dict[int, int] = {}
    for i, op in enumerate(ops):
        if not _transparent(op):
            for a in reads[id(op)]:
                last[id(a)] = i
    for y in ys:
        last[id(y)] = len(ops)
    live = sum(1 for k in last if k not in producer)     # live on entry
    peak = live
    for i, op in enumerate(ops):
        if _transparent(op):
            continue
        live += sum(1 for r in op.results if id(r) in last)
        peak = max(peak, live)
        live -= sum(1 for a in reads[id(op)] if last.get(id(a)) == i)
    return peak


def _free_uses(block: Block):
    """Values a region reads that it does not define (its free variables)."""
    defined = {id(p) for p in block.params}
    seen: set[int] = set()
    out = []

    def visit(b: Block):
        for p in b.params:
            defined.add(id(p))
        for op in b.ops:
            for a in op.args:
                if _counts(a) and id(a) not in defined and id(a) not in seen:
                    seen.add(id(a))
                    out.append(a)
            for r in op.regions:
                visit(r)
            for r in op.results:
                defined.add(id(r))
        for y in b.yields:
            if _counts(y) and id(y) not in defined and id(y) not in seen:
                seen.add(id(y))
                out.append(y)

    visit(block)
    return out


def _movable(op: Op) -> bool:
    return is_pure(op) and not op.regions


# Ops that occupy no register of their own: a constant is an immediate, and a slice is a field of
# its source that the selector reads where it is used (a rotation is concat(slice, slice)). They
# are placed just before their first consumer, and a use of one is a use of its source.
_TRANSPARENT = ("const", "slice")


def _transparent(op: Op | None) -> bool:
    return op is not None and op.opcode in _TRANSPARENT


def _greedy_order(block: Block, consts: set[int]) -> list[Op]:
    """Top-down list scheduling: among the ops whose operands are all available (pinned ops only
    in their original order), take the one that adds the fewest live values (results minus
    operands it reads for the last time); ties go to the op drawing on the fewest block inputs the
    last op's work did not (its support), then to the op reading the most recently defined value
    (one chain of work is finished before another starts), then to the original order.
    Transparent ops are placed just before their first consumer."""
    ops = block.ops
    index = {id(op): i for i, op in enumerate(ops)}
    producer, reads, ys = _reads(ops, block.yields, consts)
    remaining: dict[int, int] = {}
    for op in ops:
        if not _transparent(op):
            for a in reads[id(op)]:
                remaining[id(a)] = remaining.get(id(a), 0) + 1
    for y in ys:
        remaining[id(y)] = remaining.get(id(y), 0) + 1
    waiting: dict[int, int] = {}        # op -> producers in this block not yet placed
    users: dict[int, list[Op]] = {}
    for op in ops:
        if _transparent(op):
            continue
        deps = {id(producer[id(a)]) for a in reads[id(op)] if id(a) in producer}
        waiting[id(op)] = len(deps)
        for d in deps:
            users.setdefault(d, []).append(op)
    pinned = [op for op in ops if not _movable(op)]
    next_pin = 0
    ready = [op for op in ops if _movable(op) and not _transparent(op) and waiting[id(op)] == 0]
    born: dict[int, int] = {}
    placed: set[int] = set()
    out: list[Op] = []
    # support: the set of block inputs (values from outside and pinned results) an op depends on
    support: dict[int, int] = {}
    bit: dict[int, int] = {}
    for op in ops:
        if _transparent(op):
            continue
        m = 0
        for a in reads[id(op)]:
            p = producer.get(id(a))
            if p is None or not _movable(p):
                m |= bit.setdefault(id(a), 1 << len(bit))
            else:
                m |= support.get(id(p), 0)
        support[id(op)] = m
    last_support = [0]

    def score(op: Op):
        kills = sum(1 for a in reads[id(op)] if remaining[id(a)] == 1)
        adds = sum(1 for r in op.results if remaining.get(id(r)))
        recent = max((born.get(id(a), -1) for a in reads[id(op)]), default=-1)
        outside = bin(support[id(op)] & ~last_support[0]).count("1")
        return (adds - kills, outside, -recent, index[id(op)])

    def put_transparent(op: Op) -> None:
        for a in list(op.args) + [v for r in op.regions for v in _free_uses(r)]:
            p = producer.get(id(a))
            if p is not None and _transparent(p) and id(p) not in placed:
                put_transparent(p)
                placed.add(id(p))
                out.append(p)

    def emit(op: Op) -> None:
        put_transparent(op)
        placed.add(id(op))
        out.append(op)
        for r in op.results:
            born[id(r)] = len(out)
        if id(op) in support:
            last_support[0] = support[id(op)]
        for a in reads[id(op)]:
            remaining[id(a)] -= 1
        for u in users.get(id(op), ()):
            waiting[id(u)] -= 1
            if waiting[id(u)] == 0 and _movable(u):
                ready.append(u)

    n_real = sum(1 for op in ops if not _transparent(op))
    done = 0
    while done < n_real:
        pin = pinned[next_pin] if next_pin < len(pinned) else None
        if pin is not None and waiting[id(pin)] == 0:
            # a pinned op goes as soon as it can: it holds back every op after it
            next_pin += 1
            emit(pin)
        else:
            best = min(ready, key=score)
            ready.remove(best)
            emit(best)
        done += 1
    for op in ops:                  # transparent ops nothing in the block reads (yielded slices)
        if id(op) not in placed:
            placed.add(id(op))
            out.append(op)
    return out


def _schedule_block(block: Block, consts: set[int]) -> None:
    for op in block.ops:
        for r in op.regions:
            _schedule_block(r, consts)
    if len(block.ops) < 3:
        return
    new = _greedy_order(block, consts)
    if peak_live(new, block.yields, consts) < peak_live(block.ops, block.yields, consts):
        block.ops = new


def _consts(fn: Function) -> set[int]:
    from ..nodes import walk_ops
    return {id(r) for op in walk_ops(fn.body) if op.opcode == "const" for r in op.results}


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    run_in_place(module, knobs)
    return module


def run_in_place(module: Module, knobs: dict | None = None) -> None:
    if not acts(knobs or {}):
        return
    for fn in module.functions:
        _schedule_block(fn.body, _consts(fn))
