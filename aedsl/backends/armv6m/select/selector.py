"""The ARMv6-M selector: the class, deferred selection, constant registers, limb helpers, frame.

`ArmSelector` is `SelectorBase` with the shared mixins of aedsl/codegen/select and the ARMv6-M
modules of this package (each a mixin of one responsibility). Here: byte extractions and table
lookups selected at their first use (`_Deferred`), constants and addresses cached per
straight-line region (`kcache`), and the helpers every other module builds on (`reg`, `copy`,
`dp2`, `mask_top`, `mask`, `bitop`).
"""
from __future__ import annotations

from aedsl.ir.nodes import Memory, Op

from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, R
from aedsl.codegen.select.arith import ArithOps
from aedsl.codegen.select.bytes import ByteBlocks
from aedsl.codegen.select.loops import LoopAddressing
from aedsl.codegen.select.shifts import ShiftOps
from aedsl.codegen.select_base import SelectorBase, nlimbs
from ..target import SP
from .arith import ArmArith
from .buffers import ArmBuffers
from .calls import ArmCalls, element_stride
from .memory import ArmMemory
from .operands import LIMB, M32
from .shifts import ArmShifts


class _Deferred:
    """The limb of a value whose op is selected at its first use (see ArmSelector.select_op)."""
    __slots__ = ("op", "vals", "mems")

    def __init__(self, op: Op, vals: dict, mems: dict):
        self.op, self.vals, self.mems = op, vals, mems


# The ARMv6-M mixins come first (their handlers override the shared ones and call them for the
# general case), then the shared handlers.
class ArmSelector(ArmArith, ArmShifts, ArmMemory, ArmBuffers, ArmCalls,
                  ArithOps, ShiftOps, ByteBlocks, LoopAddressing, SelectorBase):
    LIMB = LIMB
    BITWISE = {"xor": "eors", "and": "ands", "or": "orrs"}
    END_REBASE = True           # byte-buffer loops count up to zero (memory.py's hooks)

    def __init__(self, module, mf, prefix):
        super().__init__(module, mf, prefix)
        self.kcache: dict = {}          # ("k", value) / ("tbl", name) / ("local", name) -> R

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
            self.origin, self.origin_loc = op.opcode, self.loc
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
        saved = self.loc, self.origin, self.origin_loc
        self.scopes.append((d.vals, d.mems))
        try:
            SelectorBase.select_op(self, d.op)
        finally:
            self.scopes.pop()
            self.loc, self.origin, self.origin_loc = saved

    def materialize_pending(self) -> None:
        for vals, v, j in self.pending:
            limbs = vals.get(v)
            if limbs is not None and j < len(limbs) and isinstance(limbs[j], _Deferred):
                self._force(limbs[j])
        super().materialize_pending()

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

    def stride(self, elem_width: int) -> int:
        return element_stride(elem_width)

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

    def and_not(self, a, x):
        """a & ~x on one limb: `bics d, x` (DDI0432C A6.7.10 BIC)."""
        return self.dp2("bics", a, x)

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

    # --- hooks of the shared handlers (aedsl/codegen/select) -----------------------------------
    def not_limb(self, x) -> R:
        d = self.fresh()
        self.emit("mvns", d, self.reg(x))
        return d

    def carry_mask(self, ones_when_carry: bool) -> R:
        """0xFFFFFFFF or 0 from C: MOVS #0 keeps C, SBCS m, m makes m - m - NOT(C) = C - 1, all
        ones when C is clear; MVNS turns it over (DDI0432C A6.7.51 SBCS)."""
        m = self.fresh()
        self.emit("mov", Imm(0), m)
        self.emit("sbcs", m, m)
        if ones_when_carry:
            n = self.fresh()
            self.emit("mvns", n, m)
            return n
        return m

    def bit_to_mask(self, bit) -> R:
        m = self.fresh()                        # 0 or 1 -> 0 or all ones
        self.emit("rsbs", m, self.reg(bit))
        return m

    def branch_zero_limb(self, acc, target: str) -> None:
        self.emit("cmpi", self.reg(acc), Imm(0))
        self.emit("beq", Lbl(target))

    def carry_if_nonzero(self, acc) -> None:
        t = self.fresh()
        self.emit("subs", t, self.reg(acc), Imm(1))     # C = (acc >= 1) = (acc != 0)

    def carry_if_ge(self, a: list, b: list) -> None:
        self.compare_carry(a, b)                        # C = a >= b

    # --- the frame -----------------------------------------------------------------------------
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
