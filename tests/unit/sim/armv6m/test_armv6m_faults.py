"""Faults name the PC; BKPT halts; the step limit, stack watch, statistics, regions and reset."""
from __future__ import annotations

import dataclasses

import pytest
from .armv6m_asm import load

from aedsl.chips import load as load_chip
from aedsl.sim.armv6m import ArmV6MSim
from aedsl.sim.base import SimError

pytestmark = pytest.mark.needs("armv6m")

FAULTS = {
    "unaligned_ldr": ("ldr r0, =0x20000001", "ldr r1, [r0]", "unaligned word read at 0x20000001"),
    "unaligned_ldrh": ("ldr r0, =0x20000003", "ldrh r1, [r0, #0]", "unaligned halfword read at 0x20000003"),
    "unaligned_str": ("ldr r0, =0x20000002", "str r1, [r0]", "unaligned word write at 0x20000002"),
    "unaligned_ldm": ("ldr r0, =0x20000002", "ldm r0!, {r1, r2}", "unaligned word read at 0x20000002"),
    "undefined_udf": ("", "udf #7", "UDF #7"),
    "undefined_cbz": ("", ".short 0xb100", "undefined instruction 0xb100"),       # CBZ: ARMv7-M only
    "undefined_it": ("", ".short 0xbf08", "undefined instruction 0xbf08"),        # IT: ARMv7-M only
    "undefined_32bit": ("", ".short 0xe800\n.short 0x0000", "undefined instruction"),
    "undefined_thumb2": ("", ".short 0xf04f\n.short 0x0000", "undefined instruction 0xf04f 0x0000"),  # MOV.W
    "unmapped_read": ("ldr r0, =0x40000000", "ldr r1, [r0]", "read at unmapped address 0x40000000"),
    "unmapped_write": ("ldr r0, =0x1ffffffc", "str r1, [r0]", "write at unmapped address 0x1ffffffc"),
    "unmapped_stack": ("ldr r0, =0x20000000\nmov sp, r0", "push {r0}", "unmapped stack"),
    "flash_write": ("ldr r0, =0x08000100", "str r1, [r0]", "write to flash"),
    "bx_arm_state": ("ldr r0, =0x08000100", "bx r0", "bit 0 clear"),
    "pop_pc_arm_state": ("movs r0, #0\npush {r0}", "pop {pc}", "bit 0 clear"),
    "svc": ("", "svc #3", "SVC #3"),
    "stm_base_not_lowest": ("ldr r1, =0x20000100", ".short 0xc103", "UNPREDICTABLE"),   # STM r1!, {r0, r1}
    "empty_pop": ("", ".short 0xbc00", "UNPREDICTABLE instruction 0xbc00 (empty register list)"),  # POP {}
}


@pytest.mark.parametrize("name", FAULTS)
def test_fault_names_pc(name):
    setup, insn, text = FAULTS[name]
    sim = ArmV6MSim(load_chip("stm32f030"))
    syms = load(sim, f"{setup}\nstart:\n{insn}\nbkpt #0\n.ltorg\n")
    pc = syms["start"]
    with pytest.raises(SimError) as err:
        sim.run(100)
    msg = str(err.value)
    assert f"pc=0x{pc:08x}" in msg and text in msg, msg
    assert sim.get_reg(15) == pc           # the faulting instruction did not complete


def test_fetch_from_unmapped_memory():
    sim = ArmV6MSim(load_chip("stm32f030"))
    load(sim, "ldr r0, =0x30000001\nbx r0\n.ltorg\n")
    with pytest.raises(SimError, match="pc=0x30000000: instruction fetch from unmapped"):
        sim.run(100)


def test_bkpt_halts_and_step_limit():
    sim = ArmV6MSim(load_chip("stm32f030"))
    syms = load(sim, "movs r0, #1\nmovs r1, #2\nhere: bkpt #9\n")
    stop = sim.run(1)
    assert (stop.reason, stop.pc, sim.instructions) == ("step_limit", syms["here"] - 2, 1)
    stop = sim.run(100)
    assert (stop.reason, stop.pc) == ("halt", syms["here"])
    assert "BKPT #9" in stop.message and sim.instructions == 2 and sim.get_reg(1) == 2


def test_stop_pc_is_checked_before_executing():
    sim = ArmV6MSim(load_chip("stm32f030"))
    syms = load(sim, "start: movs r0, #1\nadds r0, #1\nthere: adds r0, #1\nbkpt #0\n")
    assert sim.run(100, (syms["start"],)).reason == "stop_pc" and sim.instructions == 0
    stop = sim.run(100, (syms["there"] | 1,))      # a Thumb-bit address is accepted too
    assert (stop.reason, stop.pc, sim.get_reg(0)) == ("stop_pc", syms["there"], 2)


def test_stack_watch_and_stats():
    sim = ArmV6MSim(load_chip("stm32f030"))
    load(sim, "push {r0-r3}\nsub sp, #8\nstr r0, [sp]\nadd sp, #8\npop {r0-r3}\n"
              "ldr r1, =0x20000010\nstrb r0, [r1]\nbkpt #0\n.ltorg\n")
    top = sim.chip.ram.end
    sim.set_stack_watch(top - 0x100, top)
    assert sim.stack_low_water() is None
    sim.enable_stats()
    assert sim.run(100).reason == "halt"
    assert sim.stack_low_water() == top - 24     # 16 bytes pushed + 8 reserved; the strb is outside
    st = sim.stats()
    assert st.mnemonics == {"push": 1, "sub": 1, "str": 1, "add": 1, "pop": 1, "ldr": 1, "strb": 1}
    assert (st.mem_reads, st.mem_writes) == (4 + 1, 4 + 1 + 1)


def test_extra_region_and_registers():
    sim = ArmV6MSim(load_chip("stm32f030"), extra_regions=[(0x30000000, 0x100)])
    load(sim, "ldr r0, =0x30000000\nldr r1, [r0, #4]\nadds r1, #1\nstr r1, [r0, #8]\n"
              "movs r2, #0\nsubs r2, #1\nmov r9, r2\nmrs r3, apsr\nbkpt #0\n.ltorg\n")
    sim.write(0x30000004, (41).to_bytes(4, "little"))
    assert sim.run(100).reason == "halt"
    assert sim.read_u32(0x30000008) == 42
    assert sim.get_reg(9) == 0xFFFFFFFF
    assert sim.get_flags() == (1, 0, 0, 0)       # 0 - 1: N, no carry (borrow), no overflow
    assert sim.get_reg(3) == 0x80000000
    sim.set_flags(0, 1, 1, 0)
    assert sim.get_xpsr() >> 28 == 0b0110
    with pytest.raises(ValueError, match="overlapping"):
        ArmV6MSim(load_chip("stm32f030"), extra_regions=[(0x20000800, 0x100)])


def test_reset_reads_vector_table_and_psp_switch():
    chip = load_chip("stm32f030")
    sim = ArmV6MSim(chip)
    syms = load(sim, ".word 0x20000800\n.word start+1\nstart:\nldr r0, =0x20000400\nmsr psp, r0\n"
                     "movs r1, #2\nmsr control, r1\nisb\npush {r1}\nmrs r2, msp\nbkpt #0\n.ltorg\n")
    sim.reset()
    assert (sim.get_reg(13), sim.get_reg(15), sim.get_reg(14)) == (0x20000800, syms["start"], 0xFFFFFFFF)
    assert sim.run(100).reason == "halt"
    assert sim.get_reg(13) == 0x20000400 - 4          # PUSH used the process stack
    assert sim.get_reg(2) == 0x20000800               # MSP untouched
    assert sim.get_special("control") == 2 and sim.get_special("psp") == 0x20000400 - 4


def test_muls_cycles_must_be_1_or_32():
    chip = dataclasses.replace(load_chip("stm32f030"), multiplier={"kind": "muls", "cycles": 16})
    with pytest.raises(ValueError, match="1 or 32"):
        ArmV6MSim(chip)


def test_rejects_other_isa():
    with pytest.raises(ValueError, match="armv6m"):
        ArmV6MSim(load_chip("cc430f6137"))
