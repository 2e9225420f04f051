"""S-box layer fusion: byte-indexed tables for a substitution layer and the linear map around it.

The structure (general, not tied to a scheme): a *substitution layer* reads a word x as small
slices (each at most 8 bits, inside one byte of x) and computes from each slice, with pure ops
only (table loads, arithmetic with constants), a *part*; a *linear map* is made of the
GF(2)-linear ops xor, rotl, rotr, shl, shr, concat, zext and slice. Two patterns are rewritten:

1. y = M(parts of x), M linear and mixing at the word level (it XORs, and it rotates or shifts
   a word of y's width by a number of bits that is not a multiple of 8; y is at least as wide
   as x): y is an XOR of functions of the single bytes of x, so
   y = T_0[byte_0(x)] ^ T_1[byte_1(x)] ^ ... with one 256-entry table of y's width per byte of
   x that some part reads. For f(x) = L(S(x)) with four 4-bit S-boxes and
   L(x) = x ^ (x <<< 6) ^ (x <<< 10) this gives two 256 x 16-bit tables, the fL, fH of
   seed 000 §4.5.
2. y = M(parts of l) where M does not mix (no XOR, no rotation or shift across bytes), more
   parts than bytes of l are read, and l = N(z) is a mixing linear map of a single value z
   (the inverse direction, f^-1(x) = S^-1(L^-1(x))): l becomes the XOR of byte-indexed tables
   of z (for L^-1: the LL/LH tables), and the parts reading one byte of l become one merged 256-entry table (two 4-bit
   inverse S-boxes -> one 8-bit table), of 8 bits when each merged table's outputs stay inside
   one byte of y (then y is the concat of the lookups), otherwise of y's width (XORed).

3. (knob value `merge` only) y = M(parts of x), M a *placing* map (no XOR, no rotation or shift
   across bytes; an OR of values with no one-bit in common is a placement, like an XOR of them),
   more parts than bytes of x are read, and the parts reading each byte of x land inside one
   byte of y: the parts of one byte become one merged 256-entry 8-bit table and y the concat of
   the lookups (two 4-bit S-boxes of a byte -> one byte S-box). This is the cell-merging of
   hand-written nibble-oriented code (a 4-bit S-box layer read and written a byte at a time):
   half the lookups, no nibble cutting and placing, for a 256-byte table instead of a 16-entry
   one. Where a merged table's outputs would straddle two bytes of y (a nibble rotation after
   the layer), that y is not rewritten; the layer before the rotation still is.

Only a word that depends on at least two bytes of x is rewritten. Byte-level arithmetic (AES's
xtime: shifts of 8-bit values, and MixColumns outputs one byte wide) is table_fusion's business:
its knob decides those tables.
Under `bytes`, a substitution layer alone, or followed only by a bit permutation (a rotation
without XOR, as a cell-row shift) or by byte moves (rotations by multiples of 8), is left alone;
`merge` adds pattern 3 for it. A permutation is never tabulated.

The tables are computed by running the replaced cone in the reference interpreter (so they mean
exactly what the IR means): with x = v << 8b for each byte b and value v; the cone's value at
x = 0 is folded into the first table, which is exact because the cone is linear in its parts
and each part depends on one byte. Equal tables are shared (module tables `sf<k>`). In a
function it changed, the pass removes the pure ops left unused (the replaced cones) itself, so
that the pipeline needs no clean-up steps after it and functions it does not change stay as
they are.

Knob `sbox_fusion`: `bytes` rewrites patterns 1 and 2; `merge` (default) patterns 1, 2 and 3;
`none` leaves the IR unchanged.
Tables are at most `word_bits` wide (the cone's result must fit a target word).

Preserves: every function's results and memory effects (tables are read-only; only pure ops are
added, and each replaced value gets the same value on every input).
Assumes: tables' contents are fixed (the IR's rule), so a table load is a pure function.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..interp import compile_module
from ..nodes import Block, Function, Memory, Module, Op, Value
from ..ops import mask
from .common import (Names, Subst, clone_op, const_defs, fingerprint, is_pure, knob_int, substitute,
                     use_counts)

NAME = "sbox_fusion"
KNOBS = (
    Knob("sbox_fusion", "pass", ("none", "bytes", "merge"), "merge",
         doc="byte-indexed tables for an S-box layer and the linear map around it: none, bytes, "
             "or merge (also one byte table for the small S-boxes of each byte of a layer alone)"),
)

_LINEAR = ("xor", "rotl", "rotr", "shl", "shr", "concat", "zext", "slice")


def maybe_ones(v, defs: dict, consts: dict, memo: dict) -> int:
    """A mask of the bits of v that can be 1 (every other bit is 0 on every input), from the ops
    of v's block: constants, concat, zext, shifts by constants, slice, and with a constant, table
    loads (the OR of the table's entries), or and xor."""
    if id(v) in memo:
        return memo[id(v)]
    full = mask(v.width)
    if id(v) in consts:
        res = consts[id(v)] & full
    else:
        op = defs.get(id(v))
        code = op.opcode if op is not None and len(op.results) == 1 else None
        args = op.args if code else []
        ones = lambda a: maybe_ones(a, defs, consts, memo)     # noqa: E731
        if code == "concat":
            res, pos = 0, v.width
            for a in args:
                pos -= a.width
                res |= ones(a) << pos
        elif code == "zext":
            res = ones(args[0])
        elif code == "shl":
            res = ones(args[0]) << op.attrs["by"]
        elif code in ("shr", "slice"):
            res = ones(args[0]) >> op.attrs.get("by", op.attrs.get("lo", 0))
        elif code == "and":
            res = ones(args[0]) & ones(args[1])
        elif code in ("or", "xor"):
            res = ones(args[0]) | ones(args[1])
        elif code == "load" and args[0].kind == "table" and args[0].data:
            res = 0
            for d in args[0].data:
                res |= d
        else:
            res = full
        res &= full
    memo[id(v)] = res
    return res


class _Cone:
    """The linear cone of a value: the leaves it is a GF(2)-linear function of, its ops (in the
    block), whether it rotates or shifts a whole word (of the value's width) by a number of bits
    that is not a multiple of 8 (moving bits across byte boundaries) and whether it XORs."""

    def __init__(self):
        self.leaves: list[Value] = []
        self.ops: list[Op] = []
        self.rotates = False
        self.xors = False


class _Fuser:
    def __init__(self, module: Module, fn: Function, registry: dict, cache: dict, max_width: int,
                 merge: bool):
        self.module = module
        self.merge = merge
        self.ones: dict[int, int] = {}        # maybe_ones memo
        self.fn = fn
        self.registry = registry
        self.cache = cache
        self.max_width = max_width
        self.names = Names(fn)
        self.consts = const_defs(fn)
        self.subst = Subst()
        self.acted = False

    # -- analysis ---------------------------------------------------------------------------
    def cone(self, y: Value, defs: dict, stop=None) -> _Cone:
        """The linear cone of y (not looking past `stop`)."""
        c = _Cone()
        seen: set[int] = set()
        todo = [y]                      # depth first, arguments in order (no recursion: a
        while todo:                     # cone may span a whole round of linear layers)
            v = todo.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            op = defs.get(id(v))
            if op is None or id(v) in self.consts or v is stop or not (
                    op.opcode in _LINEAR or self.placing_or(op, defs)):
                c.leaves.append(v)
                continue
            c.ops.append(op)
            if op.opcode in ("rotl", "rotr", "shl", "shr") and v.width == y.width:
                c.rotates = c.rotates or op.attrs["by"] % 8 != 0
            elif op.opcode == "xor":
                c.xors = True
            todo.extend(reversed(op.args))
        return c

    def placing_or(self, op: Op, defs: dict) -> bool:
        """An OR whose arguments have no one-bit in common: it places them, like an XOR."""
        if op.opcode != "or" or len(op.args) != 2:
            return False
        a, b = (maybe_ones(x, defs, self.consts, self.ones) for x in op.args)
        return a & b == 0

    def part_of(self, v: Value, defs: dict) -> tuple[Value, int] | None:
        """(base, byte) if v is a pure function of one slice of a value `base`, the slice at
        most 8 bits wide and inside byte `byte` of base; else None."""
        root = None
        todo = [v]
        seen: set[int] = set()
        while todo:
            u = todo.pop()
            if id(u) in seen or id(u) in self.consts:
                continue
            seen.add(id(u))
            op = defs.get(id(u))
            if op is None or len(op.results) != 1 or op.regions or not is_pure(op):
                return None
            if op.opcode == "slice":
                lo, w = op.attrs["lo"], u.width
                src = op.args[0]
                if w > 8 or lo // 8 != (lo + w - 1) // 8:
                    return None
                key = (id(src), lo // 8)
                if root is not None and root[0] != key:
                    return None
                root = (key, src)
                continue
            todo += [a for a in op.args if not isinstance(a, Memory)]
        if root is None:
            return None
        return root[1], root[0][1]

    def parts(self, cone: _Cone, defs: dict) -> tuple[Value, dict[int, list]] | None:
        """(base, byte -> leaves) if every leaf of the cone is a part of the same base."""
        base = None
        groups: dict[int, list] = {}
        for leaf in cone.leaves:
            if id(leaf) in self.consts:
                continue                # a constant term: tabulate folds it into a table
            p = self.part_of(leaf, defs)
            if p is None or (base is not None and p[0] is not base):
                return None
            base = p[0]
            groups.setdefault(p[1], []).append(leaf)
        if base is None:
            return None
        return base, groups

    def single_source(self, l: Value, defs: dict, budget: int = 64) -> _Cone | None:
        """The linear cone of l as a function of one value z (its only leaf), z the first such
        value found walking back from l (breadth first); None if there is none."""
        order, seen = [l], {id(l)}
        for v in order:
            if len(order) > budget:
                return None
            if v is not l:
                c = self.cone(l, defs, stop=v)
                if len(c.leaves) == 1 and c.leaves[0] is v:
                    return c
            op = defs.get(id(v))
            if op is not None and op.opcode in _LINEAR:
                for a in op.args:
                    if isinstance(a, Value) and id(a) not in seen:
                        seen.add(id(a))
                        order.append(a)
        return None

    # -- evaluation ---------------------------------------------------------------------------
    def tabulate(self, y: Value, base: Value, defs: dict, nbytes: list[int]) -> list[tuple[int, ...]]:
        """For each byte b in nbytes: T_b[v] with XOR_b T_b[byte_b(x)] = y(x) for every x of
        this form (y's cone is an XOR of functions of single bytes of base)."""
        names = Names(Function("sf", [], [], Block()))
        p = names.value("x", base.width)
        vmap: dict[int, object] = {id(base): p}
        ops: list[Op] = []
        needed: list[Op] = []
        seen: set[int] = set()

        def need(v) -> None:
            if isinstance(v, Memory) or id(v) in seen or id(v) in vmap:
                return
            seen.add(id(v))
            op = defs.get(id(v))
            if op is None:                          # a constant defined in an enclosing block
                c = names.value("c", v.width)
                ops.append(Op("const", [c], [], {"value": self.consts[id(v)]}))
                vmap[id(v)] = c
                return
            for a in op.args:
                need(a)
            needed.append(op)

        need(y)
        order = sorted({id(op): op for op in needed}.values(), key=lambda op: self.position[id(op)])
        ops += [clone_op(op, vmap, names) for op in order]
        key = (fingerprint([p], ops, [vmap[id(y)]]), tuple(nbytes))
        tables = self.cache.get(key)
        if tables is None:
            fn = Function("sf", [p], [y.width], Block([], ops, [vmap[id(y)]]))
            program = compile_module(Module("sf", {}, tables=self.module.tables, functions=[fn]))
            zero = program.call("sf", [0])[0]
            tables = []
            for n, b in enumerate(nbytes):
                data = [program.call("sf", [(v << (8 * b)) & mask(base.width)])[0] for v in range(256)]
                tables.append(tuple(d if n == 0 else d ^ zero for d in data))
            self.cache[key] = tables
        return tables

    # -- rewriting ----------------------------------------------------------------------------
    def table_for(self, data: tuple[int, ...], width: int) -> Memory:
        key = (width, data)
        if key not in self.registry:
            taken = {t.name for t in self.module.tables}
            n = len(self.registry)
            while f"sf{n}" in taken:
                n += 1
            t = Memory(f"sf{n}", width, len(data), "table", data)
            self.registry[key] = t
            self.module.tables.append(t)
        return self.registry[key]

    def byte_of(self, x: Value, b: int, out: list[Op]) -> Value:
        v = self.names.value("sb", 8)
        out.append(Op("slice", [v], [x], {"lo": 8 * b}))
        return v

    def xor_of_lookups(self, x: Value, tables: list, nbytes: list[int], width: int, out: list[Op]) -> Value:
        acc = None
        for b, data in zip(nbytes, tables):
            t = self.table_for(data, width)
            v = self.names.value("sl", width)
            out.append(Op("load", [v], [t, self.byte_of(x, b, out)]))
            if acc is not None:
                z = self.names.value("sx", width)
                out.append(Op("xor", [z], [acc, v]))
                v = z
            acc = v
        return acc

    def bytewise(self, y: Value, x: Value, tables: list, nbytes: list[int], out: list[Op]) -> Value | None:
        """y as a concat of 8-bit lookups and constant bytes, if the bits each table varies lie
        in one byte of y, a different byte for each table; else None. (Tables after the first
        are zero at index 0, the first holds y's constant part: see tabulate.)"""
        if y.width % 8:
            return None
        const = tables[0][0]
        slot: dict[int, int] = {}
        for i, data in enumerate(tables):
            spread = 0
            for d in data:
                spread |= d ^ data[0]
            c = next((c for c in range(y.width // 8) if spread & ~(0xFF << (8 * c)) == 0), None)
            if spread == 0 or c is None or c in slot:
                return None
            slot[c] = i
        pieces = []
        for c in reversed(range(y.width // 8)):
            if c in slot:
                i = slot[c]
                fix = const if i else 0
                t = self.table_for(tuple(((d ^ fix) >> (8 * c)) & 0xFF for d in tables[i]), 8)
                v = self.names.value("sm", 8)
                out.append(Op("load", [v], [t, self.byte_of(x, nbytes[i], out)]))
            else:
                v = self.names.value("sz", 8)
                out.append(Op("const", [v], [], {"value": (const >> (8 * c)) & 0xFF}))
            pieces.append(v)
        # 16-bit pairs, then 32-bit quads: a word's lookups can then be scheduled together (the
        # selector and the schedule pass see each word's concat, not one of every byte)
        while len(pieces) > 2 and len(pieces) % 2 == 0 and pieces[0].width < 32:
            pairs = []
            for hi, lo in zip(pieces[::2], pieces[1::2]):
                w = self.names.value("sp", 2 * hi.width)
                out.append(Op("concat", [w], [hi, lo]))
                pairs.append(w)
            pieces = pairs
        z = self.names.value("sc", y.width)
        out.append(Op("concat", [z], pieces))
        return z

    def match(self, y: Value, defs: dict) -> tuple[list[Op], Value, set[int]] | None:
        """New ops computing y, the value they leave in y's place, and the ids of the values
        whose computation they replace; None if y is not one of the patterns."""
        if y.width < 2:
            return None
        wide = y.width > self.max_width         # only 8-bit tables (pattern 3) can serve it
        cone = self.cone(y, defs)
        if len(cone.leaves) < 2:
            return None
        found = self.parts(cone, defs)
        if found is None:
            return None
        base, groups = found
        if len(groups) < 2 or y.width < base.width:
            return None                 # a function of one byte, or a byte of a word: not word-level
        nbytes = sorted(groups)
        covered = {id(op.results[0]) for op in cone.ops}
        out: list[Op] = []
        if cone.rotates and cone.xors and not wide:
            # Pattern 1: the linear map after the substitution layer goes into the tables.
            tables = self.tabulate(y, base, defs, nbytes)
            return out, self.xor_of_lookups(base, tables, nbytes, y.width, out), covered
        merged = sum(map(len, groups.values())) > len(groups)      # a byte read by several parts
        if not merged:
            return None
        # Pattern 2: a placing layer after the substitution layer, and before it a mixing
        # linear map of one value z.
        pre = None
        if not (cone.rotates or cone.xors or wide or base.width > self.max_width):
            pre = self.single_source(base, defs)
        if pre is None or not (pre.rotates and pre.xors):
            if not self.merge:
                return None
            # Pattern 3: the layer alone; one merged 8-bit table per byte of x, or nothing.
            tables = self.tabulate(y, base, defs, nbytes)
            res = self.bytewise(y, base, tables, nbytes, out)
            return None if res is None else (out, res, covered)
        z = pre.leaves[0]
        if any(op.opcode not in _LINEAR for op in pre.ops) or z.width % 8 or z.width > self.max_width:
            return None
        zbytes = list(range(z.width // 8))
        lin = self.tabulate(base, z, defs, zbytes)
        new_base = self.xor_of_lookups(z, lin, zbytes, base.width, out)
        tables = self.tabulate(y, base, defs, nbytes)
        res = self.bytewise(y, new_base, tables, nbytes, out)
        if res is None:
            res = self.xor_of_lookups(new_base, tables, nbytes, y.width, out)
        return out, res, covered

    def block(self, block: Block) -> None:
        for op in block.ops:
            for r in op.regions:
                self.block(r)
        defs = {id(r): op for op in block.ops for r in op.results}
        self.position = {id(op): i for i, op in enumerate(block.ops)}
        covered: set[int] = set()
        rewrites: dict[int, list[Op]] = {}
        for op in reversed(block.ops):
            if len(op.results) != 1 or op.regions or not (op.opcode in _LINEAR or self.placing_or(op, defs)):
                continue
            y = op.results[0]
            if id(y) in covered:
                continue
            m = self.match(y, defs)
            if m is None:
                continue
            new_ops, value, inner = m
            covered |= inner
            rewrites[id(op)] = new_ops
            self.subst.bind(y, value)
            self.acted = True
        if not rewrites:
            return
        out: list[Op] = []
        for op in block.ops:
            out.append(op)
            out += rewrites.get(id(op), [])
        block.ops = out


def _remove_dead(fn: Function) -> None:
    """Remove the pure ops whose results nothing uses (the replaced cones), to a fixed point."""
    while True:
        uses = use_counts(fn)
        removed = False

        def sweep(block: Block) -> None:
            nonlocal removed
            keep = []
            for op in block.ops:
                for r in op.regions:
                    sweep(r)
                if (not op.regions and op.results and is_pure(op)
                        and all(uses.get(id(r), 0) == 0 for r in op.results)):
                    removed = True
                    continue
                keep.append(op)
            block.ops = keep

        sweep(fn.body)
        if not removed:
            return


def run(module: Module, knobs: dict) -> Module:
    mode = str((knobs or {}).get("sbox_fusion", "merge"))
    if mode not in ("none", "bytes", "merge"):
        raise ValueError(f"knob sbox_fusion={mode!r}: expected none, bytes or merge")
    module = module.clone()
    if mode == "none":
        return module
    registry: dict = {}
    cache: dict = {}
    max_width = knob_int(knobs, "word_bits", 64)
    for fn in module.functions:
        f = _Fuser(module, fn, registry, cache, max_width, mode == "merge")
        f.block(fn.body)
        if f.acted:
            substitute(fn.body, f.subst)
            _remove_dead(fn)
    return module
