"""The Cortex-M0+ cycle counts of ARM DDI 0484C Table 3-1 ("Cortex-M0+ instruction summary"), on
the samd21g18 chip file (cpu = "cortex-m0plus"): every row whose count differs from the Cortex-M0's
(the two-stage pipeline refills one stage less after a taken branch) and a sample of the rows that
are the same. Counted with zero wait states, as the table assumes; the chip's own wait state is
checked separately."""
from __future__ import annotations

import dataclasses

import pytest
from .armv6m_asm import load
from .test_armv6m_cycles import BUF, Case, _CONDS, _cond_holds, _program, _regs

from aedsl.chips import load as load_chip
from aedsl.sim.armv6m import ArmV6MSim
from aedsl.timing.armv6m import cycles as rule_cycles

pytestmark = pytest.mark.needs("armv6m")

CASES: list[Case] = [
    # the same as on the Cortex-M0: data processing 1, loads/stores 2, LDM/STM/PUSH/POP 1+N
    Case("dp:adds", "adds r3, r1, r2", 1), Case("dp:eors", "eors r3, r1", 1),
    Case("ldr", "ldr r3, [r0, #4]", 2, setup=f"ldr r0, ={BUF}"),
    Case("str", "str r3, [r0, r1]", 2, setup=f"ldr r0, ={BUF}\nmovs r1, #8"),
    *[Case(f"ldm:N={n}", f"ldm r7!, {{{_regs(n)}}}", 1 + n, setup=f"ldr r7, ={BUF}") for n in (1, 4, 7)],
    *[Case(f"push:N={n}", f"push {{{_regs(n)}}}", 1 + n) for n in (1, 5, 8)],
    Case("muls", "muls r1, r2, r1", 1, setup="movs r1, #3\nmovs r2, #5"),
    Case("wfi", "wfi", 2),
    # the rows that differ: MOV/ADD PC 2, POP {..,pc} 3+N, B 2, B<cc> taken 2, BL 3, BX/BLX 2,
    # MRS/MSR/ISB/DMB/DSB 3
    Case("mov_pc", "mov pc, r0\nnop\nnop\n.align 2\nend:", 2, setup="ldr r0, =end"),
    Case("add_pc", "add pc, r0\nnop\nnop", 2, setup="movs r0, #2"),
    *[Case(f"pop_pc:N={n}", ("pop {pc}" if n == 1 else f"pop {{{_regs(n - 1)}, pc}}") + "\nnop\nend:", 3 + n,
           setup="ldr r7, =end+1\npush {r7}" + ("" if n == 1 else f"\npush {{{_regs(n - 1)}}}"))
      for n in (1, 2, 5, 8)],
    Case("b", "b end\nnop\nend:", 2),
    Case("bl", "bl end\nnop\nend:", 3),
    Case("bx", "bx r0\nnop\n.align 2\nend:", 2, setup="ldr r0, =end+1"),
    Case("blx", "blx r0\nnop\n.align 2\nend:", 2, setup="ldr r0, =end+1"),
    Case("mrs", "mrs r3, apsr", 3), Case("msr", "msr apsr_nzcvq, r1", 3),
    Case("isb", "isb", 3), Case("dmb", "dmb", 3), Case("dsb", "dsb", 3),
]
for _cond in _CONDS:
    _all = [(n, z, c, v) for n in (0, 1) for z in (0, 1) for c in (0, 1) for v in (0, 1)]
    for _taken in (True, False):
        _flags = next(f for f in _all if bool(_cond_holds(_cond, *f)) == _taken)
        CASES.append(Case(f"b{_cond}:{'taken' if _taken else 'not_taken'}",
                          f"b{_cond} end\n" if _taken else f"b{_cond} 1f\nend:\nb .\n1:",
                          2 if _taken else 1, flags=_flags))

# The chip's own flash wait state (1 at 48 MHz): W per flash word fetched and per data word read.
_CHIP_WS = {"flash_wait_states": None}
CASES += [
    Case("ws1:4nop", ".align 2\nstart4: nop\nnop\nnop\nnop", 4 + 2, insns=4, chip=_CHIP_WS),
    Case("ws1:ldr_literal", ".align 2\nstart4: ldr r3, 1f\nnop\nb 2f\n.align 2\n1: .word 7\n2:",
         2 + 1 + 2 + 2 + 1, insns=3, chip=_CHIP_WS),   # as on the M0, with B taking 2
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_m0plus_cycles(case: Case):
    chip = load_chip("samd21g18")
    assert chip.cpu == "cortex-m0plus" and chip.flash_wait_states == 1
    if case.chip is None:
        chip = dataclasses.replace(chip, flash_wait_states=0)     # DDI 0484C counts zero wait states
    sim = ArmV6MSim(chip)
    syms = load(sim, _program(case))
    assert sim.run(1000, (syms["start"],)).reason == "stop_pc"
    if case.flags:
        sim.set_flags(*case.flags)
    sim.clear_counters()
    stop = sim.run(1000, (syms["end"],))
    assert stop.reason == "stop_pc", stop
    assert sim.instructions == case.insns
    assert sim.cycles == case.cycles


def test_cost_model_reads_the_m0plus_table():
    """The code generator's cost model and the simulator read the same table, chosen by chip.cpu."""
    m0p, m0 = load_chip("samd21g18"), load_chip("stm32f030")
    assert rule_cycles("b", m0p) == 2 and rule_cycles("b", m0) == 3
    assert rule_cycles("pop_pc", m0p, n_registers=2) == 5 and rule_cycles("pop_pc", m0, n_registers=2) == 6
    from aedsl.backends.armv6m.target import make_cost
    from aedsl.codegen.mir import Lbl, MInst
    assert make_cost(m0p)(MInst("jmp", [Lbl("x")]))[1] == 2
    assert make_cost(m0)(MInst("jmp", [Lbl("x")]))[1] == 3
    with pytest.raises(ValueError):
        rule_cycles("b", dataclasses.replace(m0, cpu="cortex-m3"))
