"""The MSP430 selector: the class, its register and limb helpers, and the frame.

`Msp430Selector` is `SelectorBase` with the shared mixins of aedsl/codegen/select and the
MSP430 modules of this package (each a mixin of one responsibility); the small helpers here
(`reg`, `copy`, `as_dst`, `mask`, `and_imm`, `bitop`) are what every other module builds on.
"""
from __future__ import annotations

from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, R
from aedsl.codegen.select.arith import ArithOps
from aedsl.codegen.select.bytes import ByteBlocks
from aedsl.codegen.select.loops import LoopAddressing
from aedsl.codegen.select.shifts import ShiftOps
from aedsl.codegen.select_base import SelectorBase, nlimbs
from ..accel import Msp430Accel            # accel_start / accel_result (the AES128 module)
from ..multiplier import Msp430Multiplier  # MPY16 / MPY32 16x16 -> 32 products
from ..target import SP
from .arith import Msp430Arith
from .buffers import Msp430Buffers
from .calls import Msp430Calls, element_stride
from .gather import Msp430Gather
from .memory import Msp430Memory
from .mul import Msp430MulDiv
from .operands import M16, top_mask
from .shifts import Msp430Shifts


# The MSP430 mixins come first (their handlers override the shared ones and call them for the
# general case; their walk hooks run before the accelerator's), then the shared handlers.
class Msp430Selector(Msp430Arith, Msp430Shifts, Msp430MulDiv, Msp430Gather, Msp430Memory, Msp430Buffers,
                     Msp430Calls, Msp430Accel, Msp430Multiplier,
                     ArithOps, ShiftOps, ByteBlocks, LoopAddressing, SelectorBase):
    LIMB = 16
    BITWISE = {"xor": "xor", "and": "and", "or": "bis"}
    # Pointers are 16-bit and addresses 0x0000-0x01FF hold the special function and peripheral
    # registers (SLAU144 §1.4 "Address Space"; MSP430X: 0x0000-0x0FFF, SLAU208 §1.4), so a byte
    # buffer lies in 0x0200..0xFFFF: its length fits 0xFE00. A length plus a block's worth of
    # bytes then fits one word (`(n + 15) / 16` needs no 32-bit carry).
    MAX_BUFFER_BYTES = 0x10000 - 0x0200

    def __init__(self, module, mf, prefix, cpux: bool):
        super().__init__(module, mf, prefix)
        self.cpux = cpux
        self.byte_src: dict = {}          # 8-bit slice Value -> (source limbs, limb, byte)
        self.walk_regs: set = set()       # walking pointers (candidates for @Rn+)
        self.windows: dict = {}           # id(scope) -> (scope, {(value, block): {lo: window}}) (op_slice)
        self.counted: list = []           # loops whose index may become a down-counter
        self.top_bit_of: dict = {}        # vreg holding (y >> 7) of a byte y -> y's limb
        self.unmasked_of: dict = {}       # byte vreg -> the same value before its `mov.b` mask
        self.offset_of: dict = {}         # vreg = x + c (a 16-bit add of a constant) -> (x, c)

    def stride(self, elem_width: int) -> int:
        return element_stride(elem_width)

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
        m = top_mask(width)
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

    def and_not(self, a, x):
        """a & ~x on one limb: `bic x, d` (SLAU144 §3.4.6: BIC)."""
        d = self.copy(a)
        self.emit("bic", x, d)
        return d

    def configure_accel(self, chip, schedule: str, chain: str = "xor_in", rolled_keys: bool = False) -> None:
        """The backend hands the chip over here; the multiplier is a chip peripheral too."""
        super().configure_accel(chip, schedule, chain, rolled_keys)
        self.configure_multiplier(chip)

    # --- hooks of the shared handlers (aedsl/codegen/select) -----------------------------------
    DEMANDED_BITS = True                # select_base.demanded: shifts under a mask lose dead halves

    def not_limb(self, x) -> R:
        d = self.copy(x)
        self.emit("inv", d)
        return d

    def carry_mask(self, ones_when_carry: bool) -> R:
        """0xFFFF or 0 from C: `subc #0` on a zero makes C - 1, all ones when C is clear
        (peephole.carry_masks then drops the zeroing), `inv` turns it over (SLAU144 §3.4.6)."""
        d = self.copy(Imm(0))
        self.emit("subc", Imm(0), d)
        if ones_when_carry:
            self.emit("inv", d)
        return d

    def bit_to_mask(self, bit) -> R:
        m = self.copy(bit)                    # 0 or 1 -> 0 or 0xFFFF
        self.emit("inv", m)
        self.emit("inc", m)
        return m

    def branch_zero_limb(self, acc, target: str) -> None:
        self.emit("tst", self.as_dst(acc))
        self.emit("jz", Lbl(target))

    # --- basic blocks and the frame ------------------------------------------------------------
    def label(self, name: str) -> None:
        self.scaled_memo = {}               # a value may change across a block boundary
        self.premult_memo = {}
        self.swap_memo = {}
        super().label(name)

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
