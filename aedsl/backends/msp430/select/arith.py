"""MSP430 arithmetic: add/sub carry chains (and word legalization's addc/subb with the carry
kept in C), comparisons and branches through C, the loop counter, negation and bit permutations."""
from __future__ import annotations

from aedsl.codegen.mir import Imm, Lbl, R
from aedsl.codegen.select_base import nlimbs
from .operands import IN_FLAGS, use_counts


class Msp430Arith:
    """Selector mixin: the arithmetic hooks of codegen/select/arith.py and MSP430's own ops."""

    def addsub(self, a: list, b: list, width: int, sub: bool) -> list:
        mn = "sub" if sub else "add"
        n = nlimbs(width, 16)
        d = [self.copy(x) for x in a]
        for j in range(n):
            op = mn if j == 0 else mn + "c"
            self.emit(op, b[j], d[j])
        return self.mask(d, width)

    def select_block(self, block):
        # addc/subb need their carry's use count (is the next op its only reader?), so blocks
        # holding them count uses once; unrolled loops select the same block again (cache by id)
        saved = getattr(self, "_chain", None)
        if any(op.opcode in ("addc", "subb") for op in block.ops):
            cache = self.__dict__.setdefault("_use_counts", {})
            if id(block) not in cache:
                nxt = {id(a): b for a, b in zip(block.ops, block.ops[1:])}
                cache[id(block)] = (block, (nxt, use_counts(block)))
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
        if cin and cin[0] is IN_FLAGS:
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
            self.put(op.results[1], [IN_FLAGS])
            self._flags_at = len(self.mf.insts)
        else:
            self.put(op.results[0], [d])
            self.put(op.results[1], [self.carry_bit(invert=sub)])   # dead ones: DCE drops them

    def op_addc(self, op):
        self._carry_op(op, sub=False)

    def op_subb(self, op):
        self._carry_op(op, sub=True)

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
        hi = self.const_of(b)
        if (loop is not None and a is loop.idx and "inc" in loop.extra and hi is not None
                and len(self.mf.insts) == n0 + 2):
            cmp = self.mf.insts[n0]
            if loop.lo is not None:
                trips = (hi - loop.lo) // loop.step
                if trips > 0 and loop.lo + trips * loop.step == hi:
                    self.counted.append((loop.idx[0].reg, loop.extra["inc"], cmp, jump, trips, hi))
            elif loop.step == 1:         # entered only when lo < hi (branch_unless_less)
                self.counted.append((loop.idx[0].reg, loop.extra["inc"], cmp, jump, None, hi))

    def branch_unless_less(self, a, b, target):
        self.carry_of_sub(a, b)
        self.emit("jc", Lbl(target))

    def branch_unless_equal(self, a, value, target):
        self.emit("cmp", Imm(value), self.as_dst(a[0]))
        self.emit("jnz", Lbl(target))

    def carry_bit(self, invert: bool) -> R:
        r = R(self.vreg())
        self.emit("clr", r)           # mov #0: keeps the flags
        self.emit("adc", r)
        if invert:
            self.emit("xor", Imm(1), r)
        return r

    def carry_if_nonzero(self, acc) -> None:
        t = self.copy(acc)
        self.emit("sub", Imm(1), t)            # borrow (C = 0) iff acc == 0

    def carry_if_ge(self, a: list, b: list) -> None:
        a = list(a)
        if isinstance(a[0], Imm):
            a[0] = self.reg(a[0])
        self.carry_of_sub(a, b)                 # C = a >= b

    def op_neg(self, op):
        (a,) = self.args(op)
        smear = self.byte_sign_smear(a, op.results[0].width)
        if smear is not None:
            self.put(op.results[0], smear)
            return
        super().op_neg(op)

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

    def bit_mask(self, limb, j: int) -> R:
        """0xFFFF if bit j of limb is set, else 0: `bit` puts the bit in C (C = result != 0),
        `subc #0` on a zero makes C - 1, `inv` turns it over (SLAU144 §3.4.6: BIT, SUBC)."""
        d = self.copy(Imm(0))
        self.emit("bit", Imm(1 << j), self.as_dst(limb))
        self.emit("subc", Imm(0), d)
        self.emit("inv", d)
        return d

    def note_offset(self, out: list, x: list, c: int) -> None:
        if len(out) == 1 and isinstance(out[0], R) and isinstance(x[0], R) and out[0] != x[0]:
            self.offset_of[out[0].reg] = (x[0], c)      # for elem_addr

    def op_sub(self, op):
        a, b = self.args(op)
        if self.const_of(a) == 0:
            smear = self.byte_sign_smear(b, op.results[0].width)
            if smear is not None:
                self.put(op.results[0], smear)
                return
        super().op_sub(op)
