"""ARMv6-M arithmetic: ADDS/ADCS and SUBS/SBCS chains, comparisons and branches through C,
the loop counter, MULS, and restoring division (Cortex-M0 has no divider)."""
from __future__ import annotations


from aedsl.codegen.mir import Imm, Lbl, R
from aedsl.codegen.select_base import SelectError, nlimbs
from .operands import LIMB, M32


class ArmArith:
    """Selector mixin: the arithmetic hooks of codegen/select/arith.py and `op_mul`."""

    def bit_mask(self, limb, j: int) -> R:
        """0xFFFFFFFF if bit j of limb is set, else 0: LSLS brings the bit to bit 31, ASRS #31
        copies it into every bit (DDI0419: LSLS, ASRS)."""
        t = self.shl1(self.reg(limb), 31 - j) if j < 31 else self.reg(limb)
        d = self.fresh()
        self.emit("asrs", d, t, Imm(31))
        return d

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

    def branch_unless_equal(self, a, value, target):
        if value < 256:
            self.emit("cmpi", self.reg(a[0]), Imm(value))
        else:
            self.emit("cmp", self.reg(a[0]), self.reg(Imm(value)))
        self.emit("bne", Lbl(target))

    def carry_bit(self, invert: bool) -> R:
        """0/1 from the C flag (MOVS #0 keeps C; ADCS adds it)."""
        r = self.fresh()
        self.emit("mov", Imm(0), r)
        self.emit("adcs", r, r)
        if invert:
            return self.dp2("eors", r, Imm(1))
        return r

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
            self.put(op.results[0], self.mul_by_constant(a, c, w))
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
        prod = self.dp2("muls", a[0], b[0])
        out = [prod] if op.attrs.get("nowrap") else self.mask([prod], w)   # a product that fits
        if c is not None:
            self.note_affine(out, a, c, 0, w)
        self.put(op.results[0], out)

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
