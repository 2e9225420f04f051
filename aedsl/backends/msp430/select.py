"""MSP430 instruction selection: IR ops over 16-bit limbs -> MSP430 machine IR.

Every value is a list of 16-bit limbs (least significant first, zero-extended in the top limb;
see `common/select_base.py`). What makes MSP430 code fast, and where it is used here:

- memory and immediate source operands everywhere (`xor @r12, r4`, `xor sbox(r15), r4`,
  `xor #0x1b, r5`); constants of the constant generator (0, 1, 2, 4, 8, -1) cost nothing extra
  (the cost model knows);
- 16-bit rotations by `swpb` plus 1-bit `rla/adc` (left) or `bit #1/rrc` (right) steps, whichever
  is shorter; multi-word rotations by `rla/rlc/.../adc` carry chains for small amounts and by
  per-limb rotate + mask + merge for larger ones, with whole-limb rotations free (renaming);
- shifts by `rlam/rrum #n` on MSP430X (plain `rla` / `clrc; rrc; rra...` on the original CPU);
- two-address form (`mov a, t; xor b, t`) whose copies the allocator coalesces away.
"""
from __future__ import annotations

from aedsl.ir.nodes import Memory, Value

from aedsl.codegen.mir import Frame, Imm, Ind, Lbl, Mem, MInst, R
from aedsl.codegen.select_base import MemBind, SelectError, SelectorBase, nlimbs
from .calls import Msp430Calls
from .accel import Msp430Accel            # accel_start / accel_result (the AES128 module)
from .multiplier import Msp430Multiplier  # MPY16 / MPY32 16x16 -> 32 products
from .target import SP

M16 = 0xFFFF


def _top_mask(width: int) -> int | None:
    r = width % 16
    return None if r == 0 else (1 << r) - 1


class Msp430Selector(Msp430Calls, Msp430Accel, Msp430Multiplier, SelectorBase):
    LIMB = 16
    BITWISE = {"xor": "xor", "and": "and", "or": "bis"}

    def __init__(self, module, mf, prefix, cpux: bool):
        super().__init__(module, mf, prefix)
        self.cpux = cpux
        self.byte_src: dict = {}          # 8-bit slice Value -> (source limbs, limb, byte)
        self.affine: dict = {}            # vreg -> (loop, a, c): a * index + c
        self.walk_regs: set = set()       # walking pointers (candidates for @Rn+)
        self.counted: list = []           # loops whose index may become a down-counter
        self.top_bit_of: dict = {}        # vreg holding (y >> 7) of a byte y -> y's limb
        self.unmasked_of: dict = {}       # byte vreg -> the same value before its `mov.b` mask
        self.offset_of: dict = {}         # vreg = x + c (a 16-bit add of a constant) -> (x, c)

    # --- small helpers ---------------------------------------------------------------------
    def stride(self, elem_width: int) -> int:
        return 1 if elem_width <= 8 else 2 * nlimbs(elem_width, 16)

    def reg(self, limb) -> R:
        """`limb` in a register (a copy only if it is not one already)."""
        if isinstance(limb, R):
            return limb
        return self.to_reg_fresh(limb)

    def copy(self, limb) -> R:
        """A fresh register holding `limb`: the destination of a two-address instruction."""
        return self.to_reg_fresh(limb)

    def as_dst(self, limb):
        """`limb` usable as a (read-only) destination operand (cmp/bit): register or memory."""
        return limb if isinstance(limb, (R, Mem)) else self.reg(limb)

    def mask(self, limbs: list, width: int) -> list:
        m = _top_mask(width)
        limbs = list(limbs[:nlimbs(width, 16)])
        while len(limbs) < nlimbs(width, 16):
            limbs.append(Imm(0))
        if m is not None:
            limbs[-1] = self.and_imm(limbs[-1], m)
        return limbs

    def and_imm(self, limb, m: int):
        m &= M16
        if isinstance(limb, Imm):
            return Imm(limb.value & m)
        if m == M16:
            return limb
        if m == 0:
            return Imm(0)
        d = self.copy(limb)
        if m == 0xFF:
            self.emit("mov.b", d, d)          # clears the upper byte; 1 cycle, no extension word
        else:
            self.emit("and", Imm(m), d)
        return d

    def bitop(self, mn: str, a, b):
        """a (op) b on one limb; mn in xor/and/bis."""
        if isinstance(a, Imm) and isinstance(b, Imm):
            return Imm({"xor": a.value ^ b.value, "and": a.value & b.value, "bis": a.value | b.value}[mn])
        if isinstance(a, Imm):
            a, b = b, a
        if isinstance(b, Imm):
            v = b.value & M16
            if mn in ("xor", "bis") and v == 0:
                return a
            if mn == "and":
                if v <= 0xFF and isinstance(a, R) and a.reg in self.unmasked_of:
                    a = self.unmasked_of[a.reg]      # the mask drops the upper byte anyway
                return self.and_imm(a, v)
            if mn == "bis" and v == M16:
                return Imm(M16)
        if not isinstance(a, R) and isinstance(b, R):
            a, b = b, a
        d = self.copy(a)
        self.emit(mn, b, d)
        return d

    # --- 16-bit rotates and shifts --------------------------------------------------------
    def rotl16(self, limb, s: int):
        """16-bit rotate left by s: the cheapest of s `rla; adc` steps, 16-s `bit #1; rrc` steps,
        or `swpb` and the rest (rotl 8 = swpb)."""
        s %= 16
        if isinstance(limb, Imm):
            v = limb.value
            return Imm(((v << s) | (v >> (16 - s))) & M16 if s else v)
        if s == 0:
            return limb
        plans = [(2 * s, False, s), (2 * (16 - s), False, -(16 - s)), (1 + 2 * abs(s - 8), True, s - 8)]
        _, swap, steps = min(plans, key=lambda p: p[0])
        d = self.copy(limb)
        if swap:
            self.emit("swpb", d)
        for _ in range(max(steps, 0)):
            self.emit("rla", d)
            self.emit("adc", d)
        for _ in range(max(-steps, 0)):
            self.emit("bit", Imm(1), d)     # C = bit 0
            self.emit("rrc", d)
        return d

    def shl16(self, limb, s: int, known_bits: int = 16):
        if isinstance(limb, Imm):
            return Imm((limb.value << s) & M16)
        if s >= 16:
            return Imm(0)
        if s == 0:
            return limb
        d = self.copy(limb)
        if s >= 8:
            if known_bits + 8 > 16:
                self.emit("mov.b", d, d)      # drop the byte that would wrap around
            self.emit("swpb", d)
            s -= 8
        self._left(d, s)
        return d

    def _left(self, d: R, s: int) -> None:
        if self.cpux:
            while s > 0:
                n = min(s, 4)
                self.emit("rlam", Imm(n), d)
                s -= n
        else:
            for _ in range(s):
                self.emit("rla", d)

    def shr16(self, limb, s: int):
        if isinstance(limb, Imm):
            return Imm((limb.value & M16) >> s)
        if s >= 16:
            return Imm(0)
        if s == 0:
            return limb
        d = self.copy(limb)
        if s >= 8:
            self.emit("swpb", d)
            self.emit("mov.b", d, d)
            s -= 8
        if s == 0:
            return d
        if self.cpux:
            while s > 0:
                n = min(s, 4)
                self.emit("rrum", Imm(n), d)
                s -= n
        else:
            self.emit("clrc")
            self.emit("rrc", d)
            for _ in range(s - 1):
                self.emit("rra", d)        # bit 15 is already 0: arithmetic = logical
        return d

    # --- multi-limb shifts and rotations ------------------------------------------------------
    def shr_multi(self, limbs: list, k: int, n_out: int) -> list:
        """limbs >> k, the lowest n_out limbs of the result."""
        q, s = divmod(k, 16)
        src = (list(limbs[q:]) + [Imm(0)] * (n_out + 1))[:n_out + 1]
        if s == 0:
            return src[:n_out]
        if s == 8:
            return self.shr8_limbs(src, n_out)
        chain = self.shift_chain(src, s, left=False)
        if chain is not None:
            return chain[:n_out]
        m = M16 >> s
        rot: dict = {}

        def rotated(j):                      # rotr(src_j, s): its low bits belong to out_j,
            if j not in rot:                 # its high bits to out_{j-1}
                rot[j] = self.rotl16(src[j], 16 - s)
            return rot[j]
        out = []
        for j in range(n_out):
            if _is_zero(src[j + 1]):
                out.append(self.shr16(src[j], s))
                continue
            lo = Imm(0) if _is_zero(src[j]) else self.and_imm(rotated(j), m)
            hi = self.and_imm(rotated(j + 1), M16 ^ m)
            out.append(self.bitop("bis", lo, hi))
        return out

    def shr8_limbs(self, src: list, n_out: int) -> list:
        """(src >> 8), its lowest n_out limbs: swpb every limb, then out_j takes the low byte of
        S_j and the high byte of S_{j+1} by the `xor.b` merge of rotl8_limbs (4n-2 one-cycle
        instructions for n limbs instead of ~7n for per-limb masks). Ascending j, so each copy
        coalesces with the S_j that dies in it."""
        sw = []
        for v in src[:n_out + 1]:
            if isinstance(v, Imm):
                sw.append(Imm(((v.value >> 8) | (v.value << 8)) & M16))
            else:
                t = self.copy(v)
                self.emit("swpb", t)
                sw.append(t)
        out = []
        for j in range(n_out):
            lo, hi = sw[j], sw[j + 1]
            if _is_zero(hi):
                out.append(self.and_imm(lo, 0x00FF))
            elif isinstance(hi, Imm) or isinstance(lo, Imm):
                out.append(self.bitop("bis", self.and_imm(hi, 0xFF00), self.and_imm(lo, 0x00FF)))
            else:
                t = self.copy(lo)               # low byte lo ^ hi (xor.b clears the high), then ^ hi
                self.emit("xor.b", hi, t)
                self.emit("xor", hi, t)
                out.append(t)
        return out

    def shift_chain(self, src: list, s: int, left: bool) -> list | None:
        """A multi-limb shift by s < 16 bits as s carry chains (`clrc; rrc hi; ...; rrc lo` right,
        `rla lo; rlc ...; rlc hi` left: one cycle a limb and step), or None when the per-limb
        funnel (rotate, two masks, merge: ~5 + rotate per limb) is cheaper or the value is short.
        Zero limbs at the far end (where nothing shifts in from) stay out of the chain."""
        live = [j for j, v in enumerate(src) if not _is_zero(v)]
        if not live:
            return list(src)
        lo, hi = live[0], live[-1]
        if left:
            lo, hi = lo, len(src) - 1             # the bits move up into the top limbs
        n = hi - lo + 1
        if n < 4:
            # short values keep the flag-free funnel: a carry chain ties its instructions through
            # the carry flag, which leaves the delay-slot scheduler less to move (CCM's counters)
            return None
        chain = s * (n + (0 if left else 1))
        funnel = n * (5 + min(2 * s, 2 * (16 - s), 1 + 2 * abs(s - 8)))
        if chain >= funnel:
            return None
        d = [self.copy(v) if lo <= j <= hi else v for j, v in enumerate(src)]
        for _ in range(s):
            if left:
                self.emit("rla", d[lo])
                for j in range(lo + 1, hi + 1):
                    self.emit("rlc", d[j])
            else:
                self.emit("clrc")
                for j in range(hi, lo - 1, -1):
                    self.emit("rrc", d[j])
        return d

    def shl_multi(self, limbs: list, k: int, n_out: int, known_bits: int | None = None) -> list:
        """(limbs << k), the lowest n_out limbs (bits beyond them are dropped, not masked).
        known_bits: the value fits in that many bits (lets a shift by 8 be a bare swpb)."""
        q, s = divmod(k, 16)
        src = ([Imm(0)] * q + list(limbs) + [Imm(0)] * n_out)[:n_out]
        if s == 0:
            return src
        chain = self.shift_chain(src, s, left=True)
        if chain is not None:
            return chain
        m = (1 << s) - 1                    # the low s bits of rotl(src_j, s) came from its top
        rot: dict = {}

        def rotated(j):
            if j not in rot:
                rot[j] = self.rotl16(src[j], s)
            return rot[j]
        out = []
        for j in range(n_out):
            carry_in = j > 0 and not _is_zero(src[j - 1]) and not (
                known_bits is not None and j - 1 == q and known_bits + s <= 16)
            if _is_zero(src[j]):
                hi = Imm(0)
            elif j == n_out - 1 or not (j + 1 < n_out):
                kb = known_bits if (known_bits is not None and j == q) else 16
                hi = self.shl16(src[j], s, kb)
            elif j + 1 < n_out and not rot.get(j) and known_bits is not None and known_bits + s <= 16 and j == q:
                hi = self.shl16(src[j], s, known_bits)
            else:
                hi = self.and_imm(rotated(j), M16 ^ m)
            lo = self.and_imm(rotated(j - 1), m) if carry_in else Imm(0)
            out.append(self.bitop("bis", hi, lo))
        return out

    def rotl_multi(self, limbs: list, width: int, k: int) -> list:
        k %= width
        if k == 0:
            return list(limbs)
        n = len(limbs)
        if width % 16:
            a = self.shl_multi(limbs, k, n)
            b = self.shr_multi(limbs, width - k, n)
            return self.mask([self.bitop("bis", x, y) for x, y in zip(a, b)], width)
        if n == 1:
            return [self.rotl16(limbs[0], k)]
        q, s = divmod(k, 16)
        x = [limbs[(j - q) % n] for j in range(n)]
        if s == 0:
            return x
        if s == 8:
            return self.rotl8_limbs(x)
        # carry chains: s steps left of n+1 instructions, or 16-s steps right of n+1
        chain_l, chain_r = s * (n + 1), (16 - s) * (n + 1)
        funnel = n * (3 + min(2 * s, 2 * (16 - s), 1 + 2 * abs(s - 8))) + n
        if min(chain_l, chain_r) <= funnel:
            d = [self.copy(v) for v in x]
            if chain_l <= chain_r:
                for _ in range(s):
                    self.emit("rla", d[0])
                    for j in range(1, n):
                        self.emit("rlc", d[j])
                    self.emit("adc", d[0])
            else:
                # rotate right 16-s, then shift the limbs back by one (rotl s = rotl 16 ∘ rotr (16-s))
                for _ in range(16 - s):
                    self.emit("bit", Imm(1), d[0])
                    for j in reversed(range(n)):
                        self.emit("rrc", d[j])
                d = [d[(j - 1) % n] for j in range(n)]
            return d
        m = (1 << s) - 1
        rot = [self.rotl16(v, s) for v in x]
        out = []
        for j in range(n):
            hi = self.and_imm(rot[j], M16 ^ m)
            lo = self.and_imm(rot[(j - 1) % n], m)
            out.append(self.bitop("bis", hi, lo))
        return out

    def rotl8_limbs(self, x: list) -> list:
        """Rotate a multi-limb value left by 8: swpb every limb, then out_j takes the high byte of
        S_j and the low byte of S_{j-1} by the `xor.b` merge. Emitted in the order that lets the
        allocator coalesce each copy with a dying S (3n+1 instructions, as hand-written code)."""
        n = len(x)
        sw = []
        for v in x:
            if isinstance(v, Imm):
                sw.append(Imm(((v.value >> 8) | (v.value << 8)) & M16))
            else:
                t = self.copy(v)
                self.emit("swpb", t)
                sw.append(t)
        out: list = [None] * n
        for j in list(range(1, n)) + [0]:
            hi, lo = sw[j], sw[j - 1]
            if isinstance(hi, Imm) or isinstance(lo, Imm):
                a = self.and_imm(hi, 0xFF00)
                b = self.and_imm(lo, 0x00FF)
                out[j] = self.bitop("bis", a, b)
                continue
            t = self.copy(lo)                   # t = lo ^ low(lo ^ hi) ^ ... : hi's high, lo's low
            self.emit("xor.b", hi, t)
            self.emit("xor", hi, t)
            out[j] = t
        return out

    # --- arithmetic --------------------------------------------------------------------------
    def addsub(self, a: list, b: list, width: int, mn: str) -> list:
        n = nlimbs(width, 16)
        d = [self.copy(x) for x in a]
        for j in range(n):
            op = mn if j == 0 else mn + "c"
            self.emit(op, b[j], d[j])
        return self.mask(d, width)

    def add_imm(self, limbs: list, k: int, width: int) -> list:
        out = self.addsub(list(limbs), self.imm_limbs(k, width), width, "add")
        self.note_affine(out, limbs, 1, k)
        return out

    # --- word legalization's carry chains (addc / subb, made when word_bits=16) -----------------
    def select_block(self, block):
        # addc/subb need their carry's use count (is the next op its only reader?), so blocks
        # holding them count uses once; unrolled loops select the same block again (cache by id)
        saved = getattr(self, "_chain", None)
        if any(op.opcode in ("addc", "subb") for op in block.ops):
            cache = self.__dict__.setdefault("_use_counts", {})
            if id(block) not in cache:
                nxt = {id(a): b for a, b in zip(block.ops, block.ops[1:])}
                cache[id(block)] = (block, (nxt, _use_counts(block)))
            self._chain = cache[id(block)][1]
        else:
            self._chain = None
        try:
            return super().select_block(block)
        finally:
            self._chain = saved

    def _carry_stays_in_flags(self, op) -> bool:
        """The carry/borrow of `op` (a full 16-bit word) is read only by the next op of the block,
        the same kind of op, as its carry-in: it can stay in C (mov and spill code keep flags)."""
        if self._chain is None or op.results[0].width != 16:
            return False
        following, uses = self._chain
        nxt, c = following.get(id(op)), op.results[1]
        return nxt is not None and nxt.opcode == op.opcode and nxt.args[2] is c and uses.get(id(c), 0) == 1

    def _carry_op(self, op, sub: bool) -> None:
        """x + y + c / x - y - b on one word (width <= 16) -> word, carry / borrow out (u1).
        MSP430's C after SUB/SUBC is NOT borrow, so a borrow enters as C = !b and leaves as !C."""
        x, y, cin = self.args(op)
        w = op.results[0].width
        cx, cy, cc = self.const_of(x), self.const_of(y), self.const_of(cin)
        if cx is not None and cy is not None and cc is not None:
            r = cx - cy - cc if sub else cx + cy + cc
            self.put(op.results[0], [Imm(r & ((1 << w) - 1))])
            self.put(op.results[1], [Imm(int(r < 0) if sub else r >> w)])
            return
        base = "sub" if sub else "add"
        d = self.copy(x[0])
        if cin and cin[0] is _IN_FLAGS:
            # the previous op left its carry in C and nothing since then changed the flags
            assert all(i.mn in ("mov", "mov.b") for i in self.mf.insts[self._flags_at:]), "flags clobbered"
            self.emit(base + "c", y[0], d)
        elif cc == 0:
            self.emit(base, y[0], d)
        elif cc == 1:
            self.emit("clrc" if sub else "setc")
            self.emit(base + "c", y[0], d)
        else:
            if sub:                            # C = (0 - b has no borrow) = !b
                t = R(self.vreg())
                self.emit("clr", t)
                self.emit("cmp", cin[0], t)
            else:                              # C = (c - 1 has no borrow) = c
                self.emit("cmp", Imm(1), self.as_dst(cin[0]))
            self.emit(base + "c", y[0], d)
        if w < 16:
            # a narrow top word: the carry is bit w of the 16-bit result (a borrow sets bits
            # w..15 as the difference is > -2^w), not C
            self.put(op.results[1], [self.and_imm(self.shr16(d, w), 1)])
            self.put(op.results[0], [self.and_imm(d, (1 << w) - 1)])
        elif self._carry_stays_in_flags(op):
            self.put(op.results[0], [d])
            self.put(op.results[1], [_IN_FLAGS])
            self._flags_at = len(self.mf.insts)
        else:
            self.put(op.results[0], [d])
            self.put(op.results[1], [self.carry_to_bit(invert=sub)])   # dead ones: DCE drops them

    def op_addc(self, op):
        self._carry_op(op, sub=False)

    def op_subb(self, op):
        self._carry_op(op, sub=True)

    # --- loop-index arithmetic and walking pointers ------------------------------------------
    def affine_of(self, limbs: list):
        """(loop, a, c) if the value is a * index + c of an active counted loop."""
        if len(limbs) != 1 or not isinstance(limbs[0], R):
            return None
        for loop in self.loops:
            if loop.idx[0] == limbs[0] and len(loop.idx) == 1:
                return loop, 1, 0
        a = self.affine.get(limbs[0].reg)
        return a if a is not None and any(a[0] is loop for loop in self.loops) else None

    def note_affine(self, out: list, x: list, mul: int, c: int, neg_x: bool = False) -> None:
        """Record out = mul * (neg_x ? -x : x) + c when x = a * index + c0 of an active loop."""
        a = self.affine_of(x)
        if a is None or len(out) != 1 or not isinstance(out[0], R) or out[0] == x[0]:
            return
        loop, a0, c0 = a
        if neg_x:
            a0, c0 = -a0, -c0
        self.affine[out[0].reg] = (loop, a0 * mul, c0 * mul + c)

    def walker(self, b: MemBind, loop, sign: int) -> R:
        """A register p = address of element (a * index) of `b` (sign = a), set up in the loop's
        preheader and advanced in its latch: `mem[±i + c]` becomes `c*stride(p)` (and `@p+`)."""
        key = (id(b), sign)
        w = loop.extra.setdefault("walkers", {})
        if key in w:
            return w[key][0]
        p = R(self.vreg())
        start = sign * loop.lo * b.stride
        pre = []
        if b.kind == "ptr":
            pre.append(MInst("mov", [R(b.base), p], depth=self.depth - 1, loc=self.loc))
            if start:
                pre.append(MInst("add", [Imm(start & M16), p], depth=self.depth - 1, loc=self.loc))
        elif b.kind == "local":
            pre.append(MInst("mov", [R(SP), p], depth=self.depth - 1, loc=self.loc))
            if start:
                pre.append(MInst("add", [Imm(start & M16), p], depth=self.depth - 1, loc=self.loc))
        else:
            pre.append(MInst("mov", [Imm(start & M16), p], depth=self.depth - 1, loc=self.loc))
        self.insert_before(loop.anchor, pre)
        w[key] = (p, sign * loop.step * b.stride)
        self.walk_regs.add(p.reg)
        return p

    def loop_latch(self, loop) -> None:
        for p, delta in loop.extra.get("walkers", {}).values():
            self.emit("add", Imm(delta & M16), p)

    def increment(self, regs: list, k: int, width: int) -> None:
        inst = self.emit("add", Imm(k), regs[0])
        for r in regs[1:]:
            self.emit("addc", Imm(0), r)
        if self.loops and regs is self.loops[-1].idx and len(regs) == 1:
            self.loops[-1].extra["inc"] = inst

    def carry_of_sub(self, a: list, b: list) -> None:
        """Set C = (a >= b) (unsigned, multi-limb)."""
        self.emit("cmp", b[0], self.as_dst(a[0]))
        for j in range(1, len(a)):
            t = self.copy(a[j])
            self.emit("subc", b[j], t)

    def branch_if_less(self, a, b, target):
        n0 = len(self.mf.insts)
        self.carry_of_sub(a, b)
        jump = self.emit("jnc", Lbl(target))
        loop = self.loops[-1] if self.loops else None
        if (loop is not None and a is loop.idx and "inc" in loop.extra and loop.lo is not None
                and self.const_of(b) is not None and len(self.mf.insts) == n0 + 2):
            trips = (self.const_of(b) - loop.lo) // loop.step
            if trips > 0 and loop.lo + trips * loop.step == self.const_of(b):
                self.counted.append((loop.idx[0].reg, loop.extra["inc"], self.mf.insts[n0], jump, trips))

    def branch_unless_less(self, a, b, target):
        self.carry_of_sub(a, b)
        self.emit("jc", Lbl(target))

    def branch_if_zero(self, c, target):
        acc = c[0]
        for x in c[1:]:
            acc = self.bitop("bis", acc, x)
        self.emit("tst", self.as_dst(acc))
        self.emit("jz", Lbl(target))

    def carry_to_bit(self, invert: bool) -> R:
        r = R(self.vreg())
        self.emit("clr", r)           # mov #0: keeps the flags
        self.emit("adc", r)
        if invert:
            self.emit("xor", Imm(1), r)
        return r

    # --- op handlers -------------------------------------------------------------------------
    def op_not(self, op):
        (a,) = self.args(op)
        out = []
        for x in a:
            d = self.copy(x)
            self.emit("inv", d)
            out.append(d)
        self.put(op.results[0], self.mask(out, op.results[0].width))

    def op_neg(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        smear = self.byte_sign_smear(a, w)
        self.put(op.results[0], smear or self.addsub(self.imm_limbs(0, w), a, w, "sub"))

    def byte_sign_smear(self, b: list, w: int) -> list | None:
        """0 - (y >> 7) for a byte y (xtime's reduction mask, 0xFF or 0): `sxt` copies bit 7 into
        the upper byte and `swpb` brings it down, 4 one-cycle words instead of the shift pair and
        the subtraction. None if b is not such a top bit."""
        if w != 8 or len(b) != 1 or not isinstance(b[0], R) or b[0].reg not in self.top_bit_of:
            return None
        d = self.copy(self.top_bit_of[b[0].reg])
        self.emit("sxt", d)
        self.emit("swpb", d)
        out = self.mask([d], 8)
        self.unmasked_of[out[0].reg] = d
        return out

    def op_add(self, op):
        a, b = self.args(op)
        if self.const_of(a) is not None:
            a, b = b, a
        out = self.addsub(a, b, op.results[0].width, "add")
        if self.const_of(b) is not None:
            self.note_affine(out, a, 1, self.const_of(b))
            if len(out) == 1 and isinstance(out[0], R) and isinstance(a[0], R) and out[0] != a[0]:
                self.offset_of[out[0].reg] = (a[0], self.const_of(b))   # for elem_addr
        self.put(op.results[0], out)

    def op_sub(self, op):
        a, b = self.args(op)
        if self.const_of(a) == 0:
            smear = self.byte_sign_smear(b, op.results[0].width)
            if smear is not None:
                self.put(op.results[0], smear)
                return
        out = self.addsub(a, b, op.results[0].width, "sub")
        if self.const_of(b) is not None:
            self.note_affine(out, a, 1, -self.const_of(b))
        elif self.const_of(a) is not None:
            self.note_affine(out, b, 1, self.const_of(a), neg_x=True)
        self.put(op.results[0], out)

    def configure_accel(self, chip, schedule: str) -> None:
        """The backend hands the chip over here; the multiplier is a chip peripheral too."""
        super().configure_accel(chip, schedule)
        self.configure_multiplier(chip)

    def op_mul(self, op):
        a, b = self.args(op)
        w = op.results[0].width
        c = self.const_of(b)
        if c is None and self.const_of(a) is not None:
            c, a = self.const_of(a), b
        if c is None:
            self.put(op.results[0], self.mask(self.mul_runtime(a, b, nlimbs(w, 16)), w))
            return
        c &= (1 << w) - 1
        acc = self.imm_limbs(0, w)
        n = nlimbs(w, 16)
        first = True
        for bit in range(w):
            if c >> bit & 1:
                term = self.shl_multi(a, bit, n)
                acc = term if first else self.addsub(acc, term, 16 * n, "add")
                first = False
        self.put(op.results[0], self.mask(acc, w))

    def op_umulh(self, op):
        """The high half of a W x W -> 2W product (word legalization's schoolbook, W <= 16):
        the 32-bit product of the two one-limb operands, shifted right by W."""
        a, b = self.args(op)
        w = op.results[0].width
        ca, cb = self.const_of(a), self.const_of(b)
        if ca is not None and cb is not None:
            self.put(op.results[0], [Imm((ca * cb) >> w)])
            return
        self.put(op.results[0], self.mask(self.shr_multi(self.mul_runtime(a, b, 2), w, 1), w))

    def mul_runtime(self, a: list, b: list, n: int) -> list:
        """The low n limbs of a * b, both run-time values. Known-zero top limbs (a zero-extended
        u16 is [x, #0]) are dropped first, so `(x as u32) * (y as u32)` is one 16x16 -> 32 multiply.
        Wider operands: schoolbook over 16-bit limbs, partial products i + j < n only."""
        a = self._significant(a)
        b = self._significant(b)
        if not a or not b:
            return [Imm(0)] * n
        if not self.has_hw_mul():
            if n == 1:
                return [self.mul16(a[0], b[0])]
            # no multiplier: shift-and-add over the whole width (b's bits, a shifted)
            return self.mul_shift_add(a, b, n)
        acc = None
        for i in range(len(a)):
            for j in range(len(b)):
                k = i + j
                if k >= n:
                    continue
                part = self.hw_mul16x16(a[i], b[j], want_hi=k + 1 < n)
                term = ([Imm(0)] * k + part + [Imm(0)] * n)[:n]
                acc = term if acc is None else self.addsub(acc, term, 16 * n, "add")
        return acc

    def _significant(self, limbs: list) -> list:
        limbs = list(limbs)
        while limbs and self.imm_zero(limbs[-1]):
            limbs.pop()
        return limbs

    def mul_shift_add(self, a: list, b: list, n: int) -> list:
        """a * b mod 2^(16n) without a multiplier: for each of b's bits (a run-time loop over its
        limbs, LSB first) add a and double it. Slow, but only for chips that have no MPY."""
        x = [self.copy(l) for l in (list(a) + [Imm(0)] * n)[:n]]
        r = [R(self.vreg()) for _ in range(n)]
        for d in r:
            self.emit("clr", d)
        for limb in b:
            y = self.copy(limb)
            top, skip = self.mf.label("mulw"), self.mf.label("mulwskip")
            cnt = R(self.vreg())
            self.emit("mov", Imm(16), cnt)
            self.label(top)
            self.emit("clrc")
            self.emit("rrc", y)
            self.emit("jnc", Lbl(skip))
            for t, (d, s) in enumerate(zip(r, x)):
                self.emit("add" if t == 0 else "addc", s, d)
            self.label(skip)
            self.emit("rla", x[0])
            for s in x[1:]:
                self.emit("rlc", s)
            self.emit("sub", Imm(1), cnt)
            self.emit("jnz", Lbl(top))
        return r

    def mul16(self, a, b) -> R:
        """16 x 16 -> 16 by a shift-and-add loop (chips without a multiplier)."""
        x, y, r = self.copy(a), self.copy(b), R(self.vreg())
        self.emit("clr", r)
        top, skip, end = self.mf.label("mul"), self.mf.label("mulskip"), self.mf.label("muldone")
        self.emit("tst", y)
        self.emit("jz", Lbl(end))
        self.label(top)
        self.emit("clrc")
        self.emit("rrc", y)
        self.emit("jnc", Lbl(skip))
        self.emit("add", x, r)
        self.label(skip)
        self.emit("rla", x)
        self.emit("tst", y)
        self.emit("jnz", Lbl(top))
        self.label(end)
        return r

    def _divmod(self, op, want_rem: bool):
        a, b = self.args(op)
        w = op.results[0].width
        c = self.const_of(b)
        if c is not None and c and c & (c - 1) == 0:
            k = c.bit_length() - 1
            if want_rem:
                self.put(op.results[0], self.mask([self.bitop("and", x, y) for x, y in
                                                   zip(a, self.imm_limbs(c - 1, w))], w))
            else:
                self.put(op.results[0], self.shr_multi(a, k, nlimbs(w, 16)))
            return
        if w > 16:
            raise SelectError("division wider than 16 bits by a non-power of two is not supported yet")
        q, r = self.div16(a[0], b[0])
        self.put(op.results[0], [r if want_rem else q])

    def div16(self, a, b):
        """Restoring division, 16 iterations; b = 0 gives q = 0, r = a (the IR's semantics)."""
        n, d, q, r, cnt = self.copy(a), self.reg(b), R(self.vreg()), R(self.vreg()), R(self.vreg())
        zero, end, top, nos = (self.mf.label(x) for x in ("divz", "divend", "div", "divno"))
        self.emit("clr", q)
        self.emit("mov", n, r)
        self.emit("tst", d)
        self.emit("jz", Lbl(end))
        self.emit("clr", r)
        self.emit("mov", Imm(16), cnt)
        self.label(top)
        self.emit("rla", n)
        self.emit("rlc", r)
        self.emit("rla", q)
        self.emit("cmp", d, r)
        self.emit("jnc", Lbl(nos))
        self.emit("sub", d, r)
        self.emit("inc", q)
        self.label(nos)
        self.emit("dec", cnt)
        self.emit("jnz", Lbl(top))
        self.label(end)
        del zero
        return q, r

    def op_udiv(self, op):
        self._divmod(op, False)

    def op_umod(self, op):
        self._divmod(op, True)

    def op_shl(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        if w == 8 and op.attrs["by"] == 1 and isinstance(a[0], (R, Mem)):
            d = self.copy(a[0])
            self.emit("rla.b", d)            # add.b d, d: the shift and the byte mask in one
            self.put(op.results[0], [d])
            return
        out = self.mask(self.shl_multi(a, op.attrs["by"], nlimbs(w, 16)), w)
        self.note_affine(out, a, 1 << op.attrs["by"], 0)
        self.put(op.results[0], out)

    def op_shr(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        out = self.shr_multi(a, op.attrs["by"], nlimbs(w, 16))
        if op.args[0].width == 8 and op.attrs["by"] == 7 and isinstance(out[0], R) and isinstance(a[0], R):
            self.top_bit_of[out[0].reg] = a[0]
        self.put(op.results[0], out)

    def op_rotl(self, op):
        (a,) = self.args(op)
        self.put(op.results[0], self.rotl_multi(a, op.results[0].width, op.attrs["by"]))

    def op_rotr(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        self.put(op.results[0], self.rotl_multi(a, w, (w - op.attrs["by"] % w) % w))

    def _shift_var(self, op, left: bool):
        """Shift by a run-time amount (a >= width gives 0): on a multi-limb value first whole
        limbs while 16 or more remain (n moves per step instead of 16 bit-steps of n rotates:
        OCB3's nonce and Stretch shifts by up to 120 bits), then one bit per loop iteration."""
        a, amt = self.args(op)
        w = op.results[0].width
        self.materialize_pending()
        d = [self.copy(x) for x in self.mask(a, w)]
        c = self.copy(amt[0])
        big, end, top = self.mf.label("shbig"), self.mf.label("shend"), self.mf.label("sh")
        hi = Imm(0)
        for x in amt[1:]:
            hi = self.bitop("bis", hi, x)
        if not _is_zero(hi):
            self.emit("tst", self.as_dst(hi))
            self.emit("jnz", Lbl(big))
        self.emit("cmp", Imm(w), c)
        self.emit("jc", Lbl(big))
        if len(d) > 1:
            limbs, bits = self.mf.label("shlimb"), self.mf.label("shbits")
            self.label(limbs)
            self.emit("cmp", Imm(16), c)
            self.emit("jnc", Lbl(bits))          # c < 16
            order = range(len(d) - 1, 0, -1) if left else range(len(d) - 1)
            for j in order:
                self.emit("mov", d[j - 1] if left else d[j + 1], d[j])
            self.emit("clr", d[0] if left else d[-1])
            self.emit("sub", Imm(16), c)
            self.emit("jmp", Lbl(limbs))
            self.label(bits)
        self.emit("tst", c)
        self.emit("jz", Lbl(end))
        self.label(top)
        if left:
            self.emit("rla", d[0])
            for x in d[1:]:
                self.emit("rlc", x)
        else:
            self.emit("clrc")
            for x in reversed(d):
                self.emit("rrc", x)
        self.emit("dec", c)
        self.emit("jnz", Lbl(top))
        self.emit("jmp", Lbl(end))
        self.label(big)
        for x in d:
            self.emit("clr", x)
        self.label(end)
        self.put(op.results[0], self.mask(d, w))

    def op_shl_var(self, op):
        self._shift_var(op, True)

    def op_shr_var(self, op):
        self._shift_var(op, False)

    def op_zext(self, op):
        (a,) = self.args(op)
        n = nlimbs(op.results[0].width, 16)
        self.put(op.results[0], (list(a) + [Imm(0)] * n)[:n])

    def op_trunc(self, op):
        (a,) = self.args(op)
        self.put(op.results[0], self.mask(a, op.results[0].width))

    def op_slice(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        lo = op.attrs["lo"]
        src_w = op.args[0].width
        if w == 8 and lo % 8 == 0:
            # remember where the byte came from: a later concat (rev8, byte gathers) places it
            # straight from its source limb (swpb / byte operations) instead of shift + mask
            self.byte_src[op.results[0]] = (a, lo // 16, (lo % 16) // 8)
        out = self.shr_multi(a, lo, nlimbs(w, 16))
        # mask only when bits above the slice can be set
        if lo + w < src_w:
            out = self.mask(out, w)
        self.put(op.results[0], out)

    def op_concat(self, op):
        w = op.results[0].width
        if all(v.width == 8 for v in op.args) and any(v in self.byte_src for v in op.args):
            return self.put(op.results[0], self.gather_bytes(op.args, w))
        n = nlimbs(w, 16)
        out: list = [Imm(0)] * n
        off = w
        for v in op.args:
            off -= v.width
            limbs = self.get(v)
            q, s = divmod(off, 16)
            pn = min(n - q, nlimbs(v.width + s, 16))
            part = self.shl_multi(limbs, s, pn, known_bits=v.width if v.width <= 16 else None)
            for j, x in enumerate(part):
                out[q + j] = self.bitop("bis", out[q + j], x)
        self.put(op.results[0], out)

    # --- byte gathers (rev8, byte permutations) -----------------------------------------------
    def gather_bytes(self, args: list, width: int) -> list:
        """concat of bytes, each either a slice of a wider value (its source limb and byte) or a
        zero-extended 8-bit value: every output limb is built from its two source bytes by a
        copy, a `swpb` (shared per source limb), `mov.b`, or the `xor.b` byte merge."""
        srcs = []                              # (limbs list, limb index, byte index, high byte zero)
        for v in reversed(args):               # least significant byte first
            if v in self.byte_src:
                limbs, j, b = self.byte_src[v]
                srcs.append((limbs, j, b, False))
            else:
                srcs.append((self.get(v), 0, 0, True))
        swapped: dict = {}

        def operand(s):
            return s[0][s[1]] if s[1] < len(s[0]) else Imm(0)

        # a register's swapped copy is also shared with the other gathers of the basic block
        # (legalized code builds each word of `z >> 8` by its own concat: one swpb per limb,
        # not two); reset at labels, like the scaled indices
        block_swaps = self.__dict__.setdefault("swap_memo", {})

        def swap(s):
            key = (id(s[0]), s[1])
            if key not in swapped:
                x = operand(s)
                if isinstance(x, Imm):
                    swapped[key] = Imm(((x.value >> 8) | (x.value << 8)) & M16)
                elif isinstance(x, R) and x.reg in block_swaps:
                    swapped[key] = block_swaps[x.reg]
                else:
                    t = self.copy(x)
                    self.emit("swpb", t)
                    swapped[key] = t
                    if isinstance(x, R):
                        block_swaps[x.reg] = t
            return swapped[key]

        def in_place(s, pos):
            """An operand whose byte `pos` is the source byte."""
            return operand(s) if s[2] == pos else swap(s)

        def byte_operand(s):
            """A byte-instruction source operand reading the source byte."""
            x = operand(s)
            if isinstance(x, Imm):
                return Imm((x.value >> (8 * s[2])) & 0xFF)
            if isinstance(x, Ind):
                x = Mem(x.reg, 0)
            if isinstance(x, Mem):
                return Mem(x.base, _disp_add(x.disp, s[2])) if s[2] else _cheap_src(x)
            return in_place(s, 0)

        def low_zx(s):
            x = byte_operand(s)
            if isinstance(x, Imm):
                return x
            if s[3] and s[2] == 0 and isinstance(x, R):
                return x
            t = R(self.vreg())
            self.emit("mov.b", x, t)
            return t

        out = []
        for k in range(nlimbs(width, 16)):
            lo = srcs[2 * k] if 2 * k < len(srcs) else None
            hi = srcs[2 * k + 1] if 2 * k + 1 < len(srcs) else None
            if hi is None:
                out.append(low_zx(lo))
                continue
            same = operand(lo) is operand(hi) or (lo[0] is hi[0] and lo[1] == hi[1])
            if same and (lo[2], hi[2]) == (0, 1):
                out.append(operand(lo))
            elif same and (lo[2], hi[2]) == (1, 0):
                out.append(swap(lo))
            elif isinstance(operand(hi), Imm) or isinstance(operand(lo), Imm):
                h = operand(hi)
                hv = ((h.value >> (8 * hi[2])) & 0xFF) << 8 if isinstance(h, Imm) else None
                if hv is not None:
                    out.append(self.bitop("bis", low_zx(lo), Imm(hv)))
                else:
                    x = self.and_imm(in_place(hi, 1), 0xFF00)
                    out.append(self.bitop("bis", x, low_zx(lo)))
            elif hi[3]:                      # zero-extended byte: swpb leaves the low byte 0
                x = self.copy(operand(hi))
                self.emit("swpb", x)
                self.emit("bis", operand(lo) if lo[3] else low_zx(lo), x)
                out.append(x)
            else:
                # merge: t = X ^ low(X ^ Y) keeps X's high byte and takes Y's low byte
                x = in_place(hi, 1)
                t = self.copy(x)
                self.emit("xor.b", byte_operand(lo), t)
                self.emit("xor", x, t)
                out.append(t)
        return out

    def _compare(self, op, kind: str):
        a, b = self.args(op)
        if kind in ("ugt", "ule"):
            a, b = b, a
            kind = {"ugt": "ult", "ule": "uge"}[kind]
        if kind in ("eq", "ne"):
            acc = Imm(0)
            for x, y in zip(a, b):
                acc = self.bitop("bis", acc, self.bitop("xor", x, y))
            t = self.copy(acc)
            self.emit("sub", Imm(1), t)        # borrow (C = 0) iff acc == 0
            self.put(op.results[0], [self.carry_to_bit(invert=(kind == "eq"))])
            return
        a = list(a)
        if isinstance(a[0], Imm):
            a[0] = self.reg(a[0])
        self.carry_of_sub(a, b)                 # C = a >= b
        self.put(op.results[0], [self.carry_to_bit(invert=(kind == "ult"))])

    def op_select(self, op):
        c, a, b = self.args(op)
        m = self.copy(c[0])                  # 0 or 1 -> mask 0 or 0xFFFF, branch-free
        self.emit("inv", m)
        self.emit("inc", m)
        out = []
        for x, y in zip(a, b):
            diff = self.bitop("xor", x, y)
            out.append(self.bitop("xor", y, self.bitop("and", diff, m)))
        self.put(op.results[0], out)

    def op_perm(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        n = nlimbs(w, 16)
        out: list = [Imm(0)] * n
        for i, dest in enumerate(op.attrs["table"]):
            bit = self.bitop("and", a[i // 16], Imm(1 << (i % 16)))     # input bit i, at i % 16
            if dest >= i % 16:
                moved = self.shl_multi([bit], dest - i % 16, n)
            else:
                moved = self.shr_multi([bit], i % 16 - dest, n)
            for j, x in enumerate(moved):
                out[j] = self.bitop("bis", out[j], x)
        self.put(op.results[0], out)

    # --- memory ------------------------------------------------------------------------------
    def elem_addr(self, b: MemBind, index: list, limb_off: int):
        """Operand of byte `limb_off` of element `index` of memory `b` (Mem or Ind)."""
        c = self.const_of(index)
        if c is not None:
            off = c * b.stride + limb_off
            if b.kind == "ptr":
                return Mem(b.base, off)
            if b.kind == "table":
                return Mem(None, f"{b.name}+{off}" if off else b.name)
            return Mem(SP, Frame("local", b.name, off))
        aff = self.affine_of(index)
        if aff is not None and aff[0].lo is not None and b.kind in ("ptr", "local", "table"):
            loop, sign, c = aff
            p = self.walker(b, loop, sign)
            off = c * b.stride + limb_off
            if b.kind == "ptr":
                return Mem(p.reg, off)
            if b.kind == "table":
                return Mem(p.reg, f"{b.name}+{off}" if off else b.name)
            return Mem(p.reg, Frame("local", b.name, off))
        # index = x + c (word j of a wide element u: 8*u + j): the address of element x, shared
        # by the words, and c in the displacement (`xor 2j(rb), z` instead of an address each)
        idx, extra = index[0], 0
        if isinstance(idx, R) and idx.reg in self.offset_of:
            idx, extra = self.offset_of[idx.reg]
        off = extra * b.stride + limb_off
        # a table's scaled index is only read (shared); ptr/local ones get the base added
        if b.kind == "table":
            t = self.scaled(idx, b.stride)
            return Mem(t.reg, f"{b.name}+{off}" if off else b.name)
        memo = self.__dict__.setdefault("scaled_memo", {})
        key = (idx.reg, b.stride, id(b)) if isinstance(idx, R) else None
        t = memo.get(key) if key is not None else None
        if t is None:
            t = self._scaled(idx, b.stride)
            self.emit("add", R(b.base) if b.kind == "ptr" else R(SP), t)
            if key is not None:
                memo[key] = t
        if b.kind == "ptr":
            return Mem(t.reg, off)
        return Mem(t.reg, Frame("local", b.name, off))

    def label(self, name: str) -> None:
        self.scaled_memo = {}               # a value may change across a block boundary
        self.swap_memo = {}
        super().label(name)

    def scaled(self, limb, stride: int) -> R:
        # one scaled index per byte and table stride (a byte feeds two 16-bit T-tables)
        memo = self.__dict__.setdefault("scaled_memo", {})
        if isinstance(limb, R):
            if (limb.reg, stride) not in memo:
                memo[(limb.reg, stride)] = self._scaled(limb, stride)
            return memo[(limb.reg, stride)]
        return self._scaled(limb, stride)

    def _scaled(self, limb, stride: int) -> R:
        t = self.copy(limb)
        if stride & (stride - 1) == 0:
            for _ in range(stride.bit_length() - 1):
                self.emit("rla", t)
            return t
        acc = None
        for bit in range(stride.bit_length()):
            if stride >> bit & 1:
                term = self.shl16(t, bit) if bit else t
                acc = term if acc is None else self.bitop_add(acc, term)
        return acc

    def bitop_add(self, a, b) -> R:
        d = self.copy(a)
        self.emit("add", b, d)
        return d

    def _cheap(self, addr):
        return Ind(addr.base) if isinstance(addr, Mem) and addr.base is not None and addr.disp == 0 else addr

    def op_load(self, op):
        mem, idx = op.args
        b = self.memory(mem)
        index = self.get(idx)
        w = op.results[0].width
        if b.stride == 1:
            r = R(self.vreg())
            self.emit("mov.b", self.elem_addr(b, index, 0), r)
            self.put(op.results[0], [r])
            return
        n = nlimbs(w, 16)
        base = self.elem_addr(b, index, 0)
        limbs = []
        for j in range(n):
            a = base if j == 0 else (Mem(base.base, _disp_add(base.disp, 2 * j)))
            limbs.append(self._cheap(a))
        self.put(op.results[0], limbs)
        if not b.readonly:
            for j in range(n):
                self.pending.append((self.vals, op.results[0], j))

    def op_store(self, op):
        mem, idx, val = op.args
        b = self.memory(mem)
        self.materialize_pending()
        v = self.get(val)
        base = self.elem_addr(b, self.get(idx), 0)
        if b.stride == 1:
            self.emit("movb.st", v[0], base)
            return
        for j, x in enumerate(v):
            self.emit("mov", x, base if j == 0 else Mem(base.base, _disp_add(base.disp, 2 * j)))

    def op_len(self, op):
        b = self.memory(op.args[0])
        limbs = list(b.length) + [Imm(0)] if b.length is not None else self.imm_limbs(b.count, 32)
        # u32, or u16 after word legalization (its high word is a separate constant 0)
        self.put(op.results[0], limbs[:nlimbs(op.results[0].width, 16)])

    def byte_addr(self, b: MemBind, off: list, k: int):
        c = self.const_of(off)
        if c is not None:
            return self.elem_addr(b, self.imm_limbs(c + k, 16), 0)
        if b.kind == "ptr":
            return Mem(self._offset_base(b, off).reg, k)
        return self.elem_addr(b, self.add_imm(off[:1], k, 16), 0)

    def _offset_base(self, b: MemBind, off: list) -> R:
        key = ("offbase", id(off))
        if getattr(self, "_ob_key", None) == key:
            return self._ob
        t = self.copy(off[0])
        self.emit("add", R(b.base), t)
        self._ob_key, self._ob = key, t
        return t

    # Whole-word access to a byte buffer (`_load_words`, `_store_words`): a block of `nbytes`
    # (even, >= 8) bytes of a pointer buffer at an even (or run-time) offset.
    WORD_PATH_MIN = 8

    def _word_access(self, b: MemBind, offl: list, nbytes: int) -> bool:
        if b.kind != "ptr" or b.stride != 1 or nbytes % 2 or nbytes < self.WORD_PATH_MIN:
            return False
        c = self.const_of(offl)
        return c is None or c % 2 == 0

    def _load_bytes(self, op, big: bool):
        mem, off, *cnt = op.args
        b = self.memory(mem)
        self._ob_key = None
        offl = self.get(off)
        nbytes = op.attrs["bytes"]
        count = self.get(cnt[0]) if cnt else None
        if count is not None and self.const_of(count) is not None:
            nb = min(self.const_of(count), nbytes)
            count = None
        else:
            nb = nbytes
        n = nlimbs(8 * nbytes, 16)
        if nb == nbytes and (self._word_access(b, offl, nbytes) or self._odd_block(b, nbytes, count)):
            return self._load_words(op, b, offl, nbytes, count, big)
        bytes_ = []
        for k in range(nbytes):
            if k >= nb:
                bytes_.append(Imm(0))
                continue
            r = R(self.vreg())
            if count is None:
                self.emit("mov.b", self.byte_addr(b, offl, k), r)
            else:
                skip = self.mf.label("nob")
                self.emit("clr", r)
                self.emit("cmp", Imm(k + 1), self.as_dst(count[0]))
                self.emit("jnc", Lbl(skip))
                self.emit("mov.b", self.byte_addr(b, offl, k), r)
                self.label(skip)
            bytes_.append(r)
        # byte k of the buffer is bits 8*(nbytes-1-k) (BE) or 8*k (LE) of the word
        out: list = [Imm(0)] * n
        for k, x in enumerate(bytes_):
            pos = 8 * (nbytes - 1 - k) if big else 8 * k
            q, s = divmod(pos, 16)
            part = self.shl16(x, s, known_bits=8) if s else x
            out[q] = self.bitop("bis", out[q], part)
        self.put(op.results[0], out)

    def op_load_be(self, op):
        self._load_bytes(op, True)

    def op_load_le(self, op):
        self._load_bytes(op, False)

    def _store_bytes(self, op, big: bool):
        mem, off, val, *cnt = op.args
        b = self.memory(mem)
        self.materialize_pending()
        self._ob_key = None
        offl = self.get(off)
        v = self.get(val)
        nbytes = op.attrs["bytes"]
        count = self.get(cnt[0]) if cnt else None
        cc = self.const_of(count) if count is not None else None
        if (cc is None or cc >= nbytes) and self._word_access(b, offl, nbytes):
            return self._store_words(b, offl, v, nbytes, big, None if cc is not None else count)
        swapped: dict = {}
        for k in range(nbytes):
            pos = 8 * (nbytes - 1 - k) if big else 8 * k
            q, s = divmod(pos, 16)
            limb = v[q]
            if s:
                if q not in swapped:
                    if isinstance(limb, Imm):
                        swapped[q] = Imm((limb.value >> 8) & 0xFF)
                    else:
                        t = self.copy(limb)
                        self.emit("swpb", t)
                        swapped[q] = t
                src = swapped[q]
            else:
                src = limb if not isinstance(limb, Imm) else Imm(limb.value & 0xFF)
            if count is None:
                self.emit("movb.st", src, self.byte_addr(b, offl, k))
            else:
                skip = self.mf.label("nost")
                self.emit("cmp", Imm(k + 1), self.as_dst(count[0]))
                self.emit("jnc", Lbl(skip))
                self.emit("movb.st", src, self.byte_addr(b, offl, k))
                self.label(skip)

    # Word path with a scratch fallback (buffers of WORD_PATH_MIN+ bytes): the block is read or
    # written as words at a pointer that is the buffer itself when it is even and the count (if
    # any) covers the block, else the frame area `bytes.tmp`, which one byte loop fills from the
    # buffer (load: zero-padded past the count) or drains into it (store). One copy of the word
    # code and a ~20-byte loop replace a byte sequence with a count test per byte; the steady
    # state (aligned, full blocks) runs the same word moves as before, without the jump over the
    # byte code. Partial and odd-addressed blocks pay the loop (~11 cycles a byte).
    SCRATCH = "bytes.tmp"

    def _addr_reg(self, b: MemBind, offl: list) -> R:
        """A fresh register holding the address of byte `offl` of pointer buffer `b`."""
        c = self.const_of(offl)
        if c is None:
            p = self._offset_base(b, offl)
            self._ob_key = None             # redefined below: not to be reused as the base
            return p
        p = R(self.vreg())
        self.emit("mov", R(b.base), p)
        if c:
            self.emit("add", Imm(c), p)
        return p

    def _scratch(self, nbytes: int) -> Mem:
        self.mf.locals[self.SCRATCH] = max(self.mf.locals.get(self.SCRATCH, 0), (nbytes + 1) & ~1)
        return Mem(SP, Frame("local", self.SCRATCH, 0))

    def _odd_block(self, b: MemBind, nbytes: int, count) -> bool:
        """An odd-sized partial load (CCM's `load_be(nonce, 0, 15, len(nonce))`): always through
        the scratch area, one zero byte beside it making the block even (see `_load_words`)."""
        return b.kind == "ptr" and b.stride == 1 and nbytes % 2 == 1 and nbytes >= self.WORD_PATH_MIN - 1 \
            and count is not None

    def _load_words(self, op, b: MemBind, offl: list, nbytes: int, count, big: bool) -> None:
        # Layout: test; words: the word moves; jmp join; the loop; jmp words; join. The fast
        # path is one straight block ending in a jump (as before the loop existed), so the
        # delay-slot scheduler still finds the word moves beside an accelerator operation.
        # An odd size has only the loop: its bytes go to scratch + 1 (big-endian: the zero byte
        # 0 is then the value's top byte) or scratch + 0 (little-endian: the top byte is last).
        p = self._addr_reg(b, offl)
        odd = nbytes % 2
        slow, words_at, join = self.mf.label("bytes"), self.mf.label("words"), self.mf.label("join")
        if not odd:
            if count is not None:
                self.emit("cmp", Imm(nbytes), self.as_dst(count[0]))
                self.emit("jnc", Lbl(slow))
            self.emit("bit", Imm(1), p)
            self.emit("jnz", Lbl(slow))
        else:
            self.emit("jmp", Lbl(slow))
        self.label(words_at)
        words = [R(self.vreg()) for _ in range((nbytes + 1) // 2)]
        for i, w in enumerate(words):       # memory order: byte 2i low, byte 2i+1 high
            self.emit("mov", self._cheap(Mem(p.reg, 2 * i)), w)
        self.emit("jmp", Lbl(join))
        self.label(slow)
        q, s, k, t = (R(self.vreg()) for _ in range(4))
        area = self._scratch(nbytes + odd)
        self.emit("lea", area, q)
        self.emit("mov", q, s)
        if odd:
            self.emit("clr", Mem(SP, Frame("local", self.SCRATCH, nbytes - 1 if not big else 0)))
            if big:
                self.emit("inc", s)
        self.emit("mov", Imm(nbytes), k)
        left = None
        if count is not None:
            left = R(self.vreg())
            self.emit("mov", count[0], left)
        top, pad = self.mf.label("cpy"), self.mf.label("pad")
        self.label(top)
        self.emit("clr", t)
        if left is not None:                # past the count: zero padding
            self.emit("tst", left)
            self.emit("jz", Lbl(pad))
        self.emit("mov.b", Ind(p.reg), t)
        self.emit("inc", p)
        if left is not None:
            self.emit("dec", left)
            self.label(pad)
        self.emit("movb.st", t, Mem(s.reg, 0))
        self.emit("inc", s)
        self.emit("dec", k)
        self.emit("jnz", Lbl(top))
        self.emit("mov", q, p)
        self.emit("jmp", Lbl(words_at))
        self.label(join)
        n = nlimbs(8 * nbytes, 16)
        out = []
        for q_ in range(n):                 # limb q of a big-endian value: word n-1-q, swapped
            w = words[n - 1 - q_] if big else words[q_]
            if big:
                self.emit("swpb", w)
            out.append(w)
        self.put(op.results[0], out)

    def _store_words(self, b, offl, v, nbytes, big, count):
        """Store on the word path (see `_load_words`), through the scratch area when needed."""
        n = nbytes // 2
        raw = []                            # memory-order words: byte 2i low, byte 2i+1 high
        for i in range(n):
            q = n - 1 - i if big else i
            limb = v[q] if q < len(v) else Imm(0)
            if isinstance(limb, Imm):
                x = limb.value & M16
                raw.append(Imm(((x << 8) | (x >> 8)) & M16) if big else Imm(x))
            elif big:
                t = self.copy(limb)
                self.emit("swpb", t)
                raw.append(t)
            else:
                raw.append(limb)
        # Layout: test; the word stores in place; jmp done; the word stores to the scratch
        # area (SP-relative) and the byte loop; done. The fast path is exactly the word stores
        # (no extra live register): 4 bytes per word of duplicate code buy that.
        dst = self._addr_reg(b, offl)
        slow, done = self.mf.label("bytes"), self.mf.label("stored")
        if count is not None:
            self.emit("cmp", Imm(nbytes), self.as_dst(count[0]))
            self.emit("jnc", Lbl(slow))
        self.emit("bit", Imm(1), dst)
        self.emit("jnz", Lbl(slow))
        for i, w in enumerate(raw):
            self.emit("mov", w, Mem(dst.reg, 2 * i))
        self.emit("jmp", Lbl(done))
        self.label(slow)
        area = self._scratch(nbytes)
        for i, w in enumerate(raw):
            self.emit("mov", w, Mem(SP, Frame("local", self.SCRATCH, 2 * i)))
        p, k = R(self.vreg()), R(self.vreg())
        self.emit("lea", area, p)
        if count is not None:               # min(count, nbytes) bytes (count may cover the block)
            self.emit("mov", count[0], k)
            ok = self.mf.label("cnt")
            self.emit("cmp", Imm(nbytes), k)
            self.emit("jnc", Lbl(ok))
            self.emit("mov", Imm(nbytes), k)
            self.label(ok)
            self.emit("tst", k)
            self.emit("jz", Lbl(done))
        else:
            self.emit("mov", Imm(nbytes), k)
        top = self.mf.label("cpy")
        self.label(top)
        self.emit("movb.st", Ind(p.reg), Mem(dst.reg, 0))
        self.emit("inc", p)
        self.emit("inc", dst)
        self.emit("dec", k)
        self.emit("jnz", Lbl(top))
        self.label(done)

    def op_store_be(self, op):
        self._store_bytes(op, True)

    def op_store_le(self, op):
        self._store_bytes(op, False)

    # --- frame -------------------------------------------------------------------------------
    def zero_local(self, name: str, size: int) -> None:
        words = size // 2
        if words <= 12:
            for k in range(words):
                self.emit("clr", Mem(SP, Frame("local", name, 2 * k)))
            return
        p, c = R(self.vreg()), R(self.vreg())
        self.emit("mov", R(SP), p)
        self.emit("mov", Imm(words), c)
        top = self.mf.label("zero")
        self.label(top)
        self.emit("clr", Mem(p.reg, Frame("local", name, 0)))
        self.emit("incd", p)
        self.emit("dec", c)
        self.emit("jnz", Lbl(top))


class _InFlags:
    """The limb of a carry/borrow that lives in the C flag until the next op reads it."""

    def __repr__(self) -> str:
        return "<C flag>"


_IN_FLAGS = _InFlags()


def _use_counts(block) -> dict:
    """id(value) -> how often `block` (its ops, their regions, the yields) reads it."""
    n: dict = {}

    def walk(b):
        for op in b.ops:
            for a in op.args:
                n[id(a)] = n.get(id(a), 0) + 1
            for r in op.regions:
                walk(r)
        for v in b.yields:
            n[id(v)] = n.get(id(v), 0) + 1

    walk(block)
    return n


def _is_zero(x) -> bool:
    return isinstance(x, Imm) and (x.value & M16) == 0


def _cheap_src(x):
    return Ind(x.base) if isinstance(x, Mem) and x.base is not None and x.disp == 0 else x


def _disp_add(disp, k: int):
    if isinstance(disp, int):
        return disp + k
    if isinstance(disp, Frame):
        return Frame(disp.kind, disp.key, disp.extra + k)
    return f"{disp}+{k}"


__all__ = ["Msp430Selector", "Memory", "Value"]
