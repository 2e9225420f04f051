"""MSP430 shifts and rotations: 16-bit by `swpb` and 1-bit steps, multi-limb by carry chains
or per-limb funnels, by a run-time amount in a loop (see the package docstring)."""
from __future__ import annotations

from aedsl.codegen.mir import Imm, Lbl, Mem, R
from ..target import rxxm_counts
from .operands import M16, is_zero


class Msp430Shifts:
    """Selector mixin: the shift primitives the shared handlers (codegen/select/shifts.py) use."""
    def rotl16(self, limb, s: int):
        """16-bit rotate left by s: the cheapest of s `rla; adc` steps, 16-s `bit #1; rrc` steps,
        or `swpb` and the rest (rotl 8 = swpb)."""
        s %= 16
        if isinstance(limb, Imm):
            v = limb.value
            return Imm(((v << s) | (v >> (16 - s))) & M16 if s else v)
        if s == 0:
            return limb
        _, swap, steps = self._rotl16_plan(s)
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

    rotl_limb = rotl16

    @staticmethod
    def _rotl16_plan(s: int) -> tuple[int, bool, int]:
        """(cycles, swpb first, 1-bit steps: > 0 left, < 0 right) of the cheapest rotl16 by s."""
        s %= 16
        plans = [(2 * s, False, s), (2 * (16 - s), False, -(16 - s)), (1 + 2 * abs(s - 8), True, s - 8)]
        return min(plans, key=lambda p: p[0])

    def shift_limb_cycles(self, k: int) -> int:
        """Cycles of `shift_limb` (register operands: one cycle an instruction; RRUM/RLAM #n
        take n, SLAU208 "MSP430X Format II Instruction Cycles and Length")."""
        s = abs(k)
        n = 2 if s >= 8 else 0
        s = s - 8 if s >= 8 else s
        if self.cpux:
            return n + s
        return n + s + (1 if k < 0 and s else 0)

    def loose_shift_limb(self, limb, k: int):
        """The shift without the clean-up of the bits it fills: right by s as swpb (s >= 8, no
        mov.b) and rra steps (no clrc: bit 15 copies itself down) or rram #n on MSP430X; left
        by s >= 8 as swpb (no mov.b) and rla steps. None where nothing is saved (a constant,
        a left shift by less than 8, a right shift by less than 8 on MSP430X)."""
        s = abs(k)
        if isinstance(limb, Imm) or s == 0 or s >= 16 or (s < 8 and (k > 0 or self.cpux)):
            return None
        d = self.copy(limb)
        if s >= 8:
            self.emit("swpb", d)
            s -= 8
        if k > 0:
            self._left(d, s)
        else:
            self._right_arith(d, s)
        return d

    def rotation_is_cheaper(self, k: int) -> bool:
        """A rotation by swpb and 1-bit steps against the shift (e.g. by 7: swpb, rla, adc = 3
        cycles against clrc, rrc and six rra = 8)."""
        return self._rotl16_plan(k)[0] < self.shift_limb_cycles(k)

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

    def _steps4(self, mn: str, d: R, s: int) -> None:
        """An MSP430X shift by s as `mn #n` steps of at most 4 (RLAM/RRAM/RRUM, SLAU208)."""
        for n in rxxm_counts(s):
            self.emit(mn, Imm(n), d)

    def _left(self, d: R, s: int) -> None:
        if self.cpux:
            self._steps4("rlam", d, s)
        else:
            for _ in range(s):
                self.emit("rla", d)

    def _right_arith(self, d: R, s: int) -> None:
        """d >> s with bit 15 copied down (`rra` steps, `rram #n` on MSP430X): a logical shift
        where bit 15 is clear, or where a mask drops the bits it fills."""
        if self.cpux:
            self._steps4("rram", d, s)
        else:
            for _ in range(s):
                self.emit("rra", d)

    # rra: bit 0 -> C; rla (add r, r): bit 15 -> C; rrc: C -> bit 15; rlc (addc r, r): C -> bit 0
    # (SLAU144 §3.4.6)
    CARRY_OUT = ("low", "high")
    CARRY_IN = ("high", "low")

    def carry_out(self, r, end: str) -> None:
        self.emit("rra" if end == "low" else "rla", r)

    def carry_in(self, r, end: str) -> None:
        self.emit("rrc" if end == "high" else "rlc", r)

    def bit_to_carry(self, limb, j: int) -> None:
        """C = bit j of limb (BIT sets C when the result is not zero, SLAU144 §3.4.6)."""
        self.emit("bit", Imm(1 << j), self.as_dst(limb))

    def shift_limb_cost(self, k: int) -> int:
        """Instructions of `shift_limb`: swpb + mov.b for 8 bits and more, then one per bit
        (two for the first bit right: clrc, rrc), or rlam/rrum by up to 4 on MSP430X."""
        s = abs(k)
        n = 2 if s >= 8 else 0
        s = s - 8 if s >= 8 else s
        if self.cpux:
            return n + -(-s // 4)
        return n + s + (1 if k < 0 and s else 0)

    def shift_limb(self, limb, k: int):
        """One limb shifted by k (left) or -k (right), with swpb for 8 bits and more."""
        return self.shl16(limb, k) if k >= 0 else self.shr16(limb, -k)

    def shr16(self, limb, s: int):
        if isinstance(limb, Imm):
            return Imm((limb.value & M16) >> s)
        if s >= 16:
            return Imm(0)
        if s == 0:
            return limb
        if isinstance(limb, R) and 0 < s < 8:
            # a smaller shift of the same register made since the last label (its top bits
            # are clear, so each further bit is one `rra`): from there
            done = self._shifts
            best = max((s0 for (r, s0) in done if r == limb.reg and s0 < s), default=None)
            if best is not None:         # s - best rra steps against clrc, rrc and s - 1 rra
                d = self.copy(done[(limb.reg, best)])
                for _ in range(s - best):
                    self.emit("rra", d)
            else:
                d = self._shr16(limb, s)
            done[(limb.reg, s)] = d
            return d
        return self._shr16(limb, s)

    def _shr16(self, limb, s: int):
        d = self.copy(limb)
        if s >= 8:
            self.emit("swpb", d)
            self.emit("mov.b", d, d)
            s -= 8
        if s == 0:
            return d
        if self.cpux:
            self._steps4("rrum", d, s)
        else:
            self.emit("clrc")
            self.emit("rrc", d)
            for _ in range(s - 1):
                self.emit("rra", d)        # bit 15 is already 0: arithmetic = logical
        return d

    def shr_multi(self, limbs: list, k: int, n_out: int) -> list:
        """limbs >> k, the lowest n_out limbs of the result."""
        q, s = divmod(k, 16)
        src = (list(limbs[q:]) + [Imm(0)] * (n_out + 1))[:n_out + 1]
        if s == 0:
            return src[:n_out]
        if s == 8:
            return self.shr8_limbs(src, n_out)
        if n_out == 1 and not is_zero(src[0]) and not is_zero(src[1]):
            one = self.funnel(src[0], src[1], s)
            if one is not None:
                return [one]
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
            if is_zero(src[j + 1]):
                out.append(self.shr16(src[j], s))
                continue
            lo = Imm(0) if is_zero(src[j]) else self.and_imm(rotated(j), m)
            hi = self.and_imm(rotated(j + 1), M16 ^ m)
            out.append(self.bitop("bis", lo, hi))
        return out

    def funnel(self, lo, hi, s: int):
        """(hi:lo) >> s to one limb (a 16-bit window of a wider value, 0 < s < 16): a carry
        chain through copies of both, right (s times rra hi; rrc lo) or left (16 - s times
        rla lo; rlc hi, the window ending in hi's copy), or the window at 8 (swpb merge) moved
        bit by bit, whichever is cheapest in cycles if cheaper than the rotate-and-mask funnel
        (two rotations, two masks, a merge); None where it is not."""
        right, left = 2 + 2 * s, 2 + 2 * (16 - s)
        masked = 2 * (1 + self._rotl16_plan(16 - s)[0] + 2) + 1
        # the window at 8 (swpb both, xor.b merge), then moved by s - 8 bits, each put in C by
        # `bit` and taken in by rrc (up) or rlc (down)
        bits = self._entering_bits(8, s - 8)
        merged = 3 + self._move_cycles([lo, hi], bits)
        if min(right, left, merged) >= masked:
            return None
        if merged < min(right, left):
            return self._move_window(self.shr8_limbs([lo, hi], 1)[0], [lo, hi], bits, s > 8)
        t0, t1 = self.copy(lo), self.copy(hi)
        if right <= left:
            for _ in range(s):
                self.emit("rra", t1)
                self.emit("rrc", t0)
            return t0
        for _ in range(16 - s):
            self.emit("rla", t0)
            self.emit("rlc", t1)
        return t1

    def op_slice(self, op):
        """A 16-bit window of a wide value next to one already made in the same block (at most
        3 bits away) is that window's copy moved by one bit a step, each entering bit put in
        C by `bit` (rrc: at the top, the window moving up the value; rlc: at the bottom, moving
        down), where cheaper than making it afresh. A bit-level shift register reads many
        windows at neighbouring offsets (Grain: taps 11, 12, 13 of one register)."""
        v, w, lo = op.args[0], op.results[0].width, op.attrs["lo"]
        if w != 16 or lo % 16 == 0 or not self.blocks:
            super().op_slice(op)
            return
        # per call scope (an inlined body is selected once per call, with the same IR values)
        scope = self.windows.setdefault(id(self.vals), (self.vals, {}))[1]
        made = scope.setdefault((id(v), id(self.blocks[-1])), {})
        limbs = self.get(v)
        best = None
        for lo0, t in made.items():
            d = lo - lo0
            if 0 < abs(d) <= 3:
                bits = self._entering_bits(lo0, d)
                cost = self._move_cycles(limbs, bits)
                if best is None or cost < best[0]:
                    best = (cost, t, d, bits)
        if best is not None and best[0] < self._window_cycles(limbs, lo):
            _, t, d, bits = best
            self.put(op.results[0], [self._move_window(self.copy(t), limbs, bits, d > 0)])
        else:
            super().op_slice(op)
        made[lo] = self.get(op.results[0])[0]

    @staticmethod
    def _entering_bits(lo0: int, d: int) -> list[int]:
        """The bits of a value that enter its 16-bit window at lo0 as it moves by d bits: at
        the top, moving up (d > 0); at the bottom, moving down (d < 0)."""
        return [lo0 + 16 + k for k in range(d)] if d > 0 else [lo0 - 1 - k for k in range(-d)]

    def _move_cycles(self, limbs: list, bits: list[int]) -> int:
        """Cycles of `_move_window` on a copy (one cycle) of a window, its `bits` from `limbs`."""
        return 1 + sum(1 + self._bit_cycles(limbs[p // 16], p % 16) for p in bits)

    def _move_window(self, t: R, limbs: list, bits: list[int], up: bool) -> R:
        """Window t (a register the caller owns) moved bit by bit: each bit of `bits` (of the
        value whose words are `limbs`) put in C by `bit`, taken in by rrc at the top (up) or
        rlc at the bottom."""
        for p in bits:
            self.bit_to_carry(limbs[p // 16], p % 16)
            self.emit("rrc" if up else "rlc", t)
        return t

    @staticmethod
    def _bit_cycles(limb, j: int) -> int:
        """`bit #(1 << j), limb` (SLAU144 table 3-16: #imm to a register 2 cycles, 1 with the
        constant generator's 1, 2, 4, 8; to x(Rn) 5)."""
        return (1 if j < 4 else 2) if isinstance(limb, R) else 5

    def _window_cycles(self, limbs: list, lo: int) -> int:
        """About what a fresh 16-bit window at `lo` costs: its two words read, then the funnel
        (`funnel` or the swpb merge for 8)."""
        q, s = divmod(lo, 16)
        reads = sum(1 if isinstance(x, R) else 3 for x in limbs[q:q + 2])
        return reads + (4 if s == 8 else min(2 * min(s, 16 - s), 4 + 3 * abs(s - 8)))

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
            if is_zero(hi):
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
        Zero limbs nothing can shift into stay out of the chain."""
        live = [j for j, v in enumerate(src) if not is_zero(v)]
        if not live:
            return list(src)
        # a shift by s < 16 moves bits at most one limb: up into the limb above the highest
        # non-zero one (left), down into the limb below the lowest (right); the rest stay zero
        lo, hi = live[0], live[-1]
        if left:
            hi = min(len(src) - 1, hi + 1)
        else:
            lo = max(0, lo - 1)
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
            carry_in = j > 0 and not is_zero(src[j - 1]) and not (
                known_bits is not None and j - 1 == q and known_bits + s <= 16)
            if is_zero(src[j]):
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

    @staticmethod
    def _rotl_limbs_plans(n: int, s: int) -> tuple[int, int, int, int]:
        """Instructions of `rotl_limbs` by 0 < s < 16 on n limbs, each way: carry chains left,
        right, the byte merge and steps, per-limb rotate + masks + merge."""
        chain_l, chain_r = s * (n + 1), (16 - s) * (n + 1)
        via_byte = 3 * n + 1 + abs(s - 8) * (n + 1)
        funnel = n * (3 + min(2 * s, 2 * (16 - s), 1 + 2 * abs(s - 8))) + n
        return chain_l, chain_r, via_byte, funnel

    def rotl_limbs_cost(self, n: int, s: int) -> int:
        """Instructions of a rotation of n limbs by s (0 <= s < 16; whole limbs are renamed):
        the copies and the cheapest way of `rotl_limbs`."""
        if s == 0:
            return 0
        chain_l, chain_r, via_byte, funnel = self._rotl_limbs_plans(n, s)
        return min(n + chain_l, n + chain_r, via_byte, funnel)

    def rotl_limbs(self, x: list, s: int) -> list:
        """A multi-limb rotation left by 0 < s < 16 bits, the shortest of: carry chains (s steps
        left or 16-s steps right, n+1 instructions each), the byte merge (rotl 8) followed by
        |s-8| chain steps, or per-limb rotate + masks + merge."""
        n = len(x)
        if s == 8:
            return self.rotl8_limbs(x)
        chain_l, chain_r, via_byte, funnel = self._rotl_limbs_plans(n, s)
        if via_byte < min(chain_l, chain_r, funnel) and not any(isinstance(v, Imm) for v in x):
            d = self.rotl8_limbs(x)
            if s > 8:
                self._chain_left(d, s - 8)
            else:
                self._chain_right(d, 8 - s)
            return d
        if min(chain_l, chain_r) <= funnel:
            d = [self.copy(v) for v in x]
            if chain_l <= chain_r:
                self._chain_left(d, s)
            else:
                # rotate right 16-s, then shift the limbs back by one (rotl s = rotl 16 ∘ rotr (16-s))
                self._chain_right(d, 16 - s)
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

    def _chain_left(self, d: list, steps: int) -> None:
        """Rotate the limbs d (least significant first, registers) left by `steps` bits in place."""
        for _ in range(steps):
            self.emit("rla", d[0])
            for j in range(1, len(d)):
                self.emit("rlc", d[j])
            self.emit("adc", d[0])

    def _chain_right(self, d: list, steps: int) -> None:
        """Rotate the limbs d right by `steps` bits in place (bit 0 into the carry, then rrc down)."""
        for _ in range(steps):
            self.emit("bit", Imm(1), d[0])
            for j in reversed(range(len(d))):
                self.emit("rrc", d[j])

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
        # an amount known to be below the width (`value_bound`: OCB3's 8 * (15 - count)) needs
        # no test for a shift by the width or more
        small = self.value_bound(op.args[1]) < w
        hi = Imm(0)
        for x in amt[1:]:
            hi = self.bitop("bis", hi, x)
        if not is_zero(hi) and not small:
            self.emit("tst", self.as_dst(hi))
            self.emit("jnz", Lbl(big))
        if not small:
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
        if not small:
            self.emit("jmp", Lbl(end))
            self.label(big)
            for x in d:
                self.emit("clr", x)
        self.label(end)
        self.put(op.results[0], self.mask(d, w))

    def op_shl(self, op):
        (a,) = self.args(op)
        if op.results[0].width == 8 and op.attrs["by"] == 1 and isinstance(a[0], (R, Mem)):
            d = self.copy(a[0])
            self.emit("rla.b", d)            # add.b d, d: the shift and the byte mask in one
            self.put(op.results[0], [d])
            return
        super().op_shl(op)

    def op_shr(self, op):
        k = op.attrs["by"]
        if op.args[0].width < 16 and 0 < k < 8 and not self.cpux:
            (a,) = self.args(op)
            if isinstance(a[0], (R, Mem)):
                # a value narrower than the limb has bit 15 clear: each bit is one `rra`
                # (arithmetic = logical), no `clrc; rrc` for the first
                d = self.copy(a[0])
                for _ in range(k):
                    self.emit("rra", d)
                self.put(op.results[0], [d])
                self._after_shr(op)
                return
        super().op_shr(op)
        self._after_shr(op)

    def _after_shr(self, op):
        (a,), out = self.args(op), self.get(op.results[0])
        if op.args[0].width == 8 and op.attrs["by"] == 7 and isinstance(out[0], R) and isinstance(a[0], R):
            self.top_bit_of[out[0].reg] = a[0]      # for byte_sign_smear
