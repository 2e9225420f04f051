"""Arithmetic, comparison and selection handlers shared by the targets (see the package docstring).

Each handler is the same sequence of limb operations on every target; what a target's
instructions look like is in its hooks. Emission order is part of the contract (it fixes the
virtual register numbering), so a hook is called exactly where the handler needs its result.
"""
from __future__ import annotations

from ..mir import Imm, R
from ..select_base import SelectError, nlimbs


class ArithOps:
    """Selector mixin: limb-wise arithmetic over the target's hooks."""

    # --- helpers the handlers share ------------------------------------------------------------
    def add_imm(self, limbs: list, k: int, width: int) -> list:
        out = self.addsub(list(limbs), self.imm_limbs(k, width), width, False)
        self.note_affine(out, list(limbs), 1, k, width)
        return out

    def mul_by_constant(self, a: list, c: int, w: int) -> list:
        """a * c mod 2^w for a constant c: shift and add over c's set bits."""
        c &= (1 << w) - 1
        n = nlimbs(w, self.LIMB)
        acc = None
        for bit in range(w):
            if c >> bit & 1:
                term = self.shl_multi(a, bit, n)
                acc = term if acc is None else self.addsub(acc, term, self.LIMB * n, False)
        return self.mask(acc or self.imm_limbs(0, w), w)

    def note_offset(self, out: list, x: list, c: int) -> None:
        """Hook: `out` = x + c (a constant); a target may remember it for addressing."""

    def branch_if_zero(self, c: list, target: str) -> None:
        acc = c[0]
        for x in c[1:]:
            acc = self.bitop(self.BITWISE["or"], acc, x)
        self.branch_zero_limb(acc, target)

    # --- op handlers -------------------------------------------------------------------------
    def op_not(self, op):
        (a,) = self.args(op)
        out = self.lanewise(self.not_limb, a)
        self.put(op.results[0], self.mask(out, op.results[0].width))

    def op_neg(self, op):
        smear = self.bit_smear(op.args[0], op.results[0].width)
        if smear is not None:
            self.put(op.results[0], smear)
            return
        (a,) = self.args(op)
        w = op.results[0].width
        self.put(op.results[0], self.addsub(self.imm_limbs(0, w), a, w, True))

    def bit_smear(self, x, w: int) -> list | None:
        """0 - x for an x that is 0 or 1 (`value_bound`): all ones or zero, the same in every
        limb, so one register serves them all. Where x is one bit of a value (a zext of a
        1-bit slice) the target's `bit_mask(limb, j)` makes it from that bit directly (MSP430
        `bit`, ARMv6-M a shift pair) instead of shifting the bit down first; otherwise the
        low limb's negation. None where neither saves anything (x not 0/1, or a one-limb x
        with no bit to test)."""
        if self.value_bound(x) > 1:
            return None
        n = nlimbs(w, self.LIMB)
        bit = self.sliced_bit(x) if hasattr(self, "bit_mask") else None
        t = self.bit_mask(*bit) if bit is not None else None
        if t is None:
            if n < 2:
                return None
            t = self.addsub([Imm(0)], [self.get(x)[0]], self.LIMB, True)[0]
        return self.mask([t] * n, w)

    def op_add(self, op):
        a, b = self.args(op)
        w = op.results[0].width
        if self.const_of(a) is not None:
            a, b = b, a
        wa = w
        bound = self.value_bound(op.args[0]) + self.value_bound(op.args[1])
        if op.attrs.get("nowrap") or bound < 1 << w:
            # the sum cannot wrap: no mask to the result's width (limbs stay zero-extended)
            wa = self.LIMB * nlimbs(w, self.LIMB)
        k = max(1, nlimbs(bound.bit_length(), self.LIMB))
        if bound < 1 << w and k < nlimbs(w, self.LIMB):
            # a sum of bounded values (a buffer length plus a constant) fits its low limbs: the
            # limbs above are zero, no carry chain into them
            out = self.addsub(a[:k], b[:k], self.LIMB * k, False) + [Imm(0)] * (nlimbs(w, self.LIMB) - k)
        else:
            out = self.addsub(a, b, wa, False)
        c = self.const_of(b)
        if c is not None:
            self.note_affine(out, a, 1, c, w)
            self.note_offset(out, a, c)
        self.put(op.results[0], out)

    def op_sub(self, op):
        if self.const_of(self.get(op.args[0])) == 0:
            smear = self.bit_smear(op.args[1], op.results[0].width)
            if smear is not None:
                self.put(op.results[0], smear)
                return
        a, b = self.args(op)
        w = op.results[0].width
        c = self.const_of(a)
        k = nlimbs(max(c, 1).bit_length(), self.LIMB) if c is not None else 0
        if c is not None and k < nlimbs(w, self.LIMB) and self.value_bound(op.args[1]) <= c:
            # c - y with y at most c is at most c: its low limbs hold it, no borrow chain above
            out = self.addsub(a[:k], b[:k], self.LIMB * k, True) + [Imm(0)] * (nlimbs(w, self.LIMB) - k)
            self.note_affine(out, b, -1, c, w)
            self.put(op.results[0], out)
            return
        # a `nowrap` difference is never negative: no mask to the result's width
        out = self.addsub(a, b, self.LIMB * nlimbs(w, self.LIMB) if op.attrs.get("nowrap") else w, True)
        if self.const_of(b) is not None:
            self.note_affine(out, a, 1, -self.const_of(b), w)
        elif self.const_of(a) is not None:
            self.note_affine(out, b, -1, self.const_of(a), w)
        self.put(op.results[0], out)

    def _divmod(self, op, want_rem: bool):
        """udiv/umod: a power-of-two divisor is a shift or a mask, any other one (a single
        limb) goes to the target's `divide(a, b, width) -> (q, r)`."""
        a, b = self.args(op)
        w = op.results[0].width
        c = self.const_of(b)
        if c is None or c == 0 or c & (c - 1):
            if w > self.LIMB:
                raise SelectError(f"division wider than {self.LIMB} bits by a non-power of two is not supported yet")
            q, r = self.divide(a[0], b[0], w)
            self.put(op.results[0], [r if want_rem else q])
            return
        if want_rem:
            self.put(op.results[0], self.mask([self.bitop(self.BITWISE["and"], x, y) for x, y in
                                               zip(a, self.imm_limbs(c - 1, w))], w))
        else:
            self.put(op.results[0], self.shr_multi(a, c.bit_length() - 1, nlimbs(w, self.LIMB)))

    def op_udiv(self, op):
        self._divmod(op, False)

    def op_umod(self, op):
        self._divmod(op, True)

    def op_zext(self, op):
        (a,) = self.args(op)
        n = nlimbs(op.results[0].width, self.LIMB)
        self.put(op.results[0], (list(a) + [Imm(0)] * n)[:n])

    def op_trunc(self, op):
        (a,) = self.args(op)
        self.put(op.results[0], self.mask(a, op.results[0].width))

    def op_len(self, op):
        b = self.memory(op.args[0])
        limbs = list(b.length) + [Imm(0)] if b.length is not None else self.imm_limbs(b.count, 32)
        # u32, or u16 after word legalization (its high word is a separate constant 0)
        self.put(op.results[0], limbs[:nlimbs(op.results[0].width, self.LIMB)])

    def _compare(self, op, kind: str):
        """The six unsigned comparisons through the carry flag: C = (acc != 0) for eq/ne,
        C = (a >= b) for the orderings, then 0/1 from C."""
        a, b = self.args(op)
        if kind in ("eq", "ne"):
            # a value known to be 0 or 1 compared with 0 or 1 is itself or its complement
            for x, y, v in ((a, b, op.args[0]), (b, a, op.args[1])):
                c = self.const_of(y)
                if c in (0, 1) and self.const_of(x) is None and self.value_bound(v) <= 1:
                    bit = x[0] if (kind == "eq") == (c == 1) else self.bitop(self.BITWISE["xor"], x[0], Imm(1))
                    self.put(op.results[0], [bit])
                    return
        if kind in ("ugt", "ule"):
            a, b = b, a
            kind = {"ugt": "ult", "ule": "uge"}[kind]
        if kind in ("eq", "ne"):
            acc = Imm(0)
            for x, y in zip(a, b):
                acc = self.bitop(self.BITWISE["or"], acc, self.bitop(self.BITWISE["xor"], x, y))
            self.carry_if_nonzero(acc)
            self._carry_result(op.results[0], invert=(kind == "eq"))
            return
        self.carry_if_ge(a, b)
        self._carry_result(op.results[0], invert=(kind == "ult"))

    def _carry_result(self, r, invert: bool) -> None:
        """Comparison result r from the carry (r = C, or not C with `invert`): its 0/1 value, or,
        when r is read only as a select's condition, the select's mask straight from the carry
        (the targets' carry_mask: MSP430 subc, ARMv6-M sbcs, C - 1, or its complement) instead
        of the 0/1 value and its negation."""
        if self.chooses_only(r):
            self.put(r, [self.carry_mask(ones_when_carry=not invert)])
            self.compare_masks.add(id(r))
            return
        self.put(r, [self.carry_bit(invert=invert)])

    def op_select(self, op):
        c, a, b = self.args(op)
        # 0 or 1 -> mask 0 or all ones, branch-free (an ordering that only chooses here is its mask)
        m = c[0] if id(op.args[0]) in self.compare_masks else self.bit_to_mask(c[0])
        xor, and_ = self.BITWISE["xor"], self.BITWISE["and"]
        out = []
        for x, y in zip(a, b):
            diff = self.bitop(xor, x, y)
            out.append(self.bitop(xor, y, self.bitop(and_, diff, m)))
        self.put(op.results[0], out)
