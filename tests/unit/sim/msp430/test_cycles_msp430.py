"""The original MSP430 CPU cycle tables (TI SLAU144 §3.4.4 / SLAU049), executed on the MSP430F1611
model, and the rule that this CPU rejects every MSP430X instruction. Expected numbers are written
out from the manual's tables (TARGETS.md), independently of aedsl/timing/msp430.py."""
import pytest

from aedsl.sim.base import SimError
from .msp430_asm_helper import assemble, cycles_of_first, make_sim

pytestmark = pytest.mark.needs("msp430")

REGS = {5: 0x1100, 6: 0x1110, 7: 0x1140, 1: 0x2000}
SRC = {"Rn": "r7", "x(Rn)": "2(r5)", "EDE": "EDE", "&EDE": "&0x1120", "@Rn": "@r5", "@Rn+": "@r5+",
       "#N": "#0x1234", "#CG": "#8"}
DST = {"Rm": "r6", "PC": "pc", "x(Rm)": "2(r6)", "EDE": "EDE", "&EDE": "&0x1130"}
FI = "SLAU144 Format I"
# [Rm, PC, memory destination]; PC: Rn/@Rn 2, others 3; no MOV/BIT/CMP reduction
FI_TAB = {"Rn": (1, 2, 4), "#CG": (1, 2, 4), "@Rn": (2, 2, 5), "@Rn+": (2, 3, 5), "#N": (2, 3, 5),
          "x(Rn)": (3, 3, 6), "EDE": (3, 3, 6), "&EDE": (3, 3, 6)}


def case(table, asm, expected, name=None):
    return pytest.param(asm, expected, id=f"{name or asm}={expected} [{table}]")


CASES = []
for s, sa in SRC.items():
    for d, da in DST.items():
        exp = FI_TAB[s][0 if d == "Rm" else 1 if d == "PC" else 2]
        for op in ("add", "mov", "cmp", "bit", "and"):
            CASES.append(case(FI, f"{op} {sa}, {da}", exp, f"{op} {s}->{d}"))
FII = "SLAU144 Format II"
F2_SRC = {"Rn": "r7", "@Rn": "@r5", "@Rn+": "@r5+", "#N": "#0x4100", "x(Rn)": "2(r5)", "EDE": "EDE", "&EDE": "&0x1120"}
F2 = {"rra": [1, 3, 3, None, 4, 4, 4], "rrc": [1, 3, 3, None, 4, 4, 4], "swpb": [1, 3, 3, None, 4, 4, 4],
      "sxt": [1, 3, 3, None, 4, 4, 4], "push": [3, 4, 5, 4, 5, 5, 5], "call": [4, 4, 5, 5, 5, 5, 5]}
CASES += [case(FII, f"{op} {sa}", n, f"{op} {s}")
          for op, row in F2.items() for (s, sa), n in zip(F2_SRC.items(), row) if n is not None]
CASES += [
    case("SLAU144 jumps: 2", "jmp $+4", 2), case("SLAU144 jumps: 2", "jnz $+4", 2),
    case("SLAU144 jumps: 2", "jc $+4", 2), case("SLAU144 jumps: 2", "jl $+4", 2),
    case(FI + ": @Rn+ -> PC 3 (RET)", "ret", 3), case("SLAU144 Interrupt/Return: RETI 5", "reti", 5),
    case(FI + ": Rn -> PC 2 (BR Rn)", "br r7", 2), case(FI + ": #N -> PC 3 (BR #N)", "br #0x4100", 3),
    case(FI + ": @Rn+ -> Rm 2 (POP)", "pop r9", 2), case(FII + ": PUSH #CG(R3) = Rn 3", "push #1", 3), case(FII + ": PUSH #4 is #N 4 (gas avoids CG4/CG8, CPU4 erratum)", "push #4", 4),
]


@pytest.mark.parametrize("asm,expected", CASES)
def test_msp430_cycles(asm, expected):
    sim = make_sim("msp430f1611")
    sim.write(0x2000, bytes([0x00, 0x41, 0x00, 0x41]))
    assert cycles_of_first(sim, asm, REGS) == expected


X_ONLY = ["pushm.w #2, r10", "popm.w #2, r10", "pushm.a #1, r10", "calla r5", "reta", "mova r5, r6",
          "adda #1, r6", "rram.w #2, r5", "rlam.a #1, r5", "addx.w r5, r6", "movx.a #0x12345, r6",
          "rpt #4 { rrax.w r5", "pushx.a r5", "bra #0x4100"]


@pytest.mark.parametrize("asm", X_ONLY)
def test_msp430_rejects_msp430x(asm):
    sim = make_sim("msp430f1611")
    code, _ = assemble(asm, "msp430x", 0x4000, 0x1100)
    sim.write(0x4000, code)
    sim.set_reg(0, 0x4000)
    sim.set_reg(1, 0x2000)
    with pytest.raises(SimError, match="undefined instruction"):
        sim.run(1)
