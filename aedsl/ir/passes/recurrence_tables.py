"""Values a rolled loop computes from its round alone become tables indexed by the loop index.

The IR shape (general, not tied to a scheme): a `for` loop with constant bounds, kept rolled.
A value of its body is *known* when it takes the same value at iteration t on every input:
the index, constants, pure ops and table lookups of known values, and a *closed recurrence*: a
carried value c whose initial value is a constant and whose next value is known
(a round-constant LFSR: `c = (c << 1) | (c >> 6 ^ c >> 5) & 1`). Two kinds are tabulated:

1. the values computed from a closed recurrence (`c as u160 ^ reverse(c) << 152`, Spongent's
   lCounter and its reversal): the recurrence leaves the loop (its values after the loop are
   constants) with every op that computed it;
2. (knob value `auto`) the values computed from a table lookup at a known index (a round
   constant rc[i] split into nibbles placed in a row: `(rc[i] & 0xf) << 24`,
   `(rc[i] >> 4) << 24`), so the lookup and the splitting leave the loop.

The known values of these kinds that the rest of the body reads (the *exports*) are read from
one table of records, entry n*(i - lo) + k holding field k in round i, computed here by running
the loop's known ops. This is the hand-written code's table of round constants, stored as the
round uses them, in place of the on-chip LFSR and the nibble cutting.

Fields whose stored values never share a bit (Spongent's lCounter in a word's low byte, its
reversal in the high byte) share one entry, their OR (`_pack`; knob `record_packing`): a read
masks its field out (`and` with an aligned byte or half-word: MSP430 `mov.b`, Thumb `uxtb`), the
last field of an entry is the entry XOR the others, and the table is that much shorter. A target
picks the default (`Backend.pass_knobs`): on for ARMv6-M, where one LDR and a UXTB cost what two
LDRs did (Spongent-π[160] on stm32f030: 37 989 -> 37 909 cycles, 1 550 -> 1 390 B); off for
MSP430, where each field was a memory operand of its XOR and the unpacking needs two registers
more (msp430f1611: 38 354 -> 39 239 cycles, 1 570 -> 1 430 B, a spill a round). Knob value
`bytes` packs nothing but folds fields at byte granularity: a field that is one byte of a word
(the reversal in the top word's high byte) is a byte entry, loaded and shifted back (MSP430
`mov.b`, `swpb`): Spongent-π[160] on msp430f1611 38 594 cycles, 1 416 B.

An export wider than `PIECE_BITS` is taken as fields of that many bits (rebuilt by a concat);
a field (or a narrower export) that takes one value in every round is that constant, so only the
varying words of a wide value reach the table (SKINNY's constant rows `c0 << 56 | c1 << 24` are
two words). Each field is stored shifted right by the whole 16-bit words of low zero bits its
values all share, every entry of the table as wide as the widest field needs (8, 16, 32 or 64
bits: one scaled index addresses them all); a read is a load, widened (or narrowed) and shifted
back (`c << 24` of a u32 is stored as `c << 8`: on a 16-bit target that word is xored from the
table into the row's top word, `xor T(i), r`). Each export is read where the body first uses it.

The rewrite is taken when the loop loses more ops than it gains (each varying field costs a
load, plus its widening and shift), for at most `MAX_TRIPS` trips and entries of at most
`MAX_ENTRY_BITS`.
Knob `recurrence_tables`: `auto` (default), `recurrences` (kind 1 only: a target where a table
read costs as much as the few ops it replaces), `none`; off with `opt=size` (tables are ROM).

Preserves: every function's results and memory effects (a replaced value equals its table
entry at every iteration; a removed carried value's results after the loop are its constants).
Assumes: tables' contents are fixed (the IR's rule), so a table load is a pure function.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Function, Memory, Module, Op, Value
from ..ops import OPS
from .common import Names, Subst, const_defs, evaluate, is_size_mode, substitute

NAME = "recurrence_tables"
MODES = ("auto", "recurrences", "none")
KNOBS = (Knob("recurrence_tables", "pass", MODES, "auto",
              doc="tables, indexed by the loop index, for the values a rolled loop computes from a "
                  "closed recurrence (a round-constant LFSR) or from a table (auto), from a "
                  "recurrence only (recurrences), or none; off with opt=size"),
         Knob("record_packing", "pass", ("on", "bytes", "off"), "off",
              doc="fields of a recurrence table's record whose values never share a bit share one "
                  "entry (on: half the table for a mask and an XOR a read), or each its own entry, "
                  "as narrow as its bytes allow (bytes: a field that is one byte of a word is a "
                  "byte entry), or as wide as its 16-bit words (off); the target picks the default"))

MAX_TRIPS = 256
MAX_ENTRY_BITS = 64
PIECE_BITS = 32
PREFIX = "rt"


def acts(knobs: dict) -> bool:
    """Whether the pass may change anything (the pipeline cleans up after it only then)."""
    return str((knobs or {}).get("recurrence_tables", "auto")) != "none" and not is_size_mode(knobs)


def _computable(op: Op) -> bool:
    """A pure op without regions that evaluate() or a table lookup computes."""
    if op.regions or not op.results:
        return False
    if op.opcode == "load":
        return isinstance(op.args[0], Memory) and op.args[0].kind == "table"
    spec = OPS.get(op.opcode)
    return spec is not None and spec.pure


def _known_ops(loop: Op, consts: dict[int, int], tables: bool) -> tuple[list[Value], list[Op], set[int]]:
    """The loop's closed carried values, the body's top-level ops computed from them, the
    index and constants (largest such set: carried values whose next value is not known are
    dropped until none is), and the ids of the ops among them that read a closed value or a
    table (directly or through other such ops)."""
    body = loop.regions[0]
    carried = [p for p, a in zip(body.params[1:], loop.args[2:]) if id(a) in consts]
    while True:
        known = {id(body.params[0])} | {id(p) for p in carried} | set(consts)
        ops = []
        for op in body.ops:
            if _computable(op) and all(isinstance(a, Memory) or id(a) in known for a in op.args):
                ops.append(op)
                known.update(id(r) for r in op.results)
        yields = {id(p): body.yields[i] for i, p in enumerate(body.params[1:])}
        closed = [p for p in carried if id(yields[id(p)]) in known]
        if len(closed) == len(carried):
            dependent = {id(p) for p in carried}
            inner = set()
            for op in ops:
                if (tables and op.opcode == "load") or any(id(a) in dependent for a in op.args):
                    dependent.update(id(r) for r in op.results)
                    inner.add(id(op))
            return carried, ops, inner
        carried = closed


def _reads_outside(body: Block, inner: set[int], carried: list[Value]) -> set[int]:
    """Ids of the values read by the loop body's ops not in `inner` (their regions included)
    and by the yields of its carried values other than `carried`."""
    out: set[int] = set()

    def visit(b: Block, top: bool) -> None:
        for op in b.ops:
            if not (top and id(op) in inner):
                out.update(id(a) for a in op.args)
            for r in op.regions:
                visit(r, False)
        if not top:
            out.update(id(y) for y in b.yields)

    visit(body, True)
    out.update(id(y) for p, y in zip(body.params[1:], body.yields) if not any(p is c for c in carried))
    return out


def _fold(values: list[int], unit: int = 16) -> tuple[int, int]:
    """(shift, element width): the values' common low zero bits rounded down to a multiple of
    `unit`, and the narrowest of 8/16/32/64 bits holding the values shifted right by that. A
    shift by whole 16-bit words is a choice of word (free on a 16-bit target, where the loaded
    word is then a memory operand of the op that reads it; one shift on a 32-bit one); by whole
    bytes (`unit` 8, knob `record_packing=bytes`), a byte entry for a field that is one byte
    of a word (a `swpb` on MSP430 after the byte load)."""
    ored = _bits(values)
    shift = ((ored & -ored).bit_length() - 1 if ored else 0) & ~(unit - 1)
    top = (ored >> shift).bit_length()
    return shift, next((w for w in (8, 16, 32, 64) if top <= w), top)


def _bits(values: list[int]) -> int:
    """The bits the values take (their OR)."""
    ored = 0
    for v in values:
        ored |= v
    return ored


def _pack(masks: list[int], width: int) -> list[list[int]]:
    """Groups of fields (indices) whose stored values never share a bit (`masks`: the bits each
    field's values take), first fit in order: the fields of a group share one table entry
    (their OR; Spongent's lCounter in the low byte of a word and its reversal in the high byte:
    one word a round, not two)."""
    groups: list[tuple[list[int], int]] = []
    for k, bits in enumerate(masks):
        for gi, (members, used) in enumerate(groups):
            if not used & bits and (used | bits) < 1 << width:
                groups[gi] = (members + [k], used | bits)
                break
        else:
            groups.append(([k], bits))
    return [members for members, _ in groups]


def _unpack_mask(masks: list[int], j: int, width: int) -> int:
    """The AND mask taking field j out of an entry packing fields with bits `masks`: the first
    aligned byte, half-word or word holding its bits that no other field touches (a
    zero-extension on the targets: MSP430 `mov.b`, Thumb `uxtb`), else its own bits."""
    others = 0
    for i, m in enumerate(masks):
        if i != j:
            others |= m
    for size in (8, 16, 32):
        for base in range(0, width, size):
            cand = ((1 << size) - 1) << base
            if masks[j] & ~cand == 0 and not cand & others:
                return cand
    return masks[j]


class _Tabulator:
    def __init__(self, module: Module, fn: Function, registry: dict, tables: bool, pack: str = "off"):
        self.module = module
        self.names = Names(fn)
        self.consts = const_defs(fn)
        self.subst = Subst()
        self.registry = registry
        self.tables = tables
        self.pack = pack

    def block(self, block: Block) -> None:
        out: list[Op] = []
        for op in block.ops:
            for r in op.regions:
                self.block(r)
            if op.opcode == "for" and op.attrs.get("unroll", 1) != 0:
                self.loop(op, out)
            out.append(op)
        block.ops = out

    def loop(self, loop: Op, before: list[Op]) -> None:
        lo, hi = loop.args[:2]
        if id(lo) not in self.consts or id(hi) not in self.consts:
            return
        lo_c, hi_c = self.consts[id(lo)], self.consts[id(hi)]
        trips = hi_c - lo_c
        if not 0 < trips <= MAX_TRIPS:
            return
        carried, ops, inner = _known_ops(loop, self.consts, self.tables)
        if not inner:
            return
        body = loop.regions[0]
        index = body.params[0]
        # the closed values' own yields go with them
        read = _reads_outside(body, inner, carried)
        exports = [v for v in [*carried, *(r for op in ops if id(op) in inner for r in op.results)]
                   if id(v) in read]
        trace = self.run(loop, carried, ops, lo_c, trips)
        if trace is None:
            return
        values, finals = trace
        # each export as fields of at most PIECE_BITS: a wide value's words that do not change
        # are constants, the others table entries (field: export, its lowest bit, width, values)
        fields_of: dict[int, list[tuple[int, list[int]]]] = {}      # export -> (width, values), low first
        for v in exports:
            step = PIECE_BITS if v.width > PIECE_BITS else v.width
            fields_of[id(v)] = fs = []
            for lo in range(0, v.width, step):
                w = min(step, v.width - lo)
                fs.append((w, [(x >> lo) & ((1 << w) - 1) for x in values[id(v)]]))
        varying = [f for fs in fields_of.values() for f in fs if len(set(f[1])) > 1]
        folds = [_fold(f[1], 8 if self.pack == "bytes" else 16) for f in varying]
        # one element width for the loop's table: one scaled index serves every field
        width = max((w for _, w in folds), default=8)
        if width > MAX_ENTRY_BITS:
            return                      # an entry of more than two 32-bit words: no table
        stored = [[x >> shift for x in f[1]] for f, (shift, _) in zip(varying, folds)]   # by field, by round
        masks = [_bits(vals) for vals in stored]
        groups = _pack(masks, width) if self.pack == "on" else [[k] for k in range(len(varying))]
        added = sum(1 + (width < f[0]) + (shift > 0) for f, (shift, _) in zip(varying, folds)) \
            + sum(len(g) - 1 for g in groups)   # a packed field: a mask instead of a load, and one op
        removed = len(inner)
        if added >= removed:
            return
        index_ops, at = self.index(index, lo_c)
        # one table of records: entry n*t + g is the fields of group g, OR-ed, in round t (none
        # when every field is a constant: a loop of one trip)
        n = len(groups)
        if varying:
            table = self.table([sum(stored[k][t] for k in g) for t in range(trips) for g in groups],
                               width)
        group_of = {k: gi for gi, g in enumerate(groups) for k in g}
        slot_of = {id(f): k for k, f in enumerate(varying)}
        reads: dict[int, list[Op]] = {}         # export -> the ops that read it
        for v in exports:
            ops_v, parts = [], []
            for f in fields_of[id(v)]:
                w, vals = f
                if id(f) not in slot_of:        # the same value every round
                    x = self.names.value(v.name, w)
                    ops_v.append(Op("const", [x], [], {"value": vals[0]}))
                else:
                    k = slot_of[id(f)]
                    g = groups[group_of[k]]
                    ops_k, slot = self.slot(at, n, group_of[k])
                    ops_r, x = self.read(table, slot, v.name, w, folds[k][0], g.index(k), [masks[j] for j in g])
                    ops_v += ops_k + ops_r
                parts.append(x)
            if len(parts) == 1:
                new = parts[0]
            else:
                new = self.names.value(v.name, v.width)
                ops_v.append(Op("concat", [new], parts[::-1]))      # most significant first
            reads[id(v)] = ops_v
            self.subst.bind(v, new)
        # each export is read where the body first uses it, the index computed before the first
        out: list[Op] = []
        for op in body.ops:
            if id(op) in inner:
                continue
            for a in op.args:
                if id(a) in reads:
                    out += index_ops + reads.pop(id(a))
                    index_ops = []
            out.append(op)
        body.ops = out + index_ops + [x for v in exports for x in reads.get(id(v), [])]
        self.drop(loop, carried, finals, before)
        substitute(body, self.subst)

    def run(self, loop: Op, carried: list[Value], ops: list[Op], lo: int,
            trips: int) -> tuple[dict[int, list[int]], list[int]] | None:
        """Every known value at every iteration (id -> values by trip) and the carried values
        after the loop; None if a table lookup falls outside its table."""
        body = loop.regions[0]
        env = dict(self.consts)
        state = {id(p): self.consts[id(a)] for p, a in zip(body.params[1:], loop.args[2:]) if p in carried}
        yields = {id(p): body.yields[i] for i, p in enumerate(body.params[1:])}
        values: dict[int, list[int]] = {id(p): [] for p in carried}
        for op in ops:
            for r in op.results:
                values[id(r)] = []
        for t in range(trips):
            env[id(body.params[0])] = (lo + t) & ((1 << body.params[0].width) - 1)
            env.update(state)
            for p in carried:
                values[id(p)].append(state[id(p)])
            for op in ops:
                if op.opcode == "load":
                    mem, i = op.args[0], env[id(op.args[1])]
                    if i >= len(mem.data):
                        return None
                    out = [mem.data[i]]
                else:
                    out = evaluate(op, [env[id(a)] for a in op.args])
                for r, x in zip(op.results, out, strict=True):
                    env[id(r)] = x
                    values[id(r)].append(x)
            state = {id(p): env[id(yields[id(p)])] for p in carried}
        return values, [state[id(p)] for p in carried]

    def index(self, index: Value, lo: int) -> tuple[list[Op], Value]:
        """Ops computing the table index i - lo, and that index."""
        if lo == 0:
            return [], index
        c = self.names.value("lo", index.width)
        at = self.names.value("at", index.width)
        return [Op("const", [c], [], {"value": lo}), Op("sub", [at], [index, c])], at

    def slot(self, at: Value, n: int, k: int) -> tuple[list[Op], Value]:
        """Ops computing the record slot n * at + k, and that value."""
        if n == 1:
            return [], at
        cn, row = self.names.value("n", at.width), self.names.value("row", at.width)
        ops = [Op("const", [cn], [], {"value": n}), Op("mul", [row], [at, cn])]
        if k == 0:
            return ops, row
        ck, slot = self.names.value("k", at.width), self.names.value("slot", at.width)
        return ops + [Op("const", [ck], [], {"value": k}), Op("add", [slot], [row, ck])], slot

    def table(self, data: list[int], width: int) -> Memory:
        key = (width, tuple(data))
        if key not in self.registry:
            t = Memory(f"{PREFIX}{len(self.registry)}", width, len(data), "table", tuple(data))
            self.registry[key] = t
            self.module.tables.append(t)
        return self.registry[key]

    def read(self, table: Memory, at: Value, name: str, width: int, shift: int, place: int = 0,
             masks: list[int] | None = None) -> tuple[list[Op], Value]:
        """Ops reading a `width`-bit field from its table: load, unpack, widen (or narrow: an
        entry wider than the field holds its value), shift back. An entry packing several fields
        (`masks`: the bits each takes; this field is number `place`) is unpacked with a mask
        (`_unpack_mask`: a byte or a half-word where the others leave it, `mov.b`/`uxtb`), the
        last field as the entry XOR the others (identical loads and masks are one after CSE)."""
        ops = []
        x = self.names.value(name, table.elem_width)
        ops.append(Op("load", [x], [table, at]))
        if masks is not None and len(masks) > 1:
            e, ew = x, table.elem_width

            def masked(j: int) -> Value:
                m, y = self.names.value("m", ew), self.names.value(name, ew)
                ops.extend([Op("const", [m], [], {"value": _unpack_mask(masks, j, ew)}), Op("and", [y], [e, m])])
                return y

            if place < len(masks) - 1:
                x = masked(place)
            else:
                acc = masked(0)
                for j in range(1, len(masks) - 1):
                    y = self.names.value(name, ew)
                    ops.append(Op("or", [y], [acc, masked(j)]))
                    acc = y
                x = self.names.value(name, ew)
                ops.append(Op("xor", [x], [e, acc]))
        if table.elem_width != width:
            y = self.names.value(name, width)
            ops.append(Op("zext" if table.elem_width < width else "trunc", [y], [x]))
            x = y
        if shift:
            y = self.names.value(name, width)
            ops.append(Op("shl", [y], [x], {"by": shift}))
            x = y
        return ops, x

    def drop(self, loop: Op, carried: list[Value], finals: list[int], before: list[Op]) -> None:
        """Remove the closed carried values from the loop; their results become constants."""
        body = loop.regions[0]
        gone = {id(p): f for p, f in zip(carried, finals)}
        keep = [id(p) not in gone for p in body.params[1:]]
        for p, r in zip(body.params[1:], loop.results):
            if id(p) in gone:
                c = self.names.value(r.name, r.width)
                before.append(Op("const", [c], [], {"value": gone[id(p)]}))
                self.subst.bind(r, c)
        body.params = [body.params[0]] + [p for p, k in zip(body.params[1:], keep) if k]
        body.yields = [y for y, k in zip(body.yields, keep) if k]
        loop.results = [r for r, k in zip(loop.results, keep) if k]
        loop.args = loop.args[:2] + [a for a, k in zip(loop.args[2:], keep) if k]


def run(module: Module, knobs: dict) -> Module:
    mode = str((knobs or {}).get("recurrence_tables", "auto"))
    if mode not in MODES:
        raise ValueError(f"knob recurrence_tables={mode!r}: expected {', '.join(MODES)}")
    module = module.clone()
    if not acts(knobs):
        return module
    registry: dict = {}
    for fn in module.functions:
        t = _Tabulator(module, fn, registry, mode == "auto", str(knobs.get("record_packing", "off")))
        t.block(fn.body)
        substitute(fn.body, t.subst)
    return module
