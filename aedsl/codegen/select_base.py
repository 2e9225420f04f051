"""The target-neutral half of instruction selection: walking the IR into machine IR.

`SelectorBase` walks one exported IR function and hands each op to the target's selector
(a subclass implementing `op_<opcode>` methods over *limbs*). What it does itself:

- **Limbs.** An IR value of width W is a list of ceil(W / LIMB) limb operands, least significant
  first; the top limb keeps the value zero-extended (targets mask after ops that could set high
  bits). A limb is a register `R`, an immediate `Imm` (constants stay immediates until an
  instruction needs a register: that is constant folding and immediate operands for free), or a
  memory operand `Mem` (a *lazy load*: a word loaded from memory is used in place as a source
  operand — `xor @r12, r4` — and only copied to a register when needed).
- **Lazy loads and stores.** A lazy load from writable memory is "pending"; before any store,
  call, and before entering a loop or conditional region, pending loads are materialised into
  registers, so a memory operand never observes a later store.
- **Calls are inlined** at selection (each call site selects the callee body with its own
  value map), so generated functions are leaves with a fixed stack frame -- unless the target's
  `real_call` hook emits a subroutine call (the calls the IR's inline pass kept, `inline=entries`).
- **Loops**: a loop with constant bounds and `unroll=0` (full), is unrolled here with the index
  an immediate; `unroll=k` dividing the trip count replicates the body k times per iteration;
  otherwise a counted loop with the carried values in registers.
- **Constant folding** of ops whose operands are all immediates (`fold`).

The IR passes (aedsl/ir/pipeline.py) may already have done some of this; the walker copes with
IR before or after them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from aedsl.ir.bounds import value_bound
from aedsl.ir.nodes import Block, Function, Memory, Module, Op, Value, walk_ops
from aedsl.ir.ops import OPS
from aedsl.ir.writes import written_first

from .mir import Frame, Imm, Lbl, Mem, MFunction, MInst, R
from .target import UNDEF


@dataclass
class MemBind:
    """Where a memory lives: kind "ptr" (its address is in register `base`), "table" (a symbol
    in ROM), "local" (a frame area named `name`); `stride` bytes per element; `length` limbs of
    its run-time length for `bytes`."""
    kind: str
    stride: int
    elem_width: int
    base: int | None = None
    name: str = ""
    length: list | None = None
    count: int | None = None
    readonly: bool = False


@dataclass
class LoopInfo:
    """A counted loop being selected: index limbs, constant start (or None), index step per
    iteration, the preheader anchor, and target data (`extra`)."""
    idx: list
    lo: int | None
    step: int
    anchor: MInst
    extra: dict = field(default_factory=dict)


COMPARISONS = frozenset({"eq", "ne", "ult", "ule", "ugt", "uge"})


class SelectError(Exception):
    pass


def nlimbs(width: int, limb: int) -> int:
    return max(1, -(-width // limb))


def fold(opcode: str, args: list[int], widths: list[int], w: int, attrs: dict) -> int | None:
    """The value of a pure one-result op on constants (the IR op table, aedsl/ir/ops.py), or
    None if it is not folded here (ops with effects or memory operands, `addc`/`subb`)."""
    spec = OPS.get(opcode)
    if spec is None or not spec.pure or spec.results != 1:
        return None
    return spec.bind(tuple(widths), w, attrs)(*args)


class SelectorBase:
    LIMB = 16
    # Target data: the mnemonic of the limb-wise xor / and / or (selected through `bitop`).
    BITWISE: dict[str, str] = {}
    # Target data: the largest length a byte buffer can have (`len`), None for no bound beyond
    # the value's width. A buffer lies in the address space the target's pointers reach.
    MAX_BUFFER_BYTES: int | None = None

    def __init__(self, module: Module, mf: MFunction, symbol_prefix: str, spec_lines: list[str] | None = None):
        self.module = module
        self.mf = mf
        self.prefix = symbol_prefix
        self.depth = 0
        self.blocks: list[Block] = []
        self.loc = None
        self.origin = ""
        self.origin_loc = None
        self.scopes: list[tuple[dict, dict]] = []
        self.pending: list[tuple[dict, Value, int]] = []
        self.local_count = 0
        self.tables: dict[str, Memory] = {t.name: t for t in module.tables}
        self.used_tables: set[str] = set()
        # subroutine name -> the registers a call of it overwrites (`Backend.clobbered`); a
        # callee not here follows the calling convention
        self.clobbers: dict[str, tuple[int, ...]] = {}
        self.loops: list[LoopInfo] = []
        self.calls: set[str] = set()        # functions called as subroutines (compiled once each)
        self.call_sites = 0
        self.defs: dict = {}                # IR value -> its defining op (value_bound, patterns)
        self.index_bounds: dict = {}        # a counted loop's index -> its upper bound (value_bound)
        self.def_depth: dict = {}           # IR value -> the loop depth it was selected at
        self.compare_masks: set[int] = set()   # comparisons selected as their select's mask
        self.given: dict = {}               # id(op) -> limbs a loop chose for its result
        self.forget_derived()

    # --- emission helpers ------------------------------------------------------------------
    def emit(self, mn: str, *ops) -> MInst:
        inst = MInst(mn, list(ops), depth=self.depth, loc=self.loc, origin=self.origin, origin_loc=self.origin_loc)
        self.mf.insts.append(inst)
        return inst

    def label(self, name: str) -> None:
        self.emit("label", Lbl(name))
        self.forget_derived()

    def forget_derived(self) -> None:
        """Forget the rotations (select/shifts.py) and shifts (a target's) remembered for
        reuse: they hold only within straight-line code (a loop latch rewrites registers)."""
        self._rotations: dict = {}
        self._shifts: dict = {}

    def vreg(self) -> int:
        return self.mf.vreg()

    def undef(self) -> R:
        """A new register whose value nothing reads (`codegen/target.UNDEF`: no instruction)."""
        r = R(self.vreg())
        self.emit(UNDEF, r)
        return r

    # --- values ----------------------------------------------------------------------------
    @property
    def vals(self) -> dict:
        return self.scopes[-1][0]

    @property
    def mems(self) -> dict:
        return self.scopes[-1][1]

    def get(self, v: Value) -> list:
        try:
            return self.vals[v]
        except KeyError:
            raise SelectError(f"value %{v.name} used before definition") from None

    def put(self, v: Value, limbs: list) -> None:
        self.vals[v] = limbs

    def const_of(self, limbs: list) -> int | None:
        if all(isinstance(x, Imm) for x in limbs):
            return sum(x.value << (self.LIMB * j) for j, x in enumerate(limbs))
        return None

    def imm_limbs(self, value: int, width: int) -> list:
        m = (1 << self.LIMB) - 1
        return [Imm((value >> (self.LIMB * j)) & m) for j in range(nlimbs(width, self.LIMB))]

    def materialize_pending(self) -> None:
        """Copy every pending lazy load into a register (before a store or a region)."""
        for vals, v, j in self.pending:
            limbs = vals.get(v)
            if limbs is not None and j < len(limbs) and isinstance(limbs[j], Mem):
                limbs[j] = self.to_reg_fresh(limbs[j])
        self.pending = []

    def to_reg_fresh(self, op) -> R:
        r = self.vreg()
        self.emit("mov", op, R(r))
        return R(r)

    # --- walking ---------------------------------------------------------------------------
    def select_block(self, block: Block) -> list[list]:
        self.blocks.append(block)       # the block being selected (innermost last)
        try:
            for op in block.ops:
                self.select_op(op)
        finally:
            self.blocks.pop()
        # references, not copies: a pending load materialised after the block updates them
        return [self.get(v) for v in block.yields]

    def value_bound(self, v: Value, depth: int = 6) -> int:
        """An upper bound of IR value v (aedsl/ir/bounds.py) from the ops selected so far, buffer
        lengths (`MAX_BUFFER_BYTES`) and counted loops' indices (below their bounds)."""
        return value_bound(v, self.defs, self.MAX_BUFFER_BYTES, self.index_bounds, depth)

    def known_zero(self, v: Value, depth: int = 6) -> int:
        """Bits of IR value v known to be zero, from the ops defining it (constants, masks,
        shifts, extensions, and x ^ (x & c), which is x with the bits of c cleared); 0 when
        nothing is known."""
        top = (1 << v.width) - 1
        d = self.defs.get(v)
        if d is None or depth == 0:
            return 0
        code, args = d.opcode, d.args
        z = lambda i: self.known_zero(args[i], depth - 1)      # noqa: E731
        if code == "const":
            return ~d.attrs["value"] & top
        if code == "and":
            return (z(0) | z(1)) & top
        if code == "xor":
            # x ^ (x & c) for a constant c: x with c's bits cleared
            for a, b in ((0, 1), (1, 0)):
                e = self.defs.get(args[b])
                if e is not None and e.opcode == "and" and args[a] in e.args:
                    ones = _const_bits(self, e.args[1] if e.args[0] is args[a] else e.args[0])
                    if ones is not None:
                        return (z(a) | ones) & top
        if code in ("or", "xor"):
            return z(0) & z(1)
        if code == "shl":
            by = d.attrs["by"]
            return ((z(0) << by) | ((1 << by) - 1)) & top
        if code == "shr":
            by = d.attrs["by"]
            return ((z(0) >> by) | (top ^ (top >> by))) & top
        if code == "zext":
            return (z(0) | (top ^ ((1 << args[0].width) - 1))) & top
        return 0

    def select_op(self, op: Op) -> None:
        for r in op.results:
            self.defs[r] = op
            self.def_depth[r] = self.depth
        if op.loc is not None:
            self.loc = op.loc
        code = op.opcode
        self.origin, self.origin_loc = code, self.loc
        if id(op) in self.given:                # its value chosen by the enclosing loop
            self.put(op.results[0], self.given[id(op)])
            return
        if code == "const":
            self.put(op.results[0], self.imm_limbs(op.attrs["value"], op.results[0].width))
            return
        if code == "for":
            return self.select_for(op)
        if code == "if":
            return self.select_if(op)
        if code == "call":
            return self.select_call(op)
        # constant folding
        scalar_args = [a for a in op.args if isinstance(a, Value)]
        if op.results and len(scalar_args) == len(op.args) and op.results[0].width > 0:
            cs = [self.const_of(self.get(a)) for a in scalar_args]
            if all(c is not None for c in cs):
                r = fold(code, cs, [a.width for a in scalar_args], op.results[0].width, op.attrs)
                if r is not None:
                    self.put(op.results[0], self.imm_limbs(r, op.results[0].width))
                    return
        handler = self.handler_for(code)
        if handler is None:
            raise SelectError(f"{self.mf.name}: the {self.__class__.__name__} cannot select op {code!r} yet")
        handler(op)

    def handler_for(self, code: str):
        """The selection routine of an opcode: limb-wise bitwise ops through the target's
        `BITWISE` mnemonics, the six unsigned comparisons through one target hook
        `_compare(op, kind)`, every other op through the target's `op_<code>` method."""
        if code in self.BITWISE:
            return lambda op: self._bitwise(op, self.BITWISE[code])
        if code in COMPARISONS and hasattr(self, "_compare"):
            return lambda op: self._compare(op, code)
        return getattr(self, "op_" + code, None)

    # Targets that re-select the operand of an `and` with a constant under its demanded bits
    # (`demanded`). MSP430 does (PHOTON256's GF(2^4) doubling masks: 27 207 -> 21 512 cycles);
    # on ARMv6-M it measured slower (Romulus-N +12 %: the later re-selection lengthens live
    # ranges over its eight low registers), so it does not.
    DEMANDED_BITS = False

    def _bitwise(self, op: Op, mn: str) -> None:
        a, b = self.args(op)
        if op.opcode == "and" and self.DEMANDED_BITS:
            # an `and` with a constant demands only the constant's bits of the other operand:
            # a tree of xor/or and constant shifts below it is selected again without the
            # limb halves that reach no demanded bit (the first selection becomes dead code)
            for k in (0, 1):
                c = self.const_of((a, b)[k])
                if c is not None:
                    part = self.demanded(op.args[1 - k], c, op.results[0].width)
                    if part is not None:
                        a, b = (part, b) if k == 1 else (a, part)
                    break
        if op.opcode == "and" and hasattr(self, "and_not"):
            for k in (0, 1):
                inv = self.inverted(op.args[k])
                if inv is not None and self.const_of(a if k else b) is None:
                    other = (a, b)[1 - k]
                    self.put(op.results[0], self.lanewise(self.and_not, other, inv))
                    return
        self.put(op.results[0], self.lanewise(lambda x, y: self.bitop(mn, x, y), a, b))

    def inverted(self, v: Value) -> list | None:
        """The limbs of x where v = ~x was selected in the same loop body (so x's registers still
        hold it), for an and-not (`and_not(a, x)` = a & ~x: MSP430 `bic`, Thumb `bics`) in
        place of the `not` and the `and`; the `not`'s own instructions die if nothing else
        reads them."""
        d = self.defs.get(v)
        if d is None or d.opcode != "not" or self.def_depth.get(v) != self.depth:
            return None
        x = self.get(d.args[0])
        return None if any(self.const_of([limb]) is not None for limb in x) else x

    def lanewise(self, limb_op, *limbs: list) -> list:
        """[limb_op(x, y, ..) for each limb index], for an op whose limb k reads only limb k of
        its operands: the instructions limb k emits are tagged with lane k (`MInst.lane`)."""
        out = []
        for k, xs in enumerate(zip(*limbs)):
            start = len(self.mf.insts)
            out.append(limb_op(*xs))
            for inst in self.mf.insts[start:]:
                inst.lane = k
        return out

    def chooses_only(self, v: Value) -> bool:
        """v (a comparison's 0/1 value) is read once, as the condition of a `select`."""
        if self.use_count(v) != 1:
            return False
        if not hasattr(self, "_selects"):
            self._selects = {id(o.args[0]) for f in self.module.functions for o in walk_ops(f.body)
                             if o.opcode == "select"}
        return id(v) in self._selects

    def use_count(self, v: Value) -> int:
        """Uses of IR value v in the module (op arguments and block yields)."""
        if not hasattr(self, "_uses"):
            uses: dict[int, int] = {}

            def count(block: Block) -> None:
                for y in block.yields:
                    uses[id(y)] = uses.get(id(y), 0) + 1
                for o in block.ops:
                    for x in o.args:
                        uses[id(x)] = uses.get(id(x), 0) + 1
                    for r in o.regions:
                        count(r)

            for f in self.module.functions:
                count(f.body)
            self._uses = uses
        return self._uses.get(id(v), 0)

    def demanded(self, v: Value, demand: int, width: int, top: bool = True) -> list | None:
        """v's limbs correct in the bits of `demand` (the others arbitrary), selected again
        without the halves of constant shifts and the concat parts that reach no demanded bit;
        None where that saves nothing. Only single-use values selected at the same loop depth
        are selected again (their first selection dies; none moves into a loop)."""
        d = self.defs.get(v)
        if (d is None or self.use_count(v) != 1 or len(d.results) != 1 or v.width != width
                or self.def_depth.get(v) != self.depth):     # not into a loop from outside it
            return None
        if d.opcode in ("xor", "or"):
            parts = [self.demanded(x, demand, width, False) for x in d.args]
            if all(p is None for p in parts):
                return None
            limbs = [p if p is not None else self.get(x) for p, x in zip(parts, d.args)]
            return [self.bitop(self.BITWISE[d.opcode], x, y) for x, y in zip(*limbs)]
        if d.opcode == "concat":
            # a part none of whose bits is demanded is left out (zeros in its place)
            parts, off, saved = [], width, False
            for x in d.args:
                off -= x.width
                if (demand >> off) & ((1 << x.width) - 1):
                    parts.append((x, x.width))
                else:
                    parts.append((None, x.width))
                    saved = True
            return self.concat_limbs(parts, width) if saved else None
        if d.opcode not in ("shr", "shl"):
            return None
        L, full = self.LIMB, (1 << self.LIMB) - 1
        k = d.attrs["by"]
        q, s = divmod(k, L)
        if s == 0 or k >= width:
            return None
        # the operand is needed only in the bits the shift takes to demanded ones: selected
        # again under those ((x ^ (x << 2)) >> 7 under 0x0101..: the inner shift per limb,
        # without the bits it would carry in from the limb below)
        inner_demand = (demand << k if d.opcode == "shr" else demand >> k) & ((1 << width) - 1)
        inner = self.demanded(d.args[0], inner_demand, width, False)
        src = inner if inner is not None else self.get(d.args[0])
        n = nlimbs(width, L)
        out, saved = [], inner is not None
        for j in range(n):
            m = (demand >> (L * j)) & full
            if d.opcode == "shr":
                near, far = j + q, j + q + 1                # far's low bits enter at the top
                near_bits, far_bits = full >> s, full & ~(full >> s)
                near_k, far_k = -s, L - s
            else:
                near, far = j - q, j - q - 1                # far's top bits enter at the bottom
                near_bits, far_bits = full & (full << s), (1 << s) - 1
                near_k, far_k = s, -(L - s)
            x = Imm(0)
            for idx, bits, sh in ((near, near_bits, near_k), (far, far_bits, far_k)):
                if not 0 <= idx < len(src):
                    continue
                if m & bits == 0:
                    saved = saved or not isinstance(src[idx], Imm)
                    continue
                # the bits this part's shift fills are the other part's: not demanded there
                free = m & (far_bits if idx == near else near_bits) == 0
                if free and self.rotation_is_cheaper(sh):
                    # no demanded bit where the shift brings in zeros (or the far limb's
                    # bits): a rotation, which brings in the limb's own bits there, will do
                    x = self.bitop(self.BITWISE["or"], x, self.rotl_limb(src[idx], sh % L))
                    saved = True
                    continue
                loose = self.loose_shift_limb(src[idx], sh) if free else None
                if loose is not None:
                    # the same: any bits where the shift would bring in zeros will do
                    x = self.bitop(self.BITWISE["or"], x, loose)
                    saved = True
                    continue
                x = self.bitop(self.BITWISE["or"], x, self.shift_limb(src[idx], sh))
            out.append(x)
        return out if saved else None

    def slice_field(self, v: Value) -> tuple | None:
        """(x, q, lo, w) when the value v is a bit field of one limb of an IR value x, maybe
        zero-extended: v = zext?(x[lo_x + w - 1 : lo_x]), the field inside limb q of x (a
        register or memory word, not a constant) at bit `lo` of it; None otherwise."""
        d = self.defs.get(v)
        while d is not None and d.opcode == "zext":
            d = self.defs.get(d.args[0])
        if d is None or d.opcode != "slice":
            return None
        w = d.results[0].width
        q, lo = divmod(d.attrs["lo"], self.LIMB)
        limbs = self.get(d.args[0])
        if lo + w > self.LIMB or q >= len(limbs) or isinstance(limbs[q], Imm):
            return None
        return d.args[0], q, lo, w

    def sliced_bit(self, v: Value) -> tuple | None:
        """(limb, j) where the 1-bit value v (or a zext of it) is bit j of a limb (a register or
        memory word, not a constant) of the value it is sliced from; None otherwise."""
        f = self.slice_field(v)
        if f is None or f[3] != 1:
            return None
        return self.get(f[0])[f[1]], f[2]

    def index_field(self, idx: Value) -> tuple | None:
        """(x, q, lo, w, c) when the IR index `idx` is a bit field of one limb plus a constant:
        idx = zext?(x[lo_x + w - 1 : lo_x]) (+ c) (`slice_field`). What a table look-up by a
        field of a state word indexes with (PHOTON's cells, AES's bytes), so the backends can
        move the field straight to the scaled offset (pre-multiplied indices); None for any other
        index."""
        d, c = self.defs.get(idx), 0
        if d is not None and d.opcode == "add":
            consts = [self.const_of(self.get(a)) for a in d.args]
            if consts[0] is None and consts[1] is not None:
                idx, c = d.args[0], consts[1]
            elif consts[1] is None and consts[0] is not None:
                idx, c = d.args[1], consts[0]
            else:
                return None
        f = self.slice_field(idx)
        return None if f is None else (*f, c)

    def loose_shift_limb(self, limb, k: int):
        """A limb shifted by k (left) or -k (right) whose bits where the shift brings in zeros
        may be anything, where the target has a cheaper form than `shift_limb`; else None."""
        return None

    def rotation_is_cheaper(self, k: int) -> bool:
        """Whether rotating a limb left by k (right by -k) costs less than shifting it by k
        (`demanded` takes the rotation where the bits it brings in are not demanded). A
        target with a rotation as cheap as a shift has nothing to gain: no."""
        return False

    def args(self, op: Op) -> list[list]:
        """Each operand of `op` as its limbs."""
        return [self.get(a) for a in op.args]

    def select_call(self, op: Op) -> None:
        callee = self.module.function(op.attrs["callee"])
        self.materialize_pending()
        if self.real_call(op, callee):
            return
        vals: dict = {}
        mems: dict = {}
        for p, a in zip(callee.params, op.args):
            if isinstance(p, Memory):
                mems[p] = self.mems[a] if a in self.mems else self.memory(a)
            else:
                vals[p] = list(self.get(a))
        outer_pending = self.pending
        self.scopes.append((vals, mems))
        self.bind_locals(callee)
        results = self.select_block(callee.body)
        self.materialize_pending()
        self.scopes.pop()
        self.pending = outer_pending
        for r, limbs in zip(op.results, results):
            self.put(r, limbs)

    def memory(self, m: Memory) -> MemBind:
        if m in self.mems:
            return self.mems[m]
        if m.kind == "table" or m.name in self.tables:
            self.used_tables.add(m.name)
            b = MemBind("table", self.stride(m.elem_width), m.elem_width, name=f"{self.prefix}_{m.name}",
                        count=m.length, readonly=True)
            self.mems[m] = b
            return b
        raise SelectError(f"memory @{m.name} is not bound")

    def stride(self, elem_width: int) -> int:
        raise NotImplementedError

    def bind_locals(self, fn: Function) -> None:
        """Frame areas for fn's local memories, zeroed (the IR's rule) unless fn's body writes
        every element before anything reads it (`ir.writes.written_first`)."""
        for m in fn.locals:
            self.bind_local(m, zero=not written_first(self.module, fn.body, m))

    def bind_local(self, m: Memory, zero: bool = True) -> None:
        self.local_count += 1
        name = f"{m.name}.{self.local_count}"
        stride = self.stride(m.elem_width)
        wb = self.LIMB // 8                     # word-aligned: the target's word loads and stores
        size = (stride * m.length + wb - 1) & ~(wb - 1)
        self.mf.locals[name] = size
        self.mems[m] = MemBind("local", stride, m.elem_width, name=name, count=m.length)
        if zero:
            self.zero_local(name, size)

    # --- structured control flow -------------------------------------------------------------
    def select_for(self, op: Op) -> None:
        body = op.regions[0]
        index, *params = body.params
        lo, hi, *inits = [self.get(a) for a in op.args]
        carried = [list(x) for x in inits]
        clo, chi = self.const_of(lo), self.const_of(hi)
        unroll = op.attrs.get("unroll", 1)
        if clo is not None and chi is not None and (unroll == 0 or chi <= clo):
            for i in range(clo, chi):
                self.put(index, self.imm_limbs(i, index.width))
                for p, c in zip(params, carried):
                    self.put(p, c)
                carried = self.select_block(body)
            for r, c in zip(op.results, carried):
                self.put(r, c)
            return
        step = unroll if (clo is not None and chi is not None and unroll > 1 and (chi - clo) % unroll == 0) else 1
        self.materialize_pending()
        sentinel = self.sentinel_counter(op, clo, chi, step)
        counter = self.affine_counter(op, chi, step) if sentinel is None else None
        ends = self.end_offsets(op, clo, chi, step) if sentinel is None and counter is None else None
        # an index whose bounds fit fewer limbs than its width counts in those alone; the limbs
        # above stay zero (an index below hi + step fits them, so the increment cannot wrap)
        k_idx = self.index_limbs(op, step)
        idx = [self.to_reg_fresh(x) for x in lo[:k_idx]] \
            if sentinel is None and counter is None and ends is None else []
        if k_idx < len(hi):
            hi = hi[:k_idx]
        self.index_bounds[index] = max(self.value_bound(op.args[1]) - 1, 0)     # i < hi
        pregs = [[self.to_reg_fresh(x) for x in c] for c in carried]
        if sentinel is not None:
            k, trips = sentinel
            marked = self.bitop(self.BITWISE["or"], pregs[k][0], Imm(1 << trips))
            self.emit("mov", marked, pregs[k][0])
        top, end = self.mf.label("loop"), self.mf.label("done")
        span = None
        if ends is not None and clo == 0 and (self.value_bound(op.args[1]) << ends[0]) >> self.LIMB == 0:
            span = self.end_span(hi, ends[0])           # zero exactly when hi is: the entry test
        if not (clo is not None and chi is not None and clo < chi) and not op.attrs.get("entered"):
            if ends is not None and clo == 0:
                self.branch_if_zero([span] if span is not None else hi, end)
            else:
                self.branch_unless_less(idx or [self.to_reg_fresh(x) for x in lo], hi, end)
        if ends is not None:
            # the index as j = (i - hi) << k, the buffers' bases at their ends (`end_offsets`)
            j, saved_mems = self.end_loop_setup(ends, hi, clo, span)
        # the loop's preheader: targets insert set-up there while selecting the body (e.g.
        # pointers walking `mem[i]`, advanced in `loop_latch`); the anchor is removed after
        loop = LoopInfo(idx, clo, step, self.emit("comment"))
        self.loops.append(loop)
        self.label(top)
        self.depth += 1
        for p, regs in zip(params, pregs):
            self.put(p, list(regs))
        zeros = [Imm(0)] * (nlimbs(index.width, self.LIMB) - len(idx)) if idx else []
        for k in range(step):
            self.put(index, (idx if k == 0 else self.add_imm(idx, k, self.LIMB * len(idx))) + zeros)
            ys = self.select_block(body)
            self.materialize_pending()
            if k + 1 < step:
                for p, y in zip(params, ys):
                    self.put(p, y)
        self.origin, self.origin_loc = "for", op.loc or self.origin_loc
        self.loop_latch(loop)
        self.parallel_copy([r for regs in pregs for r in regs], [y for ys1 in ys for y in ys1])
        if counter is not None:
            self.branch_unless_equal(pregs[counter[0]], counter[1], top)
        elif ends is not None:
            self.end_loop_latch(ends, j, saved_mems, top)
        elif sentinel is None:
            self.increment(idx, step, self.LIMB * len(idx) if zeros else index.width)
            self.branch_if_less(idx, hi, top)
        else:
            # the marker bit reaches bit 0 after the last turn: loop while the value is >= 2.
            # The test's outcome is the turn count's, whatever bits of v are secret: public
            n0 = len(self.mf.insts)
            self.branch_unless_less(pregs[sentinel[0]], [Imm(2)], top)
            for inst in self.mf.insts[n0:]:
                inst.public = True
        self.depth -= 1
        self.loops.pop()
        self.mf.insts.remove(loop.anchor)
        self.label(end)
        for k, (r, regs) in enumerate(zip(op.results, pregs)):
            # the counting value has shifted its own bits out: 0 after the loop
            self.put(r, [Imm(0)] * len(regs) if sentinel is not None and k == sentinel[0] else list(regs))

    def index_limbs(self, op: Op, step: int) -> int:
        """The limbs a counted loop's index needs: those of its bounds, with room for the last
        increment (the index stays below hi + step)."""
        n = nlimbs(op.regions[0].params[0].width, self.LIMB)
        reach = max(self.value_bound(op.args[0]), self.value_bound(op.args[1]) + step - 1)
        return min(n, max(1, nlimbs(reach.bit_length(), self.LIMB)))

    def sentinel_counter(self, op: Op, clo, chi, step: int):
        """A counted loop whose counter the body never reads, carrying a one-limb value v it
        shifts right by one each turn (`v >> 1` is what it yields for v) and reads otherwise only
        as its bit 0 (`v[0]`), with v < 2^trips on entry and trips < LIMB: the loop counts with v
        itself. v gets a marker bit at `trips` before the loop; after turn j the marker is at
        bit trips - j (never bit 0 while v[0] is read), and the loop ends when v, shifted
        trips times, is 1 (v's own bits all shifted out): no counter register, no increment
        (a bit-serial loop over a byte's bits: the hand-written bit-test counter). Returns
        (index of v among the carried values, trips) or None."""
        if clo is None or chi is None or step != 1 or not 0 < chi - clo < self.LIMB:
            return None
        trips = chi - clo
        body = op.regions[0]
        index, *params = body.params
        uses: dict[int, list] = {}
        for o in walk_ops(body):
            for a in o.args:
                if isinstance(a, Value):
                    uses.setdefault(id(a), []).append(o)
        if uses.get(id(index)) or any(id(y) == id(index) for y in body.yields):
            return None
        top_level = {id(o) for o in body.ops}
        for k, (p, y) in enumerate(zip(params, body.yields)):
            if p.width >= self.LIMB or self.value_bound(op.args[2 + k]) >= (1 << trips):
                continue
            d = next((o for o in body.ops if y in o.results), None)
            if d is None or d.opcode != "shr" or d.attrs.get("by") != 1 or d.args[0] is not p:
                continue
            if sum(1 for yy in body.yields if yy is y) != 1 or uses.get(id(y)) \
                    or any(yy is p for yy in body.yields):
                continue
            if all(o is d or (id(o) in top_level and o.opcode == "slice" and o.attrs.get("lo") == 0
                              and o.results[0].width == 1) for o in uses.get(id(p), [])):
                return k, trips
        return None

    def affine_counter(self, op: Op, chi, step: int):
        """A counted loop up to a constant `chi` whose index the body never reads, carrying a
        one-limb value c that it yields as `c + k` or `c - k` (k a constant) and that enters as
        `a + k * lo` modulo 2^w (a a constant, lo the loop's lower bound; `linear_form` proves it,
        e.g. `60 + 15 * n` for `lo = 16 - n` and the step -15): after the last turn c is
        `a + k * chi`, a value it takes at no earlier turn (k's multiples repeat modulo 2^w only
        after more than chi turns), so the loop runs until c is that value: no counter register,
        no increment (a table of round constants in arithmetic progression, turned into that
        value by `ir/passes/affine_tables.py`: Ascon's `sub #15; cmp #60`). A loop with the
        attribute `until` (that pass's statement of c's value after the last turn, where c
        enters as a parameter the calls pass mapped) takes it, when one carried value steps by
        a constant. Returns (index of c among the carried values, final value) or None."""
        if chi is None or step != 1:
            return None
        body = op.regions[0]
        index, *params = body.params
        if any(a is index for o in walk_ops(body) for a in o.args) or any(y is index for y in body.yields):
            return None
        defs_in = {id(r): o for o in body.ops for r in o.results}

        def const_in(v):                        # defined in the body, or before the loop
            d = defs_in.get(id(v))
            if d is not None:
                return d.attrs["value"] if d.opcode == "const" else None
            return self.const_of(self.get(v)) if self.defs.get(v) is not None else None

        stepped = []                            # (k, the step modulo 2^w) of each stepped value
        for k, (p, y) in enumerate(zip(params, body.yields)):
            if p.width > self.LIMB:
                continue
            d = defs_in.get(id(y))
            if d is None or d.opcode not in ("add", "sub") or d.args[0] is not p:
                continue
            kk = const_in(d.args[1])
            if kk is not None:
                stepped.append((k, (-kk if d.opcode == "sub" else kk) & ((1 << p.width) - 1)))
        if "until" in op.attrs and len(stepped) == 1:
            # the pass that made the carried value states where it ends, after the last turn
            # only (its start is a parameter the calls pass mapped: no linear form to read)
            return stepped[0][0], op.attrs["until"]
        for k, kk in stepped:
            w = params[k].width
            m = (1 << w) - 1
            init = self.linear_form(op.args[2 + k])
            ext = self.defs.get(init[2]) if init[2] is not None else None
            if ext is not None and ext.opcode in ("zext", "trunc") and ext.args[0] is op.args[0]:
                lo = (1, 0, init[2])                    # lo, widened or narrowed to w bits
            elif op.args[0].width == w:
                lo = self.linear_form(op.args[0])
            else:
                continue
            if kk == 0 or init[2] is not lo[2] or (init[0] - kk * lo[0]) & m:
                continue
            a = (init[1] - kk * lo[1]) & m              # init == a + kk * lo (mod 2^w)
            period = (1 << w) >> ((kk & -kk).bit_length() - 1)      # 2^w / gcd(k, 2^w)
            if period > chi:
                return k, (a + kk * chi) & m
        return None

    def linear_form(self, v: Value, depth: int = 6):
        """v as (t, e, x) with v == t * x + e modulo 2^width, x an IR value of v's width (None:
        v is the constant e), through constants and add, sub and mul by a constant of that
        width; x is v itself where nothing else is known."""
        d = self.defs.get(v)
        c = self.const_of(self.get(v)) if d is not None else None
        if c is not None:
            return 0, c, None
        if d is None or depth == 0 or d.opcode not in ("add", "sub", "mul") \
                or any(a.width != v.width for a in d.args):
            return 1, 0, v
        f, g = (self.linear_form(a, depth - 1) for a in d.args)
        if d.opcode == "mul":
            if f[2] is not None and g[2] is not None:
                return 1, 0, v
            (t, e, x), c = (f, g[1]) if g[2] is None else (g, f[1])
            return t * c, e * c, x
        if f[2] is not None and g[2] is not None and f[2] is not g[2]:
            return 1, 0, v
        sign = -1 if d.opcode == "sub" else 1
        return f[0] + sign * g[0], f[1] + sign * g[1], f[2] if f[2] is not None else g[2]

    def parallel_copy(self, dsts: list[R], srcs: list) -> None:
        moves = [(d, s) for d, s in zip(dsts, srcs) if d != s]
        dregs = {d.reg for d, _ in moves}
        from .mir import regs_in
        conflict = any(set(regs_in(s)) & dregs for _, s in moves)
        if conflict:
            tmps = [(d, self.to_reg_fresh(s)) for d, s in moves]
            for d, t in tmps:
                self.emit("mov", t, d)
        else:
            for d, s in moves:
                self.emit("mov", s, d)

    def select_if(self, op: Op) -> None:
        c = self.get(op.args[0])
        cc = self.const_of(c)
        if cc is not None:
            ys = self.select_block(op.regions[0] if cc else op.regions[1])
            for r, y in zip(op.results, ys):
                self.put(r, y)
            return
        self.materialize_pending()
        outs = [[R(self.vreg()) for _ in range(nlimbs(r.width, self.LIMB))] for r in op.results]
        els, end = self.mf.label("else"), self.mf.label("endif")
        c, regions = self.if_test(op, c)
        self.branch_if_zero(c, els)
        for k, region in enumerate(regions):
            ys = self.select_block(region)
            self.origin, self.origin_loc = "if", op.loc or self.origin_loc
            self.materialize_pending()
            for o, y in zip(outs, ys):
                for d, s in zip(o, y):
                    self.emit("mov", s, d)
            if k == 0:
                self.emit("jmp", Lbl(end))
                self.label(els)
        self.label(end)
        for r, o in zip(op.results, outs):
            self.put(r, list(o))

    def if_test(self, op: Op, c: list):
        """(the limbs whose zero selects the second region, the regions in emitted order): a
        condition `ne x, 0` tests x itself, and `eq x, 0` too with the regions swapped (the
        comparison's own 0/1 value is then dead code)."""
        d = self.defs.get(op.args[0])
        if d is None or d.opcode not in ("eq", "ne"):
            return c, list(op.regions)
        x, y = d.args
        if self.const_of(self.get(y)) != 0:
            x, y = y, x
            if self.const_of(self.get(y)) != 0:
                return c, list(op.regions)
        regions = list(op.regions)
        return self.get(x), regions if d.opcode == "ne" else regions[::-1]

    def insert_before(self, anchor: MInst, insts: list[MInst]) -> None:
        """Insert instructions before `anchor` (a loop's preheader point)."""
        k = next(i for i, x in enumerate(self.mf.insts) if x is anchor)
        self.mf.insts[k:k] = insts

    def loop_latch(self, loop: "LoopInfo") -> None:
        """Called at the end of a counted loop's body, before the index is incremented."""

    def real_call(self, op: Op, callee: Function) -> bool:
        """A target that emits subroutine calls selects `op` as one here and returns True (the
        callee is then compiled as a function of its own); by default every call is inlined."""
        return False

    # hooks the target implements
    def zero_local(self, name: str, size: int) -> None:
        raise NotImplementedError

    def branch_unless_less(self, a: list, b: list, target: str) -> None:
        raise NotImplementedError

    def branch_if_less(self, a: list, b: list, target: str) -> None:
        raise NotImplementedError

    def branch_unless_equal(self, a: list, value: int, target: str) -> None:
        """Branch to `target` unless the one-limb value a equals the constant `value`."""
        raise NotImplementedError

    def branch_if_zero(self, c: list, target: str) -> None:
        raise NotImplementedError

    def add_imm(self, limbs: list, k: int, width: int) -> list:
        raise NotImplementedError

    def increment(self, regs: list, k: int, width: int) -> None:
        raise NotImplementedError


def _const_bits(sel, v) -> int | None:
    """The value of IR value v if a constant defines it, else None."""
    d = sel.defs.get(v)
    if d is not None and d.opcode == "const":
        return d.attrs["value"] & ((1 << v.width) - 1)
    return None


def frame_local(name: str, offset: int) -> Frame:
    return Frame("local", name, offset)


__all__ = ["SelectorBase", "MemBind", "SelectError", "nlimbs", "fold", "frame_local", "Function"]
