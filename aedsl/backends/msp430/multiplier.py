"""The MSP430 hardware multiplier (MPY16 / MPY32) in MSP430 code: 16x16 -> 32 products.

The chip file's `[multiplier]` gives kind and base (aedsl/chips/*.toml); the register offsets
are the module's own map, the same on MPY16 (MSP430F1611, base 0x0130) and MPY32 (F5xx/CC430,
base 0x04C0) for the 16-bit registers used here (../shared/facts/TARGETS.md):
MPY 0x00 (unsigned operand 1), OP2 0x08 (operand 2, starts the multiply), RESLO 0x0A, RESHI 0x0C.

Timing: RESLO/RESHI of a 16x16 multiply are readable 3 MCLK cycles after the OP2 write on MPY32
(TI SLAU367 Table 5-5) and immediately on MPY16. The result is read by `mov &RESLO, Rn`, itself
3 cycles (SLAU208/SLAU144 Format I tables), so the read right after the OP2 write already meets
the latency; spill code the allocator may insert in between only adds cycles. `configure_multiplier`
checks this against the cycle tables instead of assuming it.

Reads are emitted as `movio` (printed `mov`): never removed as dead, never narrowed to a byte
read by the peephole pass (the module faults byte reads), never merged with another read.

Interrupts: generated code runs with interrupts disabled (no handlers), so the OP1/OP2/RES sequence
needs no save/restore of the multiplier state around it.
"""
from __future__ import annotations

from aedsl.timing.msp430 import format1_cycles

from aedsl.codegen.mir import Imm, Mem, R
from aedsl.codegen.select_base import SelectError

MPY_REGS = {"MPY": 0x00, "OP2": 0x08, "RESLO": 0x0A, "RESHI": 0x0C}
# 16x16 result latency (cycles after the OP2 write) by multiplier kind.
MPY16X16_LATENCY = {"mpy16": 0, "mpy32": 3}


class Msp430Multiplier:
    """Selector mixin: `hw_mul16x16(a, b, want_hi)` when the chip has a multiplier (`self.mpy_base`)."""

    mpy_base: int | None = None

    def configure_multiplier(self, chip) -> None:
        kind = (chip.multiplier.get("kind") if chip is not None else None) or None
        if kind not in MPY16X16_LATENCY:
            self.mpy_base = None            # no (usable) multiplier: shift-and-add
            return
        read_cycles = format1_cycles(chip.cpu, "mov", "&EDE", "Rm")
        if read_cycles < MPY16X16_LATENCY[kind]:
            raise SelectError(f"{chip.name}: a RESLO read ({read_cycles} cycles) right after OP2 would come "
                              f"before the {MPY16X16_LATENCY[kind]}-cycle multiplier latency")
        self.mpy_base = int(chip.multiplier["base"])

    def _mpy_reg(self, name: str) -> Mem:
        return Mem(None, f"{self.mpy_base + MPY_REGS[name]:#06x}")

    def hw_mul16x16(self, a, b, want_hi: bool) -> list:
        """[lo] or [lo, hi] of the unsigned product of two 16-bit limbs (any source operands)."""
        self.emit("mov", a, self._mpy_reg("MPY"))
        self.emit("mov", b, self._mpy_reg("OP2"))
        lo = R(self.vreg())
        self.emit("movio", self._mpy_reg("RESLO"), lo)
        if not want_hi:
            return [lo]
        hi = R(self.vreg())
        self.emit("movio", self._mpy_reg("RESHI"), hi)
        return [lo, hi]

    def has_hw_mul(self) -> bool:
        return self.mpy_base is not None

    @staticmethod
    def imm_zero(limb) -> bool:
        return isinstance(limb, Imm) and limb.value & 0xFFFF == 0
