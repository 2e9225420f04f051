"""Behaviour of MSP430X stack/address instructions, RPT, and the run()/watch/stats plumbing."""
import pytest

from aedsl.sim.base import SimError
from .msp430_asm_helper import assemble, make_sim

pytestmark = pytest.mark.needs("msp430")


def run(src, regs=None, chip="cc430f6137", steps=1000):
    sim = make_sim(chip)
    c = sim.chip
    code, syms = assemble(src + "\nend: jmp end\n", "msp430x" if c.isa == "msp430x" else "msp430",
                          c.flash.origin, c.ram.origin)
    sim.write(c.flash.origin, code)
    sim.set_reg(0, c.flash.origin)
    sim.set_reg(1, c.ram.origin + c.ram.length)
    for r, v in (regs or {}).items():
        sim.set_reg(r, v)
    info = sim.run(steps, (syms["end"],))
    return sim, info, syms


def test_pushm_popm_roundtrip_20bit():
    sim, info, _ = run("""
  pushm.a #4, r15
  pushm.w #2, r11
  mov #0, r10
  mov #0, r11
  popm.w #2, r11
  mov #0, r12
  mov #0, r15
  popm.a #4, r15
""", {8: 0x11111, 9: 0x22222, 10: 0x3333, 11: 0x4444, 12: 0xABCDE, 13: 0x5, 14: 0xF0F0F, 15: 0x87654})
    assert info.reason == "stop_pc"
    assert [sim.get_reg(i) for i in range(8, 16)] == [0x11111, 0x22222, 0x3333, 0x4444, 0xABCDE, 0x5, 0xF0F0F, 0x87654]
    assert sim.get_reg(1) == 0x2C00


def test_calla_reta_mova_and_20bit_memory():
    sim, info, syms = run("""
  mova #0x12345, r5
  mova r5, &0x1C00
  mova &0x1C00, r6
  adda #0x10, r6
  calla #sub
  jmp end
sub:
  suba #1, r6
  reta
""")
    assert info.reason == "stop_pc"
    assert sim.read(0x1C00, 4) == bytes([0x45, 0x23, 0x01, 0x00])
    assert sim.get_reg(6) == 0x12354


def test_rpt_repeats_and_rrux():
    sim, info, _ = run("""
  rpt #4 { rlax.a r5
  rpt r7 { rrux.w r6
""", {5: 0x00013, 6: 0x8000, 7: 2})
    assert sim.get_reg(5) == 0x00130 and sim.get_reg(6) == 0x1000


def test_word_op_clears_upper_bits_and_byte_op_clears_high_byte():
    sim, info, _ = run("  add.w #1, r5\n  add.b #1, r6\n", {5: 0xFFFFF, 6: 0x12345})
    assert sim.get_reg(5) == 0x0000 and sim.get_reg(6) == 0x46


def test_step_limit_and_stop_pc():
    sim, info, _ = run("loop: jmp loop", steps=50)
    assert info.reason == "step_limit" and sim.instructions == 50 and sim.cycles == 100


def test_halt_on_cpuoff():
    sim, info, _ = run("  bis #0x10, sr\n  nop\n")
    assert info.reason == "halt" and sim.instructions == 1


def test_unmapped_and_flash_writes_and_unaligned_are_errors():
    with pytest.raises(SimError, match="unmapped word read at 0x03000"):
        run("  mov &0x3000, r5\n")
    with pytest.raises(SimError, match="write to flash at 0x08100"):
        run("  mov #1, &0x8100\n")
    with pytest.raises(SimError, match="unaligned word read at 0x01C01"):
        run("  mov @r5, r6\n", {5: 0x1C01})


def test_wdtctl_write_is_accepted():
    sim, info, _ = run("  mov #0x5A80, &0x015C\n  mov &0x015C, r5\n")
    assert info.reason == "stop_pc" and sim.get_reg(5) == 0
    sim, info, _ = run("  mov #0x5A80, &0x0120\n", chip="msp430f1611")
    assert info.reason == "stop_pc"


def test_extra_region_stack_watch_and_stats():
    sim = make_sim("cc430f6137", extra_regions=[(0x30000, 0x100)])
    code, syms = assemble("""
  push r5
  push r5
  pop r6
  movx.w #7, &0x30010
  movx.w &0x30010, r7
end: jmp end
""", "msp430x", 0x8000, 0x1C00)
    sim.write(0x8000, code)
    sim.set_reg(0, 0x8000)
    sim.set_reg(1, 0x2C00)
    sim.set_stack_watch(0x1C00, 0x2C00)
    sim.enable_stats(True)
    assert sim.run(100, (syms["end"],)).reason == "stop_pc"
    assert sim.stack_low_water() == 0x2BFC
    assert sim.get_reg(7) == 7 and sim.read(0x30010, 2) == b"\x07\x00"
    st = sim.stats()
    assert st.mnemonics == {"PUSH": 2, "MOV": 1, "MOVX": 2}
    assert st.mem_writes == 3 and st.mem_reads == 2
    assert st.addressing_modes["src:@Rn+"] == 1 and st.addressing_modes["dst:&EDE"] == 1


def test_reset_keeps_memory():
    sim, info, _ = run("  mov #0x1234, &0x1C00\n")
    sim.reset()
    assert sim.cycles == 0 and sim.get_reg(0) == 0 and sim.read(0x1C00, 2) == b"\x34\x12"
