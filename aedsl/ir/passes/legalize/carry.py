"""Lowering of wide add, sub, neg and comparisons to carry chains.

add/sub: a chain of `addc`/`subb` (ops with a second u1 result, the carry/borrow; see nodes.py)
from word 0 up; neg = 0 - x. ult/ule/ugt/uge: the final borrow of a subtraction chain (operands
swapped for ugt/ule, negated for ule/uge); eq/ne: per word, combined with and/or.

Preserves: the value mod 2^width of every sum and difference, and every comparison's result.
"""
from __future__ import annotations

from ...nodes import Value
from .layout import word_widths


class Carry:
    def add_words(self, a: list[Value], b: list[Value], sub: bool = False, base: str = "w"):
        """Word lists of equal widths -> (sum words, final carry/borrow)."""
        carry = self.const(0, 1)
        out = []
        for x, y in zip(a, b):
            s, carry = self.op("subb" if sub else "addc", [x.width, 1], [x, y, carry], None, base)
            out.append(s)
        return out, carry

    def l_add(self, op, w, base):
        return self.add_words(self.get(op.args[0]), self.get(op.args[1]), base=base)[0]

    def l_sub(self, op, w, base):
        return self.add_words(self.get(op.args[0]), self.get(op.args[1]), sub=True, base=base)[0]

    def l_neg(self, op, w, base):
        zero = [self.const(0, ww) for ww in word_widths(w, self.W)]
        return self.add_words(zero, self.get(op.args[0]), sub=True, base=base)[0]

    def _compare(self, op, w, base):
        a, b = self.get(op.args[0]), self.get(op.args[1])
        code = op.opcode
        if code in ("eq", "ne"):
            per = [self.op(code, 1, [x, y]) for x, y in zip(a, b)]
            return [self.reduce("and" if code == "eq" else "or", per)]
        if code in ("ugt", "ule"):
            a, b = b, a
        borrow = self.add_words(a, b, sub=True)[1]   # a < b
        if code in ("ult", "ugt"):
            return [borrow]
        return [self.op("xor", 1, [borrow, self.const(1, 1)])]

    l_eq = l_ne = l_ult = l_ule = l_ugt = l_uge = _compare
