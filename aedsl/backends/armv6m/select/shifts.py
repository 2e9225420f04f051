"""ARMv6-M shifts, rotations and byte moves: LSLS/LSRS funnels over 32-bit limbs, RORS by a
register, shifts by a run-time amount, single-limb slices and REV/REV16 byte reversal."""
from __future__ import annotations


from aedsl.codegen.mir import Imm, Lbl
from aedsl.codegen.select_base import nlimbs
from .operands import LIMB, M32, is_zero


class ArmShifts:
    """Selector mixin: the shift primitives the shared handlers (codegen/select/shifts.py) use."""

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

    rotl_limb = rotl32

    # LSRS/LSLS #1 put the bit shifted out (bit 0 / bit 31) in C; ADCS r, r is 2r + C, the carry
    # entering at bit 0 (ARMv6-M Architecture Reference Manual, DDI0419: LSLS, LSRS, ADCS).
    # Thumb-1 has no RRX, so no entry at the top.
    CARRY_OUT = ("low", "high")
    CARRY_IN = ("low",)

    def carry_out(self, r, end: str) -> None:
        self.emit("lsrs" if end == "low" else "lsls", r, r, Imm(1))

    def carry_in(self, r, end: str) -> None:
        self.emit("adcs", r, r)

    def shl_multi(self, limbs: list, k: int, n_out: int, known_bits: int | None = None) -> list:
        """(limbs << k), the lowest n_out limbs (`known_bits` is not needed here)."""
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

    def rotl_limbs(self, x: list, s: int) -> list:
        """A multi-limb rotation left by 0 < s < 32 bits: one funnel per limb."""
        n = len(x)
        out = []
        for j in range(n):
            out.append(self.bitop("orrs", self.shl1(x[j], s), self.shr1(x[(j - 1) % n], 32 - s)))
        return out

    def _shift_var(self, op, left: bool):
        a, amt = self.args(op)
        w = op.results[0].width
        if w > 32:
            return self._shift_var_multi(op, left)
        n = self.reg(amt[0])
        # an amount known to be at most 255 (`value_bound`) is read whole by LSLS/LSRS: no clamp
        big = (any(not is_zero(x) for x in amt[1:]) or op.args[1].width > 8) and self.value_bound(op.args[1]) > 255
        if big:
            # LSLS/LSRS by register use only the amount's low byte: clamp larger amounts to 255
            hi = Imm(0)
            for x in amt[1:]:
                hi = self.bitop("orrs", hi, x)
            c = self.copy(n)
            done = self.mf.label("shok")
            if not is_zero(hi):
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
        if self._shift_bit_var(op, left, a, amt, w, n):
            return
        self.materialize_pending()
        d = [self.copy(self.reg(x)) for x in self.mask(a, w)]
        c = self.copy(self.reg(amt[0]))
        zero, fun, top, end = (self.mf.label(x) for x in ("shz", "shf", "shl", "she"))
        # an amount known to be below the width (`value_bound`) needs no test for a shift by
        # the width or more
        small = self.value_bound(op.args[1]) < w
        hi = Imm(0)
        for x in amt[1:]:
            hi = self.bitop("orrs", hi, x)
        if not is_zero(hi) and not small:
            self.emit("cmpi", self.reg(hi), Imm(0))
            self.emit("bne", Lbl(zero))
        if not small:
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
        if not small:
            self.emit("jmp", Lbl(end))
            self.label(zero)
            for x in d:
                self.emit("mov", Imm(0), x)
        self.label(end)
        self.put(op.results[0], self.mask(d, w))

    def _shift_bit_var(self, op, left: bool, a: list, amt: list, w: int, n: int) -> bool:
        """A power of two 2^p shifted by a run-time amount s (a padding bit `0x80 << 56 >> 8 * c`,
        a mask bit `1 << c`) is the bit at p - s (p + s): limb j is `1 << e_j` with
        e_j = p -+ s - 32 j, one register shift each and no branch. LSLS by a register shifts by
        the amount's low byte and gives 0 from 32 up (DDI0432C A6.7.36 LSL (register): shift_n =
        UInt(Rm<7:0>), Shift_C gives 0 for shift_n >= 32), so e_j below 0 must stay at or above
        -224 (its low byte then 32 or more) and at or below 255: true for s up to the amount's
        bound (`value_bound`), or s clamped to the width first (every bit then shifted out).
        A low mask 2^q - 1 shifted right (`~0 >> 8 * c`, the bytes past a count) is the bit at
        q - s minus 1, the subtraction borrowing across the limbs, with s clamped to q (the bit
        at 0: the mask empty). False (nothing emitted) for another value or an amount wider than
        a limb."""
        c = self.const_of(a)
        if c is None or c == 0 or any(not is_zero(x) for x in amt[1:]):
            return False
        low_mask = not left and c & (c + 1) == 0 and c > 1
        if c & (c - 1) and not low_mask:
            return False
        p = c.bit_length() if low_mask else c.bit_length() - 1
        w = min(w, p) if low_mask else w        # the clamp: every bit out (a mask: empty)
        sign = 1 if left else -1

        def fits(bound: int) -> bool:
            es = [p + sign * s - LIMB * j for s in (0, bound) for j in range(n)]
            return min(es) >= -224 and max(es) <= 255

        bound = min(self.value_bound(op.args[1]), (1 << LIMB) - 1)
        s = self.reg(amt[0])
        if not fits(bound) or (low_mask and bound > p):     # (a mask's bit must not go below 0)
            if not fits(w):
                return False
            s = self.copy(s)                # s >= w: every bit shifted out, as s = w
            ok = self.mf.label("shok")
            self.emit("cmpi", s, Imm(w))
            self.emit("bcc", Lbl(ok))
            self.emit("mov", Imm(w), s)
            self.label(ok)
            bound = w
        e = self.fresh()
        if left:
            self.emit("mov", s, e)
            if p:
                self.emit("adds8", e, Imm(p))
        else:
            self.emit("mov", Imm(p), e)
            self.emit("subs", e, e, s)
        out, at = [], 0                     # e holds e_at
        for j in range(n):
            lo, hi = sorted(p + sign * x - LIMB * j for x in (0, bound))
            if hi < 0 or lo >= LIMB:        # the bit never lands in this limb
                out.append(Imm(0))
                continue
            if j != at:
                self.emit("subs8", e, Imm(LIMB * (j - at)))
                at = j
            r = self.fresh()
            self.emit("mov", Imm(1), r)
            self.emit("lslv", r, e)
            out.append(r)
        if low_mask:                        # the bit minus 1: subs, then sbcs with the borrow
            out = [self.copy(x) if isinstance(x, Imm) else x for x in out]
            self.emit("subs8", out[0], Imm(1))
            if n > 1:
                z = self.fresh()
                self.emit("mov", Imm(0), z)     # MOVS #0 leaves C (the borrow)
                for x in out[1:]:
                    self.emit("sbcs", x, z)
        self.put(op.results[0], out)
        return True

    def op_slice(self, op):
        field = self.table_field(op)
        if field is not None:
            self.put(op.results[0], [field])
            return
        (a,) = self.args(op)
        w = op.results[0].width
        q, s = divmod(op.attrs["lo"], LIMB)
        if w + s <= LIMB and q < len(a):
            # within one limb: a shift, then a mask only if bits above remain
            src_bits = min(LIMB, op.args[0].width - LIMB * q)
            if s and s + w < src_bits and w not in (8, 16) and not isinstance(a[q], Imm):
                # (x >> s) & (2^w - 1) as two shifts: the field's top to bit 31, then down
                self.put(op.results[0], [self.shr1(self.shl1(a[q], LIMB - s - w), LIMB - w)])
                return
            t = self.shr1(a[q], s)
            self.put(op.results[0], [self.mask_top(t, w) if s + w < src_bits else t])
            return
        super().op_slice(op)

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
        rv = self._byte_reverse(op)
        if rv is not None:
            self.put(op.results[0], [rv])
            return
        super().op_concat(op)
