"""Table fusion: replace pure byte-to-word sub-graphs whose outputs are XOR-combined by lookups.

The general rule (not AES-specific): take a value y that the rest of the program consumes (a
"sink": used by anything other than the xor/concat/zext/shl ops that build it). Read y as an
XOR of placed terms, looking through xor, concat (a part placed at its bit offset), zext and shl
by a constant. Each term is either a pure function of one small "root" value r (4..8 bits wide:
a byte or nibble, e.g. a byte sliced from the state) — through table loads, shifts, xtime-style
arithmetic, ... — or anything else (a residual, e.g. a round-key word). For each root whose
terms do more than place a single table lookup (or r itself) once, the pass evaluates the XOR
of that root's placed terms for all 2^|r| inputs (with the reference interpreter, so it means
exactly what the IR means), stores the result as a new module table `tf<k>` of y's width, and
rewrites y = XOR of the lookups tf<k>[r], the remaining placed terms and the residuals. Equal
tables are shared. The replaced cones are left dead: the pipeline runs constfold and cse_dce
after this pass (when `acts`), which remove them.

On AES written with an S-box and xtime (specs/primitives/aes.ae) this yields the T-tables: after
legalize at W=16, four 256 x u16 tables [2S,S], [3S,2S], [S,3S], [S,S] (Gouvea-Lopez, seed 000
section 4.7); at W=32 (or without legalize) the classic four 256 x u32 tables. The last round
(SubBytes only) keeps the S-box: each of its roots places one plain lookup.

Knob `table_fusion` (the table budget):
  none     no fusion (the S-box-only variants: 8-BIT-*, or xtime code);
  byte     fuse per output byte only (8-bit tables, not looking through concat): AES gets 2S and
           3S tables next to S (an "S-box + 2S-box" style variant, 3 x 256 bytes);
  full     fuse per output word (after legalize: per target word): 16-bit 4-table 2 KB on
           MSP430, 32-bit 4-table 4 KB on ARMv6-M (default);
  rotate   like full, but a table equal to a byte rotation of an earlier fused table is not
           stored: its lookups become that table's lookup rotated (32-bit 1-table + rotates,
           1 KB; at 16 bits AES's four tables are not rotations of each other, so nothing changes).
Tables are at most `word_bits` wide (64 without legalization).
A root whose terms read no table (arithmetic on a byte alone: a mask -(m >> j & 1), a bit
reversal, a counter step) is not fused: its 2^|r|-entry table, up to 2 KB at 64 bits, would
replace a few instructions (Grain's authentication masks were eight 2 KB tables on ARMv6-M).
Knob `fusion_min_bits` (default 4): roots narrower than this are not fused (a 2-entry table
replacing a select is no gain). A value used only as the index of memory accesses is not a
sink: it is an address, whose shift-and-add the backends fold into pointer arithmetic.

Preserves: every function's results and memory effects (tables are read-only).
Assumes: tables' contents are fixed (the IR's rule), so a table load is a pure function.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..interp import compile_module
from ..nodes import Block, Function, Memory, Module, Op, Value, walk_ops
from ..ops import mask
from .common import Names, Subst, clone_op, concat_parts, const_defs, fingerprint, is_pure, knob_int, resolve, substitute, use_counts

NAME = "table_fusion"
KNOBS = (
    Knob("table_fusion", "pass", ("none", "byte", "full", "rotate"), "full",
         doc="table budget: none, byte (8-bit tables), full (word tables), rotate (one table + rotations)"),
    Knob("fusion_min_bits", "pass", None, "4", minimum=1, doc="smallest input width worth a fused table"),
)

PREFIX = "tf"                       # the names of the tables this pass makes: tf0, tf1, ...


def fused_tables(module: Module) -> list[Memory]:
    """The tables table_fusion made in `module` (none where it found nothing to fuse)."""
    return [t for t in module.tables if t.name.startswith(PREFIX) and t.name[len(PREFIX):].isdigit()]


# Ops through which the XOR-decomposition looks (they place or combine terms linearly).
_LINEAR = ("xor", "concat", "zext", "shl")


class _Fuser:
    def __init__(self, module: Module, fn: Function, mode: str, min_bits: int, registry: dict):
        self.module = module
        self.fn = fn
        self.mode = mode
        self.min_bits = min_bits
        self.registry = registry          # (width, data) -> table; shared by the module
        self.names = Names(fn)
        self.consts = const_defs(fn)
        self.subst = Subst()

    # -- analysis ---------------------------------------------------------------------------
    def sources(self, block: Block) -> tuple[dict[int, Op], dict[int, object]]:
        """defs: id -> defining op (this block); src: id -> the root a value is a function of."""
        defs: dict[int, Op] = {}
        src: dict[int, object] = {}
        for op in block.ops:
            for r in op.results:
                defs[id(r)] = op
            if len(op.results) != 1 or op.regions or not is_pure(op) or op.opcode == "const":
                continue
            r = op.results[0]
            roots = set()
            root_obj = None
            ok = True
            for a in op.args:
                if isinstance(a, Memory) or id(a) in self.consts:
                    continue
                s = src.get(id(a))
                if s is None:
                    s = a if self.min_bits <= a.width <= 8 else None
                if s is None:
                    ok = False
                    break
                roots.add(id(s))
                root_obj = s
            if ok and len(roots) == 1:
                src[id(r)] = root_obj
        return defs, src

    def decompose(self, y: Value, defs, src, shift: int, limit: int, terms: dict, resid: list) -> None:
        """Add (y << shift) cut to bits below `limit` to terms (root id -> (root, [(value, shift,
        limit)])) or resid. The limit is where an enclosing narrower op (a byte's shl, a concat
        part) drops the bits that a shift moves out of it."""
        limit = min(limit, shift + y.width)
        if shift >= limit:
            return
        op = defs.get(id(y))
        code = op.opcode if op is not None else None
        through_concat = self.mode != "byte"
        if code == "xor":
            for a in op.args:
                self.decompose(a, defs, src, shift, limit, terms, resid)
            return
        if code == "concat" and through_concat:
            for a, pos in concat_parts(op):
                self.decompose(a, defs, src, shift + pos, limit, terms, resid)
            return
        if code == "zext" or (code == "shl" and through_concat):
            self.decompose(op.args[0], defs, src, shift + op.attrs.get("by", 0), limit, terms, resid)
            return
        root = src.get(id(y))
        if root is not None:
            terms.setdefault(id(root), (root, []))[1].append((y, shift, limit))
        else:
            resid.append((y, shift, limit))

    def reads_table(self, root: Value, items: list, defs) -> bool:
        """Whether a term's cone (back to the root) loads from a table."""
        todo = [v for v, *_ in items]
        seen: set[int] = set()
        while todo:
            v = todo.pop()
            if v is root or id(v) in seen or not isinstance(v, Value):
                continue
            seen.add(id(v))
            op = defs.get(id(v))
            if op is None:
                continue
            if op.opcode == "load" and isinstance(op.args[0], Memory) and op.args[0].kind == "table":
                return True
            todo += op.args
        return False

    def trivial(self, root: Value, items: list, defs) -> bool:
        """One term that is the root itself or one table lookup of it: nothing to gain."""
        if len(items) != 1:
            return False
        v = items[0][0]
        if v is root:
            return True
        op = defs.get(id(v))
        return op is not None and op.opcode == "load" and op.args[1] is root

    # -- evaluation ---------------------------------------------------------------------------
    def tabulate(self, groups: list, defs, width: int) -> list[tuple[int, ...]] | None:
        """For each (root, items): the table of XOR(item << shift) over all root values; None
        when the cone reads a table outside its bounds for some root value (an index whose
        range the program bounds elsewhere, e.g. a loop counter indexing a constant table)."""
        roots = [g[0] for g in groups]
        names = Names(Function("tf", [], [], Block()))
        vmap: dict[int, object] = {}
        params = []
        for r in roots:
            p = names.value("r", r.width)
            vmap[id(r)] = p
            params.append(p)
        ops: list[Op] = []
        needed: set[int] = set()

        def need(v) -> None:
            if isinstance(v, Memory) or id(v) in needed or id(v) in vmap:
                return
            needed.add(id(v))
            op = defs.get(id(v))
            if op is None:            # a constant defined in an enclosing block
                c = names.value("c", v.width)
                ops.append(Op("const", [c], [], {"value": self.consts[id(v)]}))
                vmap[id(v)] = c
                return
            for a in op.args:
                need(a)

        for _, items in groups:
            for v, *_ in items:
                need(v)
        order = sorted({id(op): op for op in (defs[i] for i in needed if i in defs)}.values(),
                       key=lambda op: self.position[id(op)])
        ops += [clone_op(op, vmap, names) for op in order]
        outs = [vmap.get(id(v), v) for _, items in groups for v, *_ in items]
        # Unrolled code repeats the same cone many times: evaluate each distinct one once.
        key = fingerprint(params, ops, outs)
        columns = self.cache.get(key)
        if columns is None:
            fn = Function("tf", params, [v.width for v in outs], Block([], ops, outs))
            program = compile_module(Module("tf", {}, tables=self.module.tables, functions=[fn]))
            size = 1 << max(r.width for r in roots)
            try:
                columns = [program.call("tf", [b & mask(r.width) for r in roots]) for b in range(size)]
            except IndexError:
                columns = None
            self.cache[key] = columns
        if columns is None:
            return None
        tables = []
        k = 0
        for root, items in groups:
            data = []
            for b in range(1 << root.width):
                acc = 0
                for j, (_, s, lim) in enumerate(items):
                    acc ^= (columns[b][k + j] << s) & mask(min(lim, width))
                data.append(acc)
            k += len(items)
            tables.append(tuple(data))
        return tables

    # -- rewriting ----------------------------------------------------------------------------
    def table_for(self, data: tuple[int, ...], width: int, length: int):
        """(table, left rotation) holding `data`, new or shared."""
        key = (width, length, data)
        if key in self.registry:
            return self.registry[key], 0
        if self.mode == "rotate" and width % 8 == 0:
            for k in range(8, width, 8):
                rot = tuple(((x >> k) | (x << (width - k))) & mask(width) for x in data)
                if (width, length, rot) in self.registry:
                    # data = rotl(rot, k): look up the stored table and rotate left by k.
                    return self.registry[(width, length, rot)], k
        t = Memory(f"{PREFIX}{len(self.registry)}", width, length, "table", data)
        self.registry[key] = t
        self.module.tables.append(t)
        return t, 0

    def place(self, v: Value, shift: int, limit: int, width: int, out: list[Op]) -> Value:
        keep = min(limit, width) - shift          # the bits of v that survive
        if keep < v.width:
            z = self.names.value(v.name, keep)
            out.append(Op("slice", [z], [v], {"lo": 0}))
            v = z
        if v.width < width:
            z = self.names.value(v.name, width)
            out.append(Op("zext", [z], [v]))
            v = z
        elif v.width > width:
            z = self.names.value(v.name, width)
            out.append(Op("slice", [z], [v], {"lo": 0}))
            v = z
        if shift:
            s = self.names.value(v.name, width)
            out.append(Op("shl", [s], [v], {"by": shift}))
            v = s
        return v

    def block(self, block: Block) -> None:
        for op in block.ops:
            for r in op.regions:
                self.block(r)
        defs, src = self.sources(block)
        self.position = {id(op): i for i, op in enumerate(block.ops)}
        # Uses that do not make a value a sink: by the linear ops the decomposition looks
        # through, and inside the cone of the same root (S-box -> xtime steps).
        absorbed: dict[int, int] = {}
        for op in block.ops:
            linear = op.opcode in _LINEAR and (op.opcode != "concat" or self.mode != "byte")
            root = src.get(id(op.results[0])) if len(op.results) == 1 else None
            for a in op.args:
                if linear or (root is not None and src.get(id(a)) is root):
                    absorbed[id(a)] = absorbed.get(id(a), 0) + 1
        out: list[Op] = []
        for op in block.ops:
            out.append(op)
            if len(op.results) != 1 or op.regions or not is_pure(op) or op.opcode == "const":
                continue
            y = op.results[0]
            if y.width > self.max_width:
                continue
            if self.uses.get(id(y), 0) <= absorbed.get(id(y), 0):
                continue                    # only feeds the XOR structure of a bigger sink
            if self.index_only.get(id(y)):
                continue                    # an address: index arithmetic stays arithmetic
            terms: dict = {}
            resid: list = []
            self.decompose(y, defs, src, 0, y.width, terms, resid)
            groups = [(root, items) for root, items in terms.values()
                      if self.min_bits <= root.width <= 8 and not self.trivial(root, items, defs)
                      and self.reads_table(root, items, defs)]
            if not groups:
                continue
            tables = self.tabulate(groups, defs, y.width)
            if tables is None:
                continue
            fused = {id(root) for root, _ in groups}
            new_ops: list[Op] = []
            parts: list[Value] = []
            for (root, _), data in zip(groups, tables):
                t, rot = self.table_for(data, y.width, 1 << root.width)
                v = self.names.value("tl", y.width)
                new_ops.append(Op("load", [v], [t, root]))
                if rot:
                    rv = self.names.value("tl", y.width)
                    new_ops.append(Op("rotl", [rv], [v], {"by": rot}))
                    v = rv
                parts.append(v)
            for root, items in terms.values():
                if id(root) not in fused:
                    parts += [self.place(v, s, lim, y.width, new_ops) for v, s, lim in items]
            parts += [self.place(v, s, lim, y.width, new_ops) for v, s, lim in resid]
            acc = parts[0]
            for p in parts[1:]:
                x = self.names.value(y.name, y.width)
                new_ops.append(Op("xor", [x], [acc, p]))
                acc = x
            out += new_ops
            self.subst.bind(y, acc)
        block.ops = out
        block.yields = [resolve(self.subst, v) for v in block.yields]


def _index_only(fn: Function) -> dict[int, bool]:
    """id(value) -> True if the value is only address arithmetic: every use is as the element
    index of a memory access, or feeds a shift, add or multiply by a constant (or a zext) whose
    result is itself only address arithmetic. After legalization word j of a wide table line u
    is read at `8*u + j`: fusing that would replace a shift and an add, which the backends fold
    into one base register and displacements, by a lookup per word (GHASH's 4-bit tables: 15
    such tables, 14 % slower)."""
    ops = list(walk_ops(fn.body))
    consts = const_defs(fn)
    uses: dict[int, list] = {}
    escapes: set[int] = {id(y) for y in fn.body.yields}
    for op in ops:
        for k, a in enumerate(op.args):
            if isinstance(a, Value):
                uses.setdefault(id(a), []).append((op, k))
        for r in op.regions:
            escapes.update(id(y) for y in r.yields)
    ok: dict[int, bool] = {}

    def address(v) -> bool:
        if id(v) in ok:
            return ok[id(v)]
        ok[id(v)] = False                   # (no cycles in SSA; a guard all the same)
        res = id(v) not in escapes and bool(uses.get(id(v)))
        for op, k in uses.get(id(v), []):
            if not res:
                break
            if op.opcode in ("load", "store") and k == 1:
                continue
            arith = op.opcode in ("shl", "zext") or (
                op.opcode in ("add", "mul") and any(id(a) in consts for a in op.args if a is not v))
            res = arith and len(op.results) == 1 and address(op.results[0])
        ok[id(v)] = res
        return res

    for op in ops:
        for r in op.results:
            address(r)
    return ok


def acts(knobs: dict) -> bool:
    """Whether the pass may change anything (the pipeline cleans up after it only then)."""
    return str((knobs or {}).get("table_fusion", "full")) != "none"


def run(module: Module, knobs: dict) -> Module:
    mode = str((knobs or {}).get("table_fusion", "full"))
    if mode not in ("none", "byte", "full", "rotate"):
        raise ValueError(f"knob table_fusion={mode!r}: expected none, byte, full or rotate")
    module = module.clone()
    if mode == "none":
        return module
    min_bits = knob_int(knobs, "fusion_min_bits", 4)
    registry: dict = {}
    cache: dict = {}
    for fn in module.functions:
        f = _Fuser(module, fn, mode, min_bits, registry)
        f.uses = use_counts(fn)
        f.index_only = _index_only(fn)
        f.cache = cache
        f.max_width = 8 if mode == "byte" else knob_int(knobs, "word_bits", 64)
        f.block(fn.body)
        substitute(fn.body, f.subst)
    return module
