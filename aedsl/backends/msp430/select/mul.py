"""MSP430 multiplication and division: by constants (shift and add), run-time products on the
hardware multiplier (multiplier.py) or by shift-and-add loops, restoring 16-bit division."""
from __future__ import annotations

from aedsl.codegen.mir import Imm, Lbl, R
from aedsl.codegen.select_base import nlimbs


class Msp430MulDiv:
    """Selector mixin: `op_mul`, `op_umulh` and the `divide` hook."""

    def op_mul(self, op):
        a, b = self.args(op)
        w = op.results[0].width
        c = self.const_of(b)
        if c is None and self.const_of(a) is not None:
            c, a = self.const_of(a), b
        if c is None:
            self.put(op.results[0], self.mask(self.mul_runtime(a, b, nlimbs(w, 16)), w))
            return
        self.put(op.results[0], self.mul_by_constant(a, c, w))

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
                acc = term if acc is None else self.addsub(acc, term, 16 * n, False)
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

    def divide(self, a, b, w: int):
        """Restoring division of one-limb values, 16 iterations; b = 0 gives q = 0, r = a (the
        IR's semantics)."""
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
