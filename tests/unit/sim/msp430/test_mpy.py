"""MPY32 (0x04C0, CC430/F5xx) and MPY16 (0x0130, F1611) models: products, MAC, signed forms,
SUMEXT, and the loud error on reading a result register before its latency (TARGETS.md)."""
import pytest

from aedsl.sim.base import SimError
from .msp430_asm_helper import assemble, make_sim

pytestmark = pytest.mark.needs("msp430")

REG32 = """
.set MPY, 0x04C0
.set MPYS, 0x04C2
.set MAC, 0x04C4
.set MACS, 0x04C6
.set OP2, 0x04C8
.set RESLO, 0x04CA
.set RESHI, 0x04CC
.set SUMEXT, 0x04CE
.set MPY32L, 0x04D0
.set MPY32H, 0x04D2
.set MPYS32L, 0x04D4
.set MPYS32H, 0x04D6
.set OP2L, 0x04E0
.set OP2H, 0x04E2
.set RES0, 0x04E4
.set RES1, 0x04E6
.set RES2, 0x04E8
.set RES3, 0x04EA
"""


def run(src, chip="cc430f6137"):
    sim = make_sim(chip)
    c = sim.chip
    code, syms = assemble(REG32 + src + "\nend: jmp end\n", "msp430x" if c.isa == "msp430x" else "msp430",
                          c.flash.origin, c.ram.origin)
    sim.write(c.flash.origin, code)
    sim.set_reg(0, c.flash.origin)
    assert sim.run(1000, (syms["end"],)).reason == "stop_pc"
    return sim


def s16(x):
    return x - 0x10000 if x & 0x8000 else x


PAIRS16 = [(0, 0), (3, 5), (0xFFFF, 0xFFFF), (0x8000, 0x7FFF), (0x1234, 0xFEDC), (0x8000, 0x8000)]


@pytest.mark.parametrize("a,b", PAIRS16)
def test_16x16_unsigned_and_signed(a, b):
    sim = run(f"""
  mov #{a}, &MPY
  mov #{b}, &OP2
  mov &RESLO, r8
  mov &RESHI, r9
  mov &SUMEXT, r10
  mov #{a}, &MPYS
  mov #{b}, &OP2
  mov &RESLO, r11
  mov &RESHI, r12
  mov &SUMEXT, r13
""")
    p = a * b
    assert (sim.get_reg(8), sim.get_reg(9), sim.get_reg(10)) == (p & 0xFFFF, p >> 16, 0)
    ps = (s16(a) * s16(b)) & 0xFFFFFFFF
    assert (sim.get_reg(11), sim.get_reg(12)) == (ps & 0xFFFF, ps >> 16)
    assert sim.get_reg(13) == (0xFFFF if s16(a) * s16(b) < 0 else 0)


@pytest.mark.parametrize("a,b,c,d", [(3, 5, 7, 11), (0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF), (0x8000, 2, 0x7FFF, 0x7FFF)])
def test_mac_and_macs(a, b, c, d):
    sim = run(f"""
  mov #{a}, &MPY
  mov #{b}, &OP2
  mov #{c}, &MAC
  mov #{d}, &OP2
  mov &RESLO, r8
  mov &RESHI, r9
  mov &SUMEXT, r10
  mov #{a}, &MPYS
  mov #{b}, &OP2
  mov #{c}, &MACS
  mov #{d}, &OP2
  mov &RESLO, r11
  mov &RESHI, r12
  mov &SUMEXT, r13
""")
    acc = a * b + c * d
    assert (sim.get_reg(8), sim.get_reg(9), sim.get_reg(10)) == (acc & 0xFFFF, (acc >> 16) & 0xFFFF, acc >> 32)
    accs = (s16(a) * s16(b) + s16(c) * s16(d)) & 0xFFFFFFFF
    assert (sim.get_reg(11), sim.get_reg(12)) == (accs & 0xFFFF, accs >> 16)
    assert sim.get_reg(13) == (0xFFFF if accs & 0x80000000 else 0)


PAIRS32 = [(0xFFFFFFFF, 0xFFFFFFFF), (0x12345678, 0x9ABCDEF0), (0x80000000, 0x7FFFFFFF), (1, 0xFFFFFFFF)]


@pytest.mark.parametrize("a,b", PAIRS32)
@pytest.mark.parametrize("signed", [False, True])
def test_32x32(a, b, signed):
    op = "MPYS32" if signed else "MPY32"
    sim = run(f"""
  mov #{a & 0xFFFF}, &{op}L
  mov #{a >> 16}, &{op}H
  mov #{b & 0xFFFF}, &OP2L
  mov #{b >> 16}, &OP2H
  mov &RES0, r8
  mov &RES1, r9
  mov &RES2, r10
  mov &RES3, r11
""")
    if signed:
        sa = a - (1 << 32) if a >> 31 else a
        sb = b - (1 << 32) if b >> 31 else b
        p = (sa * sb) & (2 ** 64 - 1)
    else:
        p = a * b
    got = sum(sim.get_reg(8 + i) << (16 * i) for i in range(4))
    assert hex(got) == hex(p)


@pytest.mark.parametrize("src,reg,early", [
    # 16x16: RES2/RES3 need 4 cycles after the OP2 write; MOV &RES2,r8 ends 3 cycles after it.
    ("  mov #3, &MPY\n  mov #5, &OP2\n  mov &RES2, r8\n", "RES2", 1),
    # 32x32: RES3 ready max(OP2L+11, OP2H+6); OP2H (MOV #0 = CG, 3 cycles) ends 3 after OP2L, the
    # read 3 later: OP2L+6, 5 cycles early.
    ("  mov #3, &MPY32L\n  mov #0, &MPY32H\n  mov #5, &OP2L\n  mov #0, &OP2H\n  mov &RES3, r8\n", "RES3", 5),
    # 32x32: RES1 ready max(OP2L+8, OP2H+3): reading right after OP2H is 8-6 = 2 cycles early.
    ("  mov #3, &MPY32L\n  mov #0, &MPY32H\n  mov #5, &OP2L\n  mov #0, &OP2H\n  mov &RES1, r8\n", "RES1", 2),
])
def test_early_result_read_is_an_error(src, reg, early):
    with pytest.raises(SimError, match=rf"{reg}.*before the result is ready.*\({early} cycles early\)"):
        run(src)


def test_16x16_low_result_readable_by_next_instruction():
    sim = run("  mov #300, &MPY\n  mov #400, &OP2\n  mov &RESLO, r8\n  nop\n  mov &RES3, r9\n")
    assert sim.get_reg(8) == (120000 & 0xFFFF) and sim.get_reg(9) == 0


@pytest.mark.parametrize("a,b", PAIRS16)
def test_mpy16_on_msp430f1611(a, b):
    sim = run(f"""
.set MPY16, 0x0130
  mov #{a}, &0x0132
  mov #{b}, &0x0138
  mov &0x013A, r8
  mov &0x013C, r9
  mov &0x013E, r10
""", chip="msp430f1611")
    ps = (s16(a) * s16(b)) & 0xFFFFFFFF
    assert (sim.get_reg(8), sim.get_reg(9)) == (ps & 0xFFFF, ps >> 16)
    assert sim.get_reg(10) == (0xFFFF if ps >> 31 else 0)


def test_mpy32_registers_absent_on_mpy16():
    with pytest.raises(SimError, match="unmapped word read at 0x00140"):
        run("  mov &0x0140, r8\n", chip="msp430f1611")
