"""Cortex-M0 and Cortex-M0+ cycle rules, as data: the single source of the numbers for the
simulator's C core (passed in at init by `aedsl.sim.armv6m`) and for the ARMv6-M code generator's
cost model. The chip file's `cpu` picks the table ("cortex-m0" or "cortex-m0plus").

Source of every number: ARM DDI 0432C, Cortex-M0 Technical Reference Manual, Table 3-1
"Cortex-M0 instruction summary", and ARM DDI 0484C, Cortex-M0+ Technical Reference Manual,
Table 3-1 "Cortex-M0+ instruction summary" (cycle counts for a zero-wait-state system). The
Cortex-M0+ has a two-stage pipeline (DDI 0484C 1.2.1), so a taken branch refills one stage less:
B, B<cc> taken, BX, BLX and the ALU writes to PC take 2 cycles, BL 3, POP with PC 3+N; MRS, MSR,
ISB, DMB and DSB take 3. Everything else is as on the Cortex-M0.

N in the "1+N" / "4+N" rows is the number of registers in the instruction's register list. For
POP including PC we read N as counting PC too (POP {pc} = 4+1 = 5, POP {r4,pc} = 6), the same N
as in the 1+N rows of the table, as also recorded in /work/shared/facts/TARGETS.md.

Flash wait states are not part of Table 3-1 (it assumes zero wait states); the simulator adds
the chip's `flash_wait_states` W per 32-bit word fetched from flash — one instruction fetch per
flash word the fetch unit does not already hold (sequential code: once per two 16-bit
instructions; after a taken branch the target word again) and one per data word read from flash
(LDR literal, LDR/LDM from flash). See `wait_state_cycles`. STM32F030 has W = 0.
"""
from __future__ import annotations

from dataclasses import dataclass

TABLE = "ARM DDI 0432C Table 3-1"
TABLES = {"cortex-m0": "ARM DDI 0432C Table 3-1", "cortex-m0plus": "ARM DDI 0484C Table 3-1"}


@dataclass(frozen=True)
class CycleRule:
    base: int               # cycles for the instruction
    per_register: int       # plus this many per register in the list (the "+N" rows)
    rows: str               # the Table 3-1 rows this rule covers, for the reader

    def cycles(self, n_registers: int = 0) -> int:
        return self.base + self.per_register * n_registers


# Timing class name -> rule. The C core exports its class order (armv6m_timing_names) and the
# wrapper passes these numbers by name, so adding a class means adding it in both places.
_RULES: dict[str, CycleRule] = {
    # Table 3-1 Move/Add/Subtract/Compare/Logical/Shift/Rotate/Extend/Reverse rows, ADR, SP add/sub.
    "dp": CycleRule(1, 0, "MOVS/MOV, ADD/ADDS/ADCS, ADR, SUB/SUBS/SBCS, RSBS, CMP/CMN, ANDS/EORS/ORRS/"
                          "BICS/MVNS/TST, LSLS/LSRS/ASRS/RORS, SXTH/SXTB/UXTH/UXTB, REV/REV16/REVSH: 1"),
    "alu_pc": CycleRule(3, 0, "MOV PC,Rm: 3; ADD PC,PC,Rm: 3"),
    "muls": CycleRule(1, 0, "MULS: 1 or 32 (implementation option; the chip file decides)"),
    "ldr": CycleRule(2, 0, "LDR/LDRH/LDRB/LDRSH/LDRSB, immediate/register/PC-relative/SP-relative: 2"),
    "str": CycleRule(2, 0, "STR/STRH/STRB, immediate/register/SP-relative: 2"),
    "ldm": CycleRule(1, 1, "LDM Rn!,{loregs}: 1+N"),
    "stm": CycleRule(1, 1, "STM Rn!,{loregs}: 1+N"),
    "push": CycleRule(1, 1, "PUSH {loregs[,lr]}: 1+N"),
    "pop": CycleRule(1, 1, "POP {loregs}: 1+N"),
    "pop_pc": CycleRule(4, 1, "POP {loregs,pc}: 4+N (N includes PC)"),
    "b": CycleRule(3, 0, "B label: 3"),
    "bcc_taken": CycleRule(3, 0, "B<cc> label, taken: 3"),
    "bcc_not_taken": CycleRule(1, 0, "B<cc> label, not taken: 1"),
    "bl": CycleRule(4, 0, "BL label: 4"),
    "bx": CycleRule(3, 0, "BX Rm: 3"),
    "blx": CycleRule(3, 0, "BLX Rm: 3"),
    "mrs": CycleRule(4, 0, "MRS Rd,<specreg>: 4"),
    "msr": CycleRule(4, 0, "MSR <specreg>,Rn: 4"),
    "isb": CycleRule(4, 0, "ISB: 4"),
    "dmb": CycleRule(4, 0, "DMB: 4"),
    "dsb": CycleRule(4, 0, "DSB: 4"),
    "cps": CycleRule(1, 0, "CPSID i / CPSIE i: 1"),
    "nop": CycleRule(1, 0, "NOP: 1"),
    "yield": CycleRule(1, 0, "YIELD: 1"),
    "sev": CycleRule(1, 0, "SEV: 1"),
    "wfe": CycleRule(2, 0, "WFE: 2"),
    "wfi": CycleRule(2, 0, "WFI: 2"),
}


# DDI 0484C Table 3-1: the rows whose counts differ from the Cortex-M0's (two-stage pipeline).
_M0PLUS_CHANGES: dict[str, CycleRule] = {
    "alu_pc": CycleRule(2, 0, "MOV PC,Rm: 2; ADD PC,PC,Rm: 2"),
    "pop_pc": CycleRule(3, 1, "POP {loregs,pc}: 3+N (N includes PC)"),
    "b": CycleRule(2, 0, "B label: 2"),
    "bcc_taken": CycleRule(2, 0, "B<cc> label, taken: 2"),
    "bl": CycleRule(3, 0, "BL label: 3"),
    "bx": CycleRule(2, 0, "BX Rm: 2"),
    "blx": CycleRule(2, 0, "BLX Rm: 2"),
    "mrs": CycleRule(3, 0, "MRS Rd,<specreg>: 3"),
    "msr": CycleRule(3, 0, "MSR <specreg>,Rn: 3"),
    "isb": CycleRule(3, 0, "ISB: 3"),
    "dmb": CycleRule(3, 0, "DMB: 3"),
    "dsb": CycleRule(3, 0, "DSB: 3"),
}
_CORES: dict[str, dict[str, CycleRule]] = {"cortex-m0": _RULES, "cortex-m0plus": {**_RULES, **_M0PLUS_CHANGES}}


def multiplier_cycles(chip) -> int:
    """MULS cycles from the chip file ([multiplier] cycles = 1 or 32); Table 3-1 allows only these."""
    cyc = int(chip.multiplier.get("cycles", 1)) if chip is not None else 1
    if cyc not in (1, 32):
        raise ValueError(f"chip {chip.name}: MULS takes 1 or 32 cycles on Cortex-M0 ({TABLE}), not {cyc}")
    return cyc


def rules(chip=None) -> dict[str, CycleRule]:
    """All cycle rules for `chip`: its core's table (chip.cpu; a Cortex-M0 without a chip), the
    chip-dependent entries filled in from the chip file."""
    cpu = chip.cpu if chip is not None else "cortex-m0"
    if cpu not in _CORES:
        raise ValueError(f"chip {chip.name}: no ARMv6-M cycle table for core {cpu!r}; known: {', '.join(_CORES)}")
    out = dict(_CORES[cpu])
    out["muls"] = CycleRule(multiplier_cycles(chip), 0, _RULES["muls"].rows)
    return out


def cycles(name: str, chip=None, n_registers: int = 0) -> int:
    """Cycles of one instruction of timing class `name` (zero wait states)."""
    return rules(chip)[name].cycles(n_registers)


def wait_state_cycles(chip, flash_words_fetched: int, flash_words_read: int) -> int:
    """Extra cycles the simulator charges for flash wait states (model in the module docstring)."""
    return chip.flash_wait_states * (flash_words_fetched + flash_words_read)
