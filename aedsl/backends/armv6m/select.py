"""ARMv6-M instruction selection: IR ops over 32-bit limbs -> Thumb-1 machine IR.

Every value is a list of 32-bit limbs (least significant first, zero-extended in the top limb;
see `common/select_base.py`); 32-bit words are native, wider values are carry chains
(ADDS/ADCS, SUBS/SBCS) and funnel shifts (LSLS/LSRS/ORRS). What Thumb-1 asks for, and where:

- data processing is two-operand and flag-setting on low registers (`eors rd, rm`): the
  selector writes `mov a -> d; eors d, b` and the allocator coalesces the copy away when `a`
  dies; ADDS/SUBS/LSLS/LSRS also have three-operand forms, used directly;
- immediates: ALU instructions take none (except ADDS/SUBS #imm3/#imm8, CMP #imm8, shifts), so
  constants go to registers by MOVS #imm8, MOVS+MVNS/LSLS or a literal-pool LDR (`imm_cost`);
  a constant is materialised once per straight-line region and reused;
- rotates only by register: `rors d, t` with t = 32 - k (a reused constant register);
- byte reversal of a word (the `rev8` of SPECK's and AES's byte orders) is one REV / REV16;
- no unaligned access: a `bytes` block of 4k bytes is read/written as words (LDR/STR + REV)
  when its address is aligned and its count covers it, else through a frame scratch area and a
  byte loop (`_word_block`); other sizes byte by byte (LDRB/STRB gather);
- tables and arrays: `ldr rX, [rT, rI]` with the scaled index in a register, or an immediate
  offset when the index is a constant in range;
- in counted loops: `mem[a*i + c]` (i the loop index, provably without wrap-around) through a
  pointer set up before the loop and advanced per iteration, `ldr rX, [rP, #4c]` (round keys);
  table and frame addresses are loop-invariant, set up once before the outermost loop that
  makes no call (the allocator then keeps them in r8-r12 or a slot, not re-deriving them).
"""
from __future__ import annotations

from aedsl.ir.nodes import Memory, Op
from aedsl.ir.nodes import walk_ops as _walk

from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, MInst, R
from aedsl.codegen.select_base import MemBind, SelectError, SelectorBase, nlimbs
from .target import SP, offset_ok

M32 = 0xFFFFFFFF
LIMB = 32
LOAD = {1: "ldrb", 2: "ldrh", 4: "ldr"}
STORE = {1: "strb", 2: "strh", 4: "str"}


class _Deferred:
    """The limb of a value whose op is selected at its first use (see ArmSelector.select_op)."""
    __slots__ = ("op", "vals", "mems")

    def __init__(self, op: Op, vals: dict, mems: dict):
        self.op, self.vals, self.mems = op, vals, mems


def _is_zero(x) -> bool:
    return isinstance(x, Imm) and (x.value & M32) == 0


class ArmSelector(SelectorBase):
    LIMB = LIMB
    BITWISE = {"xor": "eors", "and": "ands", "or": "orrs"}

    def __init__(self, module, mf, prefix):
        super().__init__(module, mf, prefix)
        self.kcache: dict = {}          # ("k", value) / ("tbl", name) / ("local", name) -> R
        self.defs: dict = {}            # IR value -> defining op (for REV patterns)
        self.calls: set = set()         # names of the functions called (compiled as subroutines)
        self.loop_facts: list = []      # per active counted loop: (hi or None, makes a call)
        self.affine: dict = {}          # vreg -> (loop, a, c): the value is a * index + c

    # --- regions: cached registers are valid only inside the straight-line region -------------
    def select_block(self, block):
        saved = dict(self.kcache)
        try:
            return super().select_block(block)
        finally:
            self.kcache = saved

    def select_op(self, op: Op) -> None:
        for r in op.results:
            self.defs[r] = op
        if self._deferrable(op):
            # Byte extractions and table lookups are selected where they are first used: a
            # T-table round then extracts, looks up and XORs one byte at a time instead of
            # holding four extracted bytes and four lookups at once (register pressure on
            # eight low registers). Forced before stores, regions and calls (pending).
            self.put(op.results[0], [_Deferred(op, self.vals, self.mems)])
            self.pending.append((self.vals, op.results[0], 0))
            return
        handler = self.handler_for(op.opcode)
        if op.opcode in ("concat", "xor", "or", "and") and any(
                isinstance(x, _Deferred) for a in op.args for x in self.vals.get(a, ())):
            # not constant: skip the shared constant folding, which would select every
            # argument first (a concat of four S-box lookups then holds all four at once).
            # Only for these straight-line handlers: others may branch, and an argument first
            # selected after a branch would be defined on one path only.
            if op.loc is not None:
                self.loc = op.loc
            handler(op)
            return
        super().select_op(op)

    def _deferrable(self, op: Op) -> bool:
        if len(op.results) != 1 or op.results[0].width > LIMB:
            return False
        raw = [self.vals.get(a) for a in op.args if not isinstance(a, Memory)]
        if any(x is None for x in raw) or all(all(isinstance(l, Imm) for l in x) for x in raw):
            return False
        if op.opcode == "slice":
            return True
        if op.opcode == "load" and isinstance(op.args[0], Memory):
            b = self.mems.get(op.args[0]) if op.args[0] in self.mems else None
            return op.args[0].kind == "table" or (b is not None and b.kind == "table")
        return False

    def _force(self, d: _Deferred) -> None:
        saved = self.loc
        self.scopes.append((d.vals, d.mems))
        try:
            SelectorBase.select_op(self, d.op)
        finally:
            self.scopes.pop()
            self.loc = saved

    def materialize_pending(self) -> None:
        for vals, v, j in self.pending:
            limbs = vals.get(v)
            if limbs is not None and j < len(limbs) and isinstance(limbs[j], _Deferred):
                self._force(limbs[j])
        super().materialize_pending()

    # --- counted loops: affine indices, walking pointers, hoisted addresses ---------------------
    def select_for(self, op: Op) -> None:
        lo, hi = (self.const_of(self.get(a)) for a in op.args[:2])
        unroll = op.attrs.get("unroll", 1)
        counted = not (lo is not None and hi is not None and (unroll == 0 or hi <= lo))
        if counted:
            calls = any(o.opcode == "call" for r in op.regions for o in _walk(r))
            self.loop_facts.append((hi, calls))
        try:
            super().select_for(op)
        finally:
            if counted:
                self.loop_facts.pop()

    def affine_of(self, limbs: list):
        """(loop, a, c) if the value is a * index + c of an active counted loop."""
        if len(limbs) != 1 or not isinstance(limbs[0], R):
            return None
        for loop in self.loops:
            if len(loop.idx) == 1 and loop.idx[0] == limbs[0]:
                return loop, 1, 0
        a = self.affine.get(limbs[0].reg)
        return a if a is not None and any(a[0] is loop for loop in self.loops) else None

    def note_affine(self, out: list, x: list, mul: int, c: int, width: int) -> None:
        """Record out = mul * x + c when x = a * index + c0 and, over the loop's whole index
        range, the result stays in [0, 2^width): then the wrapped IR value equals the affine one."""
        aff = self.affine_of(x)
        if aff is None or len(out) != 1 or not isinstance(out[0], R) or out[0] == x[0]:
            return
        loop, a0, c0 = aff
        k = next(k for k, lp in enumerate(self.loops) if lp is loop)
        hi = self.loop_facts[k][0]
        if loop.lo is None or hi is None or hi <= loop.lo:
            return
        a, c = a0 * mul, c0 * mul + c
        ends = (a * loop.lo + c, a * (hi - 1) + c)
        if min(ends) >= 0 and max(ends) < (1 << min(width, 32)):
            self.affine[out[0].reg] = (loop, a, c)

    def walker(self, b: MemBind, loop, a: int, c: int):
        """(p, displacement): p walks element a * index + c0 of `b` (set up in the loop's preheader,
        advanced in its latch) and element a * index + c is at p + displacement."""
        walkers = loop.extra.setdefault("walkers", [])
        mn = LOAD[min(b.stride, 4)]
        for key, p, c0 in walkers:
            if key == (b.kind, b.name, b.base, a, b.stride) and offset_ok(mn, (c - c0) * b.stride):
                return p, (c - c0) * b.stride
        p = self.fresh()
        start = (a * loop.lo + c) * b.stride
        d = loop.anchor.depth
        pre = [MInst("addsp", [p, Mem(SP, Frame("local", b.name, 0))], depth=d, loc=self.loc)
               if b.kind == "local" else
               MInst("ldaddr", [p, Lbl(b.name)], depth=d, loc=self.loc) if b.kind == "table" else
               MInst("mov", [R(b.base), p], depth=d, loc=self.loc)]
        pre += self._add_const(p, start, d)
        self.insert_before(loop.anchor, pre)
        walkers.append(((b.kind, b.name, b.base, a, b.stride), p, c))
        return p, 0

    def _add_const(self, p: R, k: int, depth: int) -> list:
        k = ((k + (1 << 31)) & M32) - (1 << 31)
        if k == 0:
            return []
        if 0 < k < 256:
            return [MInst("adds8", [p, Imm(k)], depth=depth, loc=self.loc)]
        if -256 < k < 0:
            return [MInst("subs8", [p, Imm(-k)], depth=depth, loc=self.loc)]
        t = self.fresh()
        return [MInst("mov", [Imm(k & M32), t], depth=depth, loc=self.loc),
                MInst("adds", [p, p, t], depth=depth, loc=self.loc)]

    def loop_latch(self, loop) -> None:
        for key, p, c0 in loop.extra.get("walkers", []):
            delta = key[3] * loop.step * key[4]
            for inst in self._add_const(p, delta, self.depth):
                self.mf.insts.append(inst)

    def hoist_point(self):
        """The preheader anchor of the outermost active loop containing no call, or None."""
        for loop, (_, calls) in zip(self.loops, self.loop_facts):
            if not calls:
                return loop.anchor
        return None

    def get(self, v) -> list:
        """A value's limbs, a deferred op (select_op) selected and a lazy load (a Mem limb, see
        op_load) loaded into a register here."""
        limbs = super().get(v)
        if limbs and isinstance(limbs[0], _Deferred):
            self._force(limbs[0])
            limbs = super().get(v)
        for j, x in enumerate(limbs):
            if isinstance(x, Mem):
                limbs[j] = self.to_reg_fresh(x)
        return limbs

    # --- small helpers ---------------------------------------------------------------------
    def stride(self, elem_width: int) -> int:
        return 1 if elem_width <= 8 else 2 if elem_width <= 16 else 4 * nlimbs(elem_width, 32)

    def fresh(self) -> R:
        return R(self.vreg())

    def const_reg(self, v: int) -> R:
        v &= M32
        key = ("k", v)
        if key not in self.kcache:
            r = self.fresh()
            self.emit("mov", Imm(v), r)
            self.kcache[key] = r
        return self.kcache[key]

    def reg(self, limb) -> R:
        if isinstance(limb, R):
            return limb
        if isinstance(limb, Imm):
            return self.const_reg(limb.value)
        return self.to_reg_fresh(limb)

    def copy(self, limb) -> R:
        if isinstance(limb, Imm):
            return self.to_reg_fresh(Imm(limb.value & M32))
        return self.to_reg_fresh(limb)

    def dp2(self, mn: str, a, b) -> R:
        """d = a (mn) b with the two-operand form."""
        rb = self.reg(b)
        d = self.copy(a)
        self.emit(mn, d, rb)
        return d

    def mask_top(self, limb, bits: int):
        """limb & (2^bits - 1)."""
        if bits >= 32:
            return limb
        if isinstance(limb, Imm):
            return Imm(limb.value & ((1 << bits) - 1))
        if bits <= 0:
            return Imm(0)
        d = self.fresh()
        if bits == 8:
            self.emit("uxtb", d, limb)
        elif bits == 16:
            self.emit("uxth", d, limb)
        else:
            t = self.fresh()
            self.emit("lsls", t, limb, Imm(32 - bits))
            self.emit("lsrs", d, t, Imm(32 - bits))
        return d

    def mask(self, limbs: list, width: int) -> list:
        n = nlimbs(width, LIMB)
        limbs = (list(limbs) + [Imm(0)] * n)[:n]
        r = width % LIMB
        if r:
            limbs[-1] = self.mask_top(limbs[-1], r)
        return limbs

    def bitop(self, mn: str, a, b):
        """One limb of and/or/xor ("ands"/"orrs"/"eors"), folding constants."""
        if isinstance(a, Imm) and isinstance(b, Imm):
            x, y = a.value, b.value
            return Imm({"eors": x ^ y, "ands": x & y, "orrs": x | y}[mn])
        if isinstance(a, Imm):
            a, b = b, a
        if isinstance(b, Imm):
            v = b.value & M32
            if mn in ("eors", "orrs") and v == 0:
                return a
            if mn == "ands":
                if v == 0:
                    return Imm(0)
                if v == M32:
                    return a
                if v & (v + 1) == 0:             # low mask: UXTB/UXTH or a shift pair
                    return self.mask_top(a, v.bit_length())
                if (~v & M32) < 256:             # clear a few low bits: BICS with a small constant
                    return self.dp2("bics", a, Imm(~v & M32))
            if mn == "orrs" and v == M32:
                return Imm(M32)
            if mn == "eors" and v == M32:
                d = self.fresh()
                self.emit("mvns", d, a)
                return d
        return self.dp2(mn, a, b)

    def shl1(self, limb, s: int):
        if isinstance(limb, Imm):
            return Imm((limb.value << s) & M32) if s < 32 else Imm(0)
        if s == 0:
            return limb
        if s >= 32:
            return Imm(0)
        d = self.fresh()
        self.emit("lsls", d, limb, Imm(s))
        return d

    def shr1(self, limb, s: int):
        if isinstance(limb, Imm):
            return Imm((limb.value & M32) >> s) if s < 32 else Imm(0)
        if s == 0:
            return limb
        if s >= 32:
            return Imm(0)
        d = self.fresh()
        self.emit("lsrs", d, limb, Imm(s))
        return d

    def rotl32(self, limb, k: int):
        k %= 32
        if isinstance(limb, Imm):
            v = limb.value & M32
            return Imm(((v << k) | (v >> (32 - k))) & M32 if k else v)
        if k == 0:
            return limb
        t = self.const_reg(32 - k)
        d = self.copy(limb)
        self.emit("rors", d, t)
        return d

    # --- multi-limb shifts and rotations ------------------------------------------------------
    def shl_multi(self, limbs: list, k: int, n_out: int) -> list:
        q, s = divmod(k, LIMB)
        src = [Imm(0)] * q + list(limbs)
        out = []
        for j in range(n_out):
            hi = self.shl1(src[j], s) if j < len(src) else Imm(0)
            lo = self.shr1(src[j - 1], 32 - s) if (s and 0 < j <= len(src)) else Imm(0)
            out.append(self.bitop("orrs", hi, lo))
        return out

    def shr_multi(self, limbs: list, k: int, n_out: int) -> list:
        q, s = divmod(k, LIMB)
        src = list(limbs[q:])
        out = []
        for j in range(n_out):
            lo = self.shr1(src[j], s) if j < len(src) else Imm(0)
            hi = self.shl1(src[j + 1], 32 - s) if (s and j + 1 < len(src)) else Imm(0)
            out.append(self.bitop("orrs", lo, hi))
        return out

    def rotl_multi(self, limbs: list, width: int, k: int) -> list:
        k %= width
        if k == 0:
            return list(limbs)
        n = len(limbs)
        if width == 32:
            return [self.rotl32(limbs[0], k)]
        if width % LIMB:
            a = self.shl_multi(limbs, k, n)
            b = self.shr_multi(limbs, width - k, n)
            return self.mask([self.bitop("orrs", x, y) for x, y in zip(a, b)], width)
        q, s = divmod(k, LIMB)
        x = [limbs[(j - q) % n] for j in range(n)]
        if s == 0:
            return x
        out = []
        for j in range(n):
            out.append(self.bitop("orrs", self.shl1(x[j], s), self.shr1(x[(j - 1) % n], 32 - s)))
        return out

    # --- arithmetic --------------------------------------------------------------------------
    def addsub(self, a: list, b: list, width: int, sub: bool) -> list:
        n = nlimbs(width, LIMB)
        a = (list(a) + [Imm(0)] * n)[:n]
        b = (list(b) + [Imm(0)] * n)[:n]
        if n == 1:
            x, y = a[0], b[0]
            if isinstance(x, Imm) and not sub:
                x, y = y, x
            xr = self.reg(x)
            d = self.fresh()
            if isinstance(y, Imm) and 0 <= (y.value & M32) < 8:
                self.emit("subs" if sub else "adds", d, xr, Imm(y.value & M32))
            elif isinstance(y, Imm) and (y.value & M32) < 256:
                self.emit("mov", xr, d)
                self.emit("subs8" if sub else "adds8", d, Imm(y.value & M32))
            elif isinstance(y, Imm) and (-y.value & M32) < 256 and width == 32:
                self.emit("mov", xr, d)
                self.emit("adds8" if sub else "subs8", d, Imm(-y.value & M32))
            else:
                self.emit("subs" if sub else "adds", d, xr, self.reg(y))
            return self.mask([d], width)
        # registers first: nothing between the ADDS and the ADCS may touch C
        ar = [self.reg(x) for x in a]
        br = [self.reg(x) for x in b]
        d0 = self.fresh()
        self.emit("subs" if sub else "adds", d0, ar[0], br[0])
        out = [d0]
        for j in range(1, n):
            d = self.copy(ar[j])
            self.emit("sbcs" if sub else "adcs", d, br[j])
            out.append(d)
        return self.mask(out, width)

    def add_imm(self, limbs, k, width):
        out = self.addsub(list(limbs), self.imm_limbs(k, width), width, False)
        self.note_affine(out, list(limbs), 1, k, width)
        return out

    def increment(self, regs, k, width):
        if len(regs) == 1 and k < 256:
            self.emit("adds8", regs[0], Imm(k))
            loop_hi = self.loop_facts[-1][0] if self.loops and regs is self.loops[-1].idx else None
            if loop_hi is not None and loop_hi - 1 + k < (1 << width):
                return                      # a counted loop's index never wraps: no mask
            if width < 32:
                m = self.mask_top(regs[0], width)
                self.emit("mov", m, regs[0])
            return
        new = self.add_imm(regs, k, width)
        for r, v in zip(regs, new):
            self.emit("mov", self.reg(v), r)

    def compare_carry(self, a: list, b: list) -> None:
        """C = (a >= b), unsigned, multi-limb."""
        n = max(len(a), len(b))
        a = (list(a) + [Imm(0)] * n)[:n]
        b = (list(b) + [Imm(0)] * n)[:n]
        if n == 1:
            if isinstance(b[0], Imm) and (b[0].value & M32) < 256:
                self.emit("cmpi", self.reg(a[0]), Imm(b[0].value & M32))
            else:
                ra, rb = self.reg(a[0]), self.reg(b[0])
                self.emit("cmp", ra, rb)
            return
        ar = [self.reg(x) for x in a]
        br = [self.reg(x) for x in b]
        self.emit("cmp", ar[0], br[0])
        for j in range(1, n):
            t = self.copy(ar[j])
            self.emit("sbcs", t, br[j])

    def branch_if_less(self, a, b, target):
        self.compare_carry(a, b)
        self.emit("bcc", Lbl(target))

    def branch_unless_less(self, a, b, target):
        self.compare_carry(a, b)
        self.emit("bcs", Lbl(target))

    def branch_if_zero(self, c, target):
        acc = c[0]
        for x in c[1:]:
            acc = self.bitop("orrs", acc, x)
        self.emit("cmpi", self.reg(acc), Imm(0))
        self.emit("beq", Lbl(target))

    def carry_bit(self, invert: bool) -> R:
        """0/1 from the C flag (MOVS #0 keeps C; ADCS adds it)."""
        r = self.fresh()
        self.emit("mov", Imm(0), r)
        self.emit("adcs", r, r)
        if invert:
            return self.dp2("eors", r, Imm(1))
        return r

    # --- op handlers -------------------------------------------------------------------------
    def op_not(self, op):
        (a,) = self.args(op)
        out = []
        for x in a:
            d = self.fresh()
            self.emit("mvns", d, self.reg(x))
            out.append(d)
        self.put(op.results[0], self.mask(out, op.results[0].width))

    def op_neg(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        self.put(op.results[0], self.addsub(self.imm_limbs(0, w), a, w, True))

    def op_add(self, op):
        a, b = self.args(op)
        w = op.results[0].width
        if self.const_of(a) is not None:
            a, b = b, a
        out = self.addsub(a, b, w, False)
        if self.const_of(b) is not None:
            self.note_affine(out, a, 1, self.const_of(b), w)
        self.put(op.results[0], out)

    def op_sub(self, op):
        a, b = self.args(op)
        w = op.results[0].width
        out = self.addsub(a, b, w, True)
        if self.const_of(b) is not None:
            self.note_affine(out, a, 1, -self.const_of(b), w)
        elif self.const_of(a) is not None:
            self.note_affine(out, b, -1, self.const_of(a), w)
        self.put(op.results[0], out)

    def op_mul(self, op):
        a, b = self.args(op)
        w = op.results[0].width
        c = self.const_of(b)
        if c is None and self.const_of(a) is not None:
            a, b, c = b, a, self.const_of(a)
        if w > 32:
            if c is None:
                raise SelectError("multiplication of run-time values wider than 32 bits is not supported "
                                  "by the ARMv6-M selector yet")
            # by a constant: shift-and-add over the constant's set bits
            c &= (1 << w) - 1
            n = nlimbs(w, LIMB)
            acc = None
            for bit in range(w):
                if c >> bit & 1:
                    term = self.shl_multi(a, bit, n)
                    acc = term if acc is None else self.addsub(acc, term, LIMB * n, False)
            self.put(op.results[0], self.mask(acc or self.imm_limbs(0, w), w))
            return
        if c is not None:
            c &= (1 << w) - 1
            if c == 0:
                self.put(op.results[0], [Imm(0)])
                return
            if c & (c - 1) == 0:
                out = self.mask([self.shl1(self.reg(a[0]), c.bit_length() - 1)], w)
                self.note_affine(out, a, c, 0, w)
                self.put(op.results[0], out)
                return
        out = self.mask([self.dp2("muls", a[0], b[0])], w)
        if c is not None:
            self.note_affine(out, a, c, 0, w)
        self.put(op.results[0], out)

    def _divmod(self, op, want_rem: bool):
        a, b = self.args(op)
        w = op.results[0].width
        c = self.const_of(b)
        if c is None or c == 0 or c & (c - 1):
            if w > 32:
                raise SelectError("division wider than 32 bits by a non-power of two is not supported yet")
            q, r = self.divide(a[0], b[0], w)
            self.put(op.results[0], [r if want_rem else q])
            return
        if want_rem:
            self.put(op.results[0], self.mask([self.bitop("ands", x, y) for x, y in
                                               zip(a, self.imm_limbs(c - 1, w))], w))
        else:
            self.put(op.results[0], self.shr_multi(a, c.bit_length() - 1, nlimbs(w, LIMB)))

    def divide(self, a, b, w: int):
        """Restoring division of w-bit values, one quotient bit per turn (Cortex-M0 has no
        divider); b = 0 gives q = 0, r = a (the IR's semantics). Divisors below 2^31."""
        n, d = self.copy(self.reg(a)), self.reg(b)
        q, r, cnt = self.fresh(), self.fresh(), self.fresh()
        top, skip, end = self.mf.label("div"), self.mf.label("divno"), self.mf.label("divend")
        self.emit("mov", Imm(0), q)
        self.emit("mov", n, r)
        self.emit("cmpi", d, Imm(0))
        self.emit("beq", Lbl(end))
        if w < 32:
            self.emit("lsls", n, n, Imm(32 - w))        # the dividend's top bit at bit 31
        self.emit("mov", Imm(0), r)
        self.emit("mov", Imm(w), cnt)
        self.label(top)
        self.emit("adds", n, n, n)                      # C = next dividend bit
        self.emit("adcs", r, r)
        self.emit("adds", q, q, q)
        self.emit("cmp", r, d)
        self.emit("bcc", Lbl(skip))
        self.emit("subs", r, r, d)
        self.emit("adds8", q, Imm(1))
        self.label(skip)
        self.emit("subs8", cnt, Imm(1))
        self.emit("bne", Lbl(top))
        self.label(end)
        return q, r

    def op_udiv(self, op):
        self._divmod(op, False)

    def op_umod(self, op):
        self._divmod(op, True)

    def op_shl(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        out = self.mask(self.shl_multi(a, op.attrs["by"], nlimbs(w, LIMB)), w)
        self.note_affine(out, a, 1 << op.attrs["by"], 0, w)
        self.put(op.results[0], out)

    def op_shr(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        self.put(op.results[0], self.shr_multi(a, op.attrs["by"], nlimbs(w, LIMB)))

    def op_rotl(self, op):
        (a,) = self.args(op)
        self.put(op.results[0], self.rotl_multi(a, op.results[0].width, op.attrs["by"]))

    def op_rotr(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        self.put(op.results[0], self.rotl_multi(a, w, (w - op.attrs["by"] % w) % w))

    def _shift_var(self, op, left: bool):
        a, amt = self.args(op)
        w = op.results[0].width
        if w > 32:
            return self._shift_var_multi(op, left)
        n = self.reg(amt[0])
        big = any(not _is_zero(x) for x in amt[1:]) or op.args[1].width > 8
        if big:
            # LSLS/LSRS by register use only the amount's low byte: clamp larger amounts to 255
            hi = Imm(0)
            for x in amt[1:]:
                hi = self.bitop("orrs", hi, x)
            c = self.copy(n)
            done = self.mf.label("shok")
            if not _is_zero(hi):
                self.emit("cmpi", self.reg(hi), Imm(0))
                setbig = self.mf.label("shbig")
                self.emit("bne", Lbl(setbig))
                self.emit("cmpi", c, Imm(255))
                self.emit("bls", Lbl(done))
                self.label(setbig)
            else:
                self.emit("cmpi", c, Imm(255))
                self.emit("bls", Lbl(done))
            self.emit("mov", Imm(255), c)
            self.label(done)
            n = c
        d = self.copy(self.reg(a[0]))
        self.emit("lslv" if left else "lsrv", d, n)
        self.put(op.results[0], self.mask([d], w))

    def _shift_var_multi(self, op, left: bool):
        """Multi-limb shift by a run-time amount: whole limbs in a loop (32 bits per turn), then a
        funnel shift by the rest (a register shift by 32 gives 0 on ARM, so s = 0 needs no
        special case); an amount >= the width gives 0. The amount is public (a length)."""
        a, amt = self.args(op)
        w = op.results[0].width
        n = nlimbs(w, LIMB)
        self.materialize_pending()
        d = [self.copy(self.reg(x)) for x in self.mask(a, w)]
        c = self.copy(self.reg(amt[0]))
        zero, fun, top, end = (self.mf.label(x) for x in ("shz", "shf", "shl", "she"))
        hi = Imm(0)
        for x in amt[1:]:
            hi = self.bitop("orrs", hi, x)
        if not _is_zero(hi):
            self.emit("cmpi", self.reg(hi), Imm(0))
            self.emit("bne", Lbl(zero))
        self.compare_carry([c], [Imm(w)])
        self.emit("bcs", Lbl(zero))
        self.label(top)
        self.emit("cmpi", c, Imm(32))
        self.emit("bcc", Lbl(fun))
        order = list(reversed(range(n))) if left else list(range(n))
        for j in order:
            src = (j - 1) if left else (j + 1)
            self.emit("mov", d[src] if 0 <= src < n else Imm(0), d[j])
        self.emit("subs8", c, Imm(32))
        self.emit("jmp", Lbl(top))
        self.label(fun)
        t = self.fresh()
        self.emit("mov", Imm(32), t)
        self.emit("subs", t, t, c)                  # 32 - s
        for j in order:
            self.emit("lslv" if left else "lsrv", d[j], c)
            src = (j - 1) if left else (j + 1)
            if 0 <= src < n:
                u = self.copy(d[src])
                self.emit("lsrv" if left else "lslv", u, t)
                self.emit("orrs", d[j], u)
        self.emit("jmp", Lbl(end))
        self.label(zero)
        for x in d:
            self.emit("mov", Imm(0), x)
        self.label(end)
        self.put(op.results[0], self.mask(d, w))

    def op_shl_var(self, op):
        self._shift_var(op, True)

    def op_shr_var(self, op):
        self._shift_var(op, False)

    def op_zext(self, op):
        (a,) = self.args(op)
        n = nlimbs(op.results[0].width, LIMB)
        self.put(op.results[0], (list(a) + [Imm(0)] * n)[:n])

    def op_trunc(self, op):
        (a,) = self.args(op)
        self.put(op.results[0], self.mask(a, op.results[0].width))

    def op_slice(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        lo = op.attrs["lo"]
        q, s = divmod(lo, LIMB)
        if w + s <= LIMB and q < len(a):
            # within one limb: a shift, then a mask only if bits above remain
            t = self.shr1(a[q], s)
            src_bits = min(LIMB, op.args[0].width - LIMB * q)
            self.put(op.results[0], [self.mask_top(t, w) if s + w < src_bits else t])
            return
        out = self.shr_multi(a, lo, nlimbs(w, LIMB))
        if lo + w < op.args[0].width:
            out = self.mask(out, w)
        self.put(op.results[0], out)

    def _byte_reverse(self, op):
        """concat(x[L+7:L], x[L+15:L+8], ...) of 2-4 bytes of one 32-bit limb: REV/REV16."""
        if not 2 <= len(op.args) <= 4 or any(v.width != 8 for v in op.args):
            return None
        srcs = [self.defs.get(v) for v in op.args]
        if any(d is None or d.opcode != "slice" for d in srcs):
            return None
        src = srcs[0].args[0]
        base = srcs[0].attrs["lo"]
        if any(d.args[0] is not src or d.attrs["lo"] != base + 8 * i for i, d in enumerate(srcs)):
            return None
        q, r = divmod(base, LIMB)
        a, nb = r // 8, len(op.args)
        if r % 8 or a + nb > 4:
            return None
        limb = self.get(src)[q]
        if isinstance(limb, Imm):
            return None
        d = self.fresh()
        if nb == 2 and a in (0, 2):
            self.emit("rev16", d, limb)
            return self.mask_top(d, 16) if a == 0 else self.shr1(d, 16)
        self.emit("rev", d, limb)
        d = self.shr1(d, 8 * (4 - a - nb))
        return self.mask_top(d, 8 * nb) if a else d

    def op_concat(self, op):
        w = op.results[0].width
        n = nlimbs(w, LIMB)
        rv = self._byte_reverse(op)
        if rv is not None:
            self.put(op.results[0], [rv])
            return
        out: list = [Imm(0)] * n
        off = w
        for v in op.args:
            off -= v.width
            limbs = self.get(v)
            q, s = divmod(off, LIMB)
            pn = min(n - q, nlimbs(v.width + s, LIMB))
            part = self.shl_multi(limbs, s, pn)
            for j, x in enumerate(part):
                out[q + j] = self.bitop("orrs", out[q + j], x)
        self.put(op.results[0], out)

    def _compare(self, op, kind: str):
        a, b = self.args(op)
        if kind in ("ugt", "ule"):
            a, b = b, a
            kind = {"ugt": "ult", "ule": "uge"}[kind]
        if kind in ("eq", "ne"):
            acc = Imm(0)
            for x, y in zip(a, b):
                acc = self.bitop("orrs", acc, self.bitop("eors", x, y))
            t = self.fresh()
            self.emit("subs", t, self.reg(acc), Imm(1))     # C = (acc >= 1) = (acc != 0)
            self.put(op.results[0], [self.carry_bit(invert=(kind == "eq"))])
            return
        self.compare_carry(a, b)                            # C = a >= b
        self.put(op.results[0], [self.carry_bit(invert=(kind == "ult"))])

    def op_select(self, op):
        c, a, b = self.args(op)
        m = self.fresh()                               # 0 or 1 -> mask 0 or all ones, branch-free
        self.emit("rsbs", m, self.reg(c[0]))
        out = []
        for x, y in zip(a, b):
            diff = self.bitop("eors", x, y)
            out.append(self.bitop("eors", y, self.bitop("ands", diff, m)))
        self.put(op.results[0], out)

    def op_perm(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        n = nlimbs(w, LIMB)
        out: list = [Imm(0)] * n
        for i, dest in enumerate(op.attrs["table"]):
            bit = self.bitop("ands", self.shr1(a[i // LIMB], i % LIMB), Imm(1))
            q, s = divmod(dest, LIMB)
            out[q] = self.bitop("orrs", out[q], self.shl1(bit, s))
        self.put(op.results[0], out)

    # --- memory ------------------------------------------------------------------------------
    def base_reg(self, b: MemBind) -> R:
        """A register holding the address of memory `b`."""
        if b.kind == "ptr":
            return R(b.base)
        key = (b.kind, b.name)
        if key not in self.kcache:
            r = self.fresh()
            inst = (MInst("ldaddr", [r, Lbl(b.name)]) if b.kind == "table" else
                    MInst("addsp", [r, Mem(SP, Frame("local", b.name, 0))]))
            inst.loc = self.loc
            anchor = self.hoist_point()
            if anchor is not None:          # loop-invariant: once, before the loop
                inst.depth = anchor.depth
                self.insert_before(anchor, [inst])
            else:
                inst.depth = self.depth
                self.mf.insts.append(inst)
            self.kcache[key] = r
        return self.kcache[key]

    def access(self, mn: str, rt: R, b: MemBind, offset: int | R, extra: int = 0) -> None:
        """Emit load/store `mn` ("ldr"/"str"/...) of rt at byte `offset` (+ `extra`) of `b`."""
        if isinstance(offset, int):
            disp = offset + extra
            if b.kind == "local" and mn in ("ldr", "str") and disp % 4 == 0:
                self.emit(mn, rt, Mem(SP, Frame("local", b.name, disp)))
                return
            base = self.base_reg(b)
            if offset_ok(mn, disp):
                self.emit(mn, rt, Mem(base.reg, disp))
            else:
                self.emit(mn + "r", rt, base, self.const_reg(disp))
            return
        base = self.base_reg(b)
        if extra:
            a = self.fresh()
            self.emit("adds", a, base, offset)
            self.emit(mn, rt, Mem(a.reg, extra))
        else:
            self.emit(mn + "r", rt, base, offset)

    def scaled_index(self, index: list, stride: int):
        """index * stride as an int (constant index) or a register."""
        c = self.const_of(index)
        if c is not None:
            return c * stride
        i = self.reg(index[0])
        if stride & (stride - 1) == 0:
            return self.shl1(i, stride.bit_length() - 1)
        return self.dp2("muls", i, Imm(stride))

    def walked(self, b: MemBind, index: list):
        """(b', offset) addressing `b[index]` through a loop's walking pointer, or None."""
        aff = self.affine_of(index) if self.const_of(index) is None else None
        if aff is None or aff[0].lo is None or b.kind not in ("ptr", "local", "table"):
            return None
        loop, a, c = aff
        p, disp = self.walker(b, loop, a, c)
        return MemBind("ptr", b.stride, b.elem_width, base=p.reg), disp

    def op_load(self, op):
        mem, idx = op.args
        b = self.memory(mem)
        w = op.results[0].width
        wk = self.walked(b, self.get(idx))
        if wk is not None:
            b, off = wk
        else:
            off = self.scaled_index(self.get(idx), b.stride)
        if b.stride == 4 and isinstance(off, int) and offset_ok("ldr", off) and b.kind != "local":
            # a lazy load: emitted at the first use (get), so a round key is read where it is
            # XORed in, not held in a register (or spilled) across the round
            base = R(b.base) if b.kind == "ptr" else self.base_reg(b)
            self.put(op.results[0], [Mem(base.reg, off)])
            # loaded before any store, and before a loop or `if` (where a first use would
            # leave the register undefined on other paths)
            self.pending.append((self.vals, op.results[0], 0))
            return
        if b.stride <= 4:
            r = self.fresh()
            self.access(LOAD[b.stride], r, b, off)
            self.put(op.results[0], [r])
            return
        if not isinstance(off, int):            # one address for all limbs
            a = self.fresh()
            self.emit("adds", a, self.base_reg(b), off)
            b = MemBind("ptr", b.stride, b.elem_width, base=a.reg)
            off = 0
        limbs = []
        for j in range(nlimbs(w, LIMB)):
            r = self.fresh()
            self.access("ldr", r, b, off, 4 * j)
            limbs.append(r)
        self.put(op.results[0], limbs)

    def op_store(self, op):
        mem, idx, val = op.args
        self.materialize_pending()
        b = self.memory(mem)
        v = self.get(val)
        wk = self.walked(b, self.get(idx))
        if wk is not None:
            b, off = wk
        else:
            off = self.scaled_index(self.get(idx), b.stride)
        if b.stride <= 4:
            self.access(STORE[b.stride], self.reg(v[0]), b, off)
            return
        if not isinstance(off, int):
            a = self.fresh()
            self.emit("adds", a, self.base_reg(b), off)
            b = MemBind("ptr", b.stride, b.elem_width, base=a.reg)
            off = 0
        for j, x in enumerate(v):
            self.access("str", self.reg(x), b, off, 4 * j)

    def op_len(self, op):
        b = self.memory(op.args[0])
        if b.length is not None:
            self.put(op.results[0], list(b.length))
        else:
            self.put(op.results[0], self.imm_limbs(b.count, 32))

    def _byte_base(self, b: MemBind, off: list):
        """(memory, constant byte offset) for byte k at `off` + k: constant offsets stay
        immediate; a run-time offset is added to the base once."""
        c = self.const_of(off)
        if c is not None:
            return b, c
        a = self.fresh()
        self.emit("adds", a, self.base_reg(b), self.reg(off[0]))
        return MemBind("ptr", 1, 8, base=a.reg), 0

    def _load_bytes(self, op, big: bool):
        mem, off, *cnt = op.args
        b = self.memory(mem)
        nbytes = op.attrs["bytes"]
        count = self.get(cnt[0]) if cnt else None
        nb = nbytes
        if count is not None and self.const_of(count) is not None:
            nb, count = min(self.const_of(count), nbytes), None
        if self._word_block(b, nbytes) and (count is not None or nb == nbytes) \
                or self._odd_block(b, nbytes, count):
            return self._load_words(op, b, nbytes, count, big)
        if count is not None and self.PARTIAL_LOOP_MIN <= nbytes <= 32:
            return self._load_partial(op, b, nbytes, count, big)
        bb, c0 = self._byte_base(b, self.get(off))
        n = nlimbs(8 * nbytes, LIMB)
        out: list = [Imm(0)] * n
        for k in range(nb):
            r = self.fresh()
            if count is None:
                self.access("ldrb", r, bb, c0 + k)
            else:
                skip = self.mf.label("nob")
                self.emit("mov", Imm(0), r)
                self.emit("cmpi", self.reg(count[0]), Imm(k + 1))
                self.emit("bcc", Lbl(skip))
                self.access("ldrb", r, bb, c0 + k)
                self.label(skip)
            pos = 8 * (nbytes - 1 - k) if big else 8 * k
            q, s = divmod(pos, LIMB)
            out[q] = self.bitop("orrs", out[q], self.shl1(r, s))
        self.put(op.results[0], out)

    # Partial blocks (a run-time byte count) of PARTIAL_LOOP_MIN bytes or more: the full-block
    # byte code is emitted once, on a pointer that is the buffer itself when count >= nbytes and
    # otherwise the frame scratch area `bytes.tmp`, filled (load) or drained (store) by a byte
    # loop. A count test per byte (12 bytes of code each) becomes one test per block.
    PARTIAL_LOOP_MIN = 4
    SCRATCH = "bytes.tmp"

    def _byte_addr_reg(self, b: MemBind, off: list) -> R:
        """A fresh register holding the address of byte `off` of `b` (free to be redefined)."""
        p = self.fresh()
        c = self.const_of(off)
        if c is None:
            self.emit("adds", p, self.base_reg(b), self.reg(off[0]))
            return p
        self.emit("mov", self.base_reg(b), p)
        if 0 < c < 256:
            self.emit("adds8", p, Imm(c))
        elif c:
            self.emit("adds", p, p, self.const_reg(c))
        return p

    def _scratch(self, nbytes: int) -> int:
        size = (nbytes + 3) & ~3            # word-aligned: SP-relative STR, ADD rd, SP
        self.mf.locals[self.SCRATCH] = max(self.mf.locals.get(self.SCRATCH, 0), size)
        return size

    def _copy_loop(self, count: R, src: R, dst: R, done: str) -> None:
        """dst[i] = src[i] for i < count (down-counting index; branches to `done`)."""
        k = self.fresh()
        self.emit("mov", count, k)
        top = self.mf.label("cpy")
        self.label(top)
        self.emit("subs8", k, Imm(1))
        self.emit("bcc", Lbl(done))
        t = self.fresh()
        self.emit("ldrbr", t, src, k)
        self.emit("strbr", t, dst, k)
        self.emit("jmp", Lbl(top))

    # Word blocks: 8..124 bytes, a multiple of 4, of a pointer buffer. LDR/STR need an aligned
    # address: aligned with the count (if any) covering the block -> the words in place (the
    # steady state: 3 cycles a word instead of 4 a byte); else the block goes through the scratch
    # area (aligned) with the byte loop. Each site then holds one copy of the word code.
    def _word_block(self, b: MemBind, nbytes: int) -> bool:
        return b.kind == "ptr" and b.stride == 1 and nbytes % 4 == 0 and 8 <= nbytes <= 124

    def _clamped_count(self, c: R | None, nbytes: int) -> R:
        """A fresh register = min(c, nbytes) (nbytes if there is no count)."""
        k = self.fresh()
        if c is None:
            self.emit("mov", Imm(nbytes), k)
            return k
        self.emit("mov", c, k)
        ok = self.mf.label("cnt")
        self.emit("cmpi", k, Imm(nbytes))
        self.emit("bcc", Lbl(ok))
        self.emit("mov", Imm(nbytes), k)
        self.label(ok)
        return k

    def _in_place_test(self, addr: R, c: R | None, nbytes: int, slow: str, fast: str | None = None) -> None:
        """Branch to `slow` unless the block is aligned and the count covers it (then to `fast`,
        if given, else fall through)."""
        m3 = self.const_reg(3)
        if c is not None:
            self.emit("cmpi", c, Imm(nbytes))
            self.emit("bcc", Lbl(slow))
        self.emit("tst", addr, m3)
        if fast is None:
            self.emit("bne", Lbl(slow))
        else:
            self.emit("beq", Lbl(fast))

    def _odd_block(self, b: MemBind, nbytes: int, count) -> bool:
        """A partial load of a size that is no multiple of 4 (CCM's 15-byte nonce block, its
        10- and 14-byte first AD blocks): always through the zeroed scratch area, the bytes at
        scratch + (-nbytes mod 4) when big-endian (the leading zeros are the value's top bytes)."""
        return b.kind == "ptr" and b.stride == 1 and nbytes % 4 != 0 and 5 <= nbytes <= 124 \
            and count is not None

    def _load_words(self, op, b: MemBind, nbytes: int, count, big: bool) -> None:
        p = self._byte_addr_reg(b, self.get(op.args[1]))
        c = self.reg(count[0]) if count is not None else None
        lead = (-nbytes) % 4
        size = self._scratch(nbytes + lead)
        slow, words = self.mf.label("bytes"), self.mf.label("words")
        if not lead:
            self._in_place_test(p, c, nbytes, slow, words)
        self.label(slow)
        if c is not None:                   # zero padding past the count
            z = self.fresh()
            self.emit("mov", Imm(0), z)
            for j in range(size // 4):
                self.emit("str", z, Mem(SP, Frame("local", self.SCRATCH, 4 * j)))
        q = self.fresh()
        self.emit("addsp", q, Mem(SP, Frame("local", self.SCRATCH, 0)))
        dst = q
        if lead and big:
            dst = self.fresh()
            self.emit("adds", dst, q, Imm(lead))
        done = self.mf.label("cpyd")
        self._copy_loop(self._clamped_count(c, nbytes), p, dst, done)
        self.label(done)
        self.emit("mov", q, p)
        self.label(words)
        n = (nbytes + lead) // 4
        out = []
        for limb in range(n):               # big-endian: limb q is memory word n-1-q, reversed
            r = self.fresh()
            self.emit("ldr", r, Mem(p.reg, 4 * (n - 1 - limb if big else limb)))
            if big:
                t = self.fresh()
                self.emit("rev", t, r)
                r = t
            out.append(r)
        self.put(op.results[0], out)

    def _store_words(self, op, b: MemBind, v: list, nbytes: int, count, big: bool) -> None:
        n = nbytes // 4
        raw = []                            # memory word j
        for j in range(n):
            limb = n - 1 - j if big else j
            x = self.reg(v[limb] if limb < len(v) else Imm(0))
            if big:
                t = self.fresh()
                self.emit("rev", t, x)
                x = t
            raw.append(x)
        q = self._byte_addr_reg(b, self.get(op.args[1]))
        c = self.reg(count[0]) if count is not None else None
        self._scratch(nbytes)
        slow, done = self.mf.label("bytes"), self.mf.label("stored")
        self._in_place_test(q, c, nbytes, slow)
        for j, x in enumerate(raw):
            self.emit("str", x, Mem(q.reg, 4 * j))
        self.emit("jmp", Lbl(done))
        self.label(slow)
        for j, x in enumerate(raw):
            self.emit("str", x, Mem(SP, Frame("local", self.SCRATCH, 4 * j)))
        p = self.fresh()
        self.emit("addsp", p, Mem(SP, Frame("local", self.SCRATCH, 0)))
        self._copy_loop(self._clamped_count(c, nbytes), p, q, done)
        self.label(done)

    def _load_partial(self, op, b: MemBind, nbytes: int, count: list, big: bool) -> None:
        p = self._byte_addr_reg(b, self.get(op.args[1]))
        c = self.reg(count[0])
        size = self._scratch(nbytes)
        full = self.mf.label("full")
        self.emit("cmpi", c, Imm(nbytes))
        self.emit("bcs", Lbl(full))
        # count < nbytes: the first count bytes into the zeroed scratch area, read from there
        z = self.fresh()
        self.emit("mov", Imm(0), z)
        for j in range(size // 4):
            self.emit("str", z, Mem(SP, Frame("local", self.SCRATCH, 4 * j)))
        q = self.fresh()
        self.emit("addsp", q, Mem(SP, Frame("local", self.SCRATCH, 0)))
        done = self.mf.label("cpyd")
        self._copy_loop(c, p, q, done)
        self.label(done)
        self.emit("mov", q, p)
        self.label(full)
        n = nlimbs(8 * nbytes, LIMB)
        out: list = [Imm(0)] * n
        for k in range(nbytes):
            r = self.fresh()
            self.emit("ldrb", r, Mem(p.reg, k))
            pos = 8 * (nbytes - 1 - k) if big else 8 * k
            qq, s = divmod(pos, LIMB)
            out[qq] = self.bitop("orrs", out[qq], self.shl1(r, s))
        self.put(op.results[0], out)

    def _store_partial(self, op, b: MemBind, v: list, nbytes: int, count: list, big: bool) -> None:
        q = self._byte_addr_reg(b, self.get(op.args[1]))
        c = self.reg(count[0])
        self._scratch(nbytes)
        p = self.fresh()
        self.emit("mov", q, p)
        full = self.mf.label("full")
        self.emit("cmpi", c, Imm(nbytes))
        self.emit("bcs", Lbl(full))
        self.emit("addsp", p, Mem(SP, Frame("local", self.SCRATCH, 0)))   # count < nbytes
        self.label(full)
        for k in range(nbytes):
            pos = 8 * (nbytes - 1 - k) if big else 8 * k
            qq, s = divmod(pos, LIMB)
            src = self.reg(self.shr1(v[qq], s) if qq < len(v) else Imm(0))
            self.emit("strb", src, Mem(p.reg, k))
        done = self.mf.label("cpyd")
        self.emit("cmp", p, q)              # equal: stored in place
        self.emit("beq", Lbl(done))
        self._copy_loop(c, p, q, done)
        self.label(done)

    def op_load_be(self, op):
        self._load_bytes(op, True)

    def op_load_le(self, op):
        self._load_bytes(op, False)

    def _store_bytes(self, op, big: bool):
        mem, off, val, *cnt = op.args
        self.materialize_pending()
        b = self.memory(mem)
        v = self.get(val)
        nbytes = op.attrs["bytes"]
        count = self.get(cnt[0]) if cnt else None
        nb = nbytes
        if count is not None and self.const_of(count) is not None:
            nb, count = min(self.const_of(count), nbytes), None
        if self._word_block(b, nbytes) and (count is not None or nb == nbytes):
            return self._store_words(op, b, v, nbytes, count, big)
        if count is not None and self.PARTIAL_LOOP_MIN <= nbytes <= 32:
            return self._store_partial(op, b, v, nbytes, count, big)
        bb, c0 = self._byte_base(b, self.get(off))
        for k in range(nb):
            pos = 8 * (nbytes - 1 - k) if big else 8 * k
            q, s = divmod(pos, LIMB)
            src = self.reg(self.shr1(v[q], s) if q < len(v) else Imm(0))
            if count is None:
                self.access("strb", src, bb, c0 + k)
            else:
                skip = self.mf.label("nost")
                self.emit("cmpi", self.reg(count[0]), Imm(k + 1))
                self.emit("bcc", Lbl(skip))
                self.access("strb", src, bb, c0 + k)
                self.label(skip)

    def op_store_be(self, op):
        self._store_bytes(op, True)

    def op_store_le(self, op):
        self._store_bytes(op, False)

    # --- subroutine calls --------------------------------------------------------------------
    CALL_BUF = "call.buf"

    def real_call(self, op: Op, callee) -> bool:
        """A call the IR kept (`inline=entries`) becomes BL to the callee compiled once, with the
        convention of exported functions (docs/BACKENDS.md): memory -> pointer, `bytes` ->
        pointer and length, a scalar <= 32 bits by value, a wider one by pointer to its words;
        results through out-pointers. Words go in r0-r3, then the stack (the outgoing-argument
        area at the bottom of this frame). Wide arguments and results live in one scratch area
        of the frame (`call.buf`, sized for the largest call, not zeroed: written before read)."""
        from .backend import call_symbol, entry_params, wide_bytes
        params, results = entry_params(callee)
        words: list = []
        buf_off = 0
        pending_stores = []
        for p, a, ip in zip(callee.params, op.args, params):
            if ip.kind in ("mem", "bytes"):
                b = self.mems[a] if a in self.mems else self.memory(a)
                words.append(self.base_reg(b))
                if ip.kind == "bytes":
                    words.append(self.reg(b.length[0]) if b.length is not None else Imm(b.count))
            elif ip.kind == "word":
                words.append(self.get(a)[0])
            else:
                pending_stores.append((buf_off, self.get(a), wide_bytes(p.width)))
                words.append(("buf", buf_off))
                buf_off += (wide_bytes(p.width) + 3) & ~3
        res_offs = []
        for w in results:
            res_offs.append(buf_off)
            words.append(("buf", buf_off))
            buf_off += (wide_bytes(w) + 3) & ~3
        if buf_off:
            self.mf.locals[self.CALL_BUF] = max(self.mf.locals.get(self.CALL_BUF, 0), buf_off)
        for off, limbs, nbytes in pending_stores:
            for j, x in enumerate(limbs):
                size = min(4, nbytes - 4 * j)
                if size == 4:
                    self.emit("str", self.reg(x), Mem(SP, Frame("local", self.CALL_BUF, off + 4 * j)))
                else:
                    a = self.fresh()
                    self.emit("addsp", a, Mem(SP, Frame("local", self.CALL_BUF, off + 4 * j)))
                    self.emit(STORE[size], self.reg(x), Mem(a.reg, 0))

        def word_value(x):
            if isinstance(x, tuple):
                a = self.fresh()
                self.emit("addsp", a, Mem(SP, Frame("local", self.CALL_BUF, x[1])))
                return a
            return self.reg(x)

        vals = [word_value(x) for x in words]
        self.mf.n_out = max(getattr(self.mf, "n_out", 0), len(vals) - 4)
        for k, v in enumerate(vals[4:]):
            self.emit("str", v, Mem(SP, Frame("out", k)))
        argregs = [R(k) for k in range(min(4, len(vals)))]
        for k, v in enumerate(vals[:4]):
            self.emit("mov", v, argregs[k])
        from .target import CALL_CLOBBERS
        ops = [Lbl(call_symbol(self.module, callee.name))] + argregs + [Imm(0)] * (4 - len(argregs))
        self.emit("bl", *ops, *[R(r) for r in CALL_CLOBBERS])
        self.calls.add(callee.name)
        # cached constants and addresses would have to survive the call in r4-r7 or a spill
        # slot: re-materialising them after it is cheaper
        self.kcache = {}
        outs = []
        for off, w in zip(res_offs, results):
            nbytes = wide_bytes(w)
            limbs = []
            for j in range(nlimbs(w, LIMB)):
                size = min(4, nbytes - 4 * j)
                r = self.fresh()
                if size == 4:
                    self.emit("ldr", r, Mem(SP, Frame("local", self.CALL_BUF, off + 4 * j)))
                else:
                    a = self.fresh()
                    self.emit("addsp", a, Mem(SP, Frame("local", self.CALL_BUF, off + 4 * j)))
                    self.emit(LOAD[size], r, Mem(a.reg, 0))
                limbs.append(r)
            outs.append(self.mask(limbs, w))
        for r, limbs in zip(op.results, outs):
            self.put(r, limbs)
        return True

    # --- frame -------------------------------------------------------------------------------
    def bind_local(self, m) -> None:
        self.local_count += 1
        name = f"{m.name}.{self.local_count}"
        stride = self.stride(m.elem_width)
        size = (stride * m.length + 3) & ~3           # word-aligned: SP-relative LDR/STR
        self.mf.locals[name] = size
        self.mems[m] = MemBind("local", stride, m.elem_width, name=name, count=m.length)
        self.zero_local(name, size)

    def zero_local(self, name: str, size: int) -> None:
        z = self.const_reg(0)
        words = size // 4
        if words <= 8:
            for k in range(words):
                self.emit("str", z, Mem(SP, Frame("local", name, 4 * k)))
            return
        p, c = self.fresh(), self.fresh()
        self.emit("addsp", p, Mem(SP, Frame("local", name, 0)))
        self.emit("mov", Imm(words), c)
        top = self.mf.label("zero")
        self.label(top)
        self.emit("str", z, Mem(p.reg, 0))
        self.emit("adds8", p, Imm(4))
        self.emit("subs8", c, Imm(1))
        self.emit("bne", Lbl(top))


__all__ = ["ArmSelector"]
