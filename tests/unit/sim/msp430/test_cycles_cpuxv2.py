"""The CPUXV2 cycle tables (TI SLAU208 §4.5, summarised in /work/shared/facts/TARGETS.md), executed.

Each case assembles one instruction, runs it once on the CC430F6137 model and checks its cycles.
The expected numbers are written out here from the manual's tables, independently of
aedsl/timing/msp430.py, so a wrong table entry or a wrong mode decode fails a test.
"""
import pytest

from .msp430_asm_helper import cycles_of_first, make_sim

pytestmark = pytest.mark.needs("msp430")

# r5 -> RAM 0x1C00, r6 -> RAM 0x1C10, SP -> 0x2000, EDE/&EDE -> 0x1C20/0x1C30
REGS = {5: 0x1C00, 6: 0x1C10, 1: 0x2000, 7: 0x1C40}
PRE = ""  # EDE/TONI are defined by the helper's linker script
SRC = {"Rn": "r7", "x(Rn)": "2(r5)", "EDE": "EDE", "&EDE": "&0x1C20", "@Rn": "@r5", "@Rn+": "@r5+",
       "#N": "#0x1234", "#CG": "#4"}
DST = {"Rm": "r6", "PC": "pc", "x(Rm)": "2(r6)", "EDE": "EDE", "&EDE": "&0x1C30"}


def case(table, asm, expected, name=None):
    return pytest.param(asm, expected, id=f"{name or asm}={expected} [{table}]")


# SLAU208 "MSP430 Format I Instructions Cycles and Length"
FI = "SLAU208 Format I"
FI_REG = {"Rn": 1, "#CG": 1, "@Rn": 2, "@Rn+": 2, "#N": 2, "x(Rn)": 3, "EDE": 3, "&EDE": 3}
FI_PC = {"Rn": 3, "#CG": 3, "@Rn": 4, "@Rn+": 4, "#N": 3, "x(Rn)": 5, "EDE": 5, "&EDE": 5}
FI_MEM = {"Rn": 4, "#CG": 4, "@Rn": 5, "@Rn+": 5, "#N": 5, "x(Rn)": 6, "EDE": 6, "&EDE": 6}
FORMAT_I = []
for s, sa in SRC.items():
    for d, da in DST.items():
        table = FI_REG if d == "Rm" else FI_PC if d == "PC" else FI_MEM
        for op in ("add", "xor"):
            FORMAT_I.append(case(FI, f"{op} {sa}, {da}", table[s], f"{op} {s}->{d}"))
        for op in ("mov", "bit", "cmp"):   # note: MOV/BIT/CMP to memory one cycle less
            exp = table[s] - (1 if d in ("x(Rm)", "EDE", "&EDE") else 0)
            FORMAT_I.append(case(FI + " (MOV/BIT/CMP note)", f"{op} {sa}, {da}", exp, f"{op} {s}->{d}"))
    FORMAT_I.append(case(FI, f"add.b {sa}, r6", FI_REG[s], f"add.b {s}->Rm"))
    FORMAT_I.append(case(FI + " (MOV/BIT/CMP note)", f"mov.b {sa}, 2(r6)", FI_MEM[s] - 1, f"mov.b {s}->x(Rm)"))

# SLAU208 "MSP430 Format II Instruction Cycles and Length"
FII = "SLAU208 Format II"
F2_SRC = {"Rn": "r7", "@Rn": "@r5", "@Rn+": "@r5+", "#N": "#0x8100", "x(Rn)": "2(r5)", "EDE": "EDE", "&EDE": "&0x1C20"}
F2 = {"rra": [1, 3, 3, None, 4, 4, 4], "rrc": [1, 3, 3, None, 4, 4, 4], "swpb": [1, 3, 3, None, 4, 4, 4],
      "sxt": [1, 3, 3, None, 4, 4, 4], "push": [3, 3, 3, 3, 4, 4, 4], "call": [4, 4, 4, 4, 5, 5, 6]}
FORMAT_II = [case(FII, f"{op} {sa}", n, f"{op} {s}")
             for op, row in F2.items() for (s, sa), n in zip(F2_SRC.items(), row) if n is not None]
FORMAT_II += [case(FII, "rra.b @r5+", 3), case(FII, "push.b &0x1C20", 4), case(FII, "push #1", 3, "push #CG")]

# Jumps, returns, emulated instructions built on the tables above
OTHER = [
    case("SLAU208 jumps: 2", "jmp $+4", 2), case("SLAU208 jumps: 2", "jne $+4", 2, "jne taken"),
    case("SLAU208 jumps: 2", "jeq $+4", 2, "jeq not taken"), case("SLAU208 jumps: 2", "jge $-20", 2),
    case("SLAU208 Interrupt/Return: RET 4 (MOV @SP+,PC)", "ret", 4),
    case("SLAU208 Interrupt/Return: RETI 5", "reti", 5),
    case(FI + ": @Rn+ -> Rm 2 (POP)", "pop r9", 2),
    case(FI + ": Rn -> PC 3 (BR)", "br r7", 3),
    case(FI + ": #N -> PC 3 (BR)", "br #0x8100", 3),
    case(FI + ": Rn -> Rm 1 (CG #0, CLR)", "clr r9", 1),
    case(FI + ": Rn -> x(Rm) 4-1 (CLR = MOV #0)", "clr 2(r6)", 3),
    case(FI + ": Rn -> &EDE 4 (INC = ADD #1)", "inc &0x1C20", 4),
]


# SLAU208 "MSP430X Format I Instruction Cycles and Length": .B/.W and (.A)
FIX = "SLAU208 MSP430X Format I"
FIX_REG = {"Rn": (2, 2), "@Rn": (3, 4), "@Rn+": (3, 4), "#N": (3, 3), "x(Rn)": (4, 5), "EDE": (4, 5), "&EDE": (4, 5), "#CG": (2, 2)}
FIX_MEM = {"Rn": (5, 7), "@Rn": (6, 9), "@Rn+": (6, 9), "#N": (6, 8), "x(Rn)": (7, 10), "EDE": (7, 10), "&EDE": (7, 10), "#CG": (5, 7)}
SRCX = dict(SRC, **{"#N": "#0x12345"})
FORMAT_IX = []
for s, sa in SRCX.items():
    for sfx, a in ((".w", 0), (".a", 1), (".b", 0)):
        if sfx == ".b" and s == "#N":
            continue
        FORMAT_IX.append(case(FIX, f"addx{sfx} {sa}, r6", FIX_REG[s][a], f"addx{sfx} {s}->Rm"))
        for d in ("x(Rm)", "EDE", "&EDE"):
            FORMAT_IX.append(case(FIX, f"addx{sfx} {sa}, {DST[d]}", FIX_MEM[s][a], f"addx{sfx} {s}->{d}"))
        FORMAT_IX.append(case(FIX + " (MOV/BIT/CMP -1, .A -2)", f"movx{sfx} {sa}, 2(r6)", FIX_MEM[s][a] - 1 - a,
                              f"movx{sfx} {s}->x(Rm)"))
        FORMAT_IX.append(case(FIX + " (MOV/BIT/CMP -1, .A -2)", f"cmpx{sfx} {sa}, &0x1C30", FIX_MEM[s][a] - 1 - a,
                              f"cmpx{sfx} {s}->&EDE"))
FORMAT_IX += [
    case(FIX + ": POPX = MOVX @SP+,Rn 3", "popx.w r9", 3), case(FIX + ": POPX.A 4", "popx.a r9", 4),
    case(FIX + ": POPX mem 6-1", "popx.w &0x1C20", 5), case(FIX + ": POPX.A mem 9-2", "popx.a &0x1C20", 7),
    case(FIX + " (RPT: n+1)", "rpt #8 { addx.w r5, r6", 9, "rpt #8 addx"),
    case(FIX + " (RPT: n+1)", "rpt #16 { xorx.a r5, r6", 17, "rpt #16 xorx.a"),
]

# SLAU208 "MSP430X Format II Instruction Cycles and Length"
FIIX = "SLAU208 MSP430X Format II"
X2 = [
    case(FIIX + ": RRAX Rn 1+n", "rrax.w r7", 2), case(FIIX + ": RRCX Rn 1+n", "rrcx.a r7", 2),
    case(FIIX + ": RRUX Rn 1+n", "rrux.w r7", 2),
    case(FIIX + ": RPT RRAX 1+n", "rpt #5 { rrax.w r7", 6, "rpt #5 rrax"),
    case(FIIX + ": RPT Rn RRCX 1+n", "rpt r8 { rrcx.w r7", 5, "rpt r8(=3: 4 reps) rrcx"),
]
for s, sa, w, a in (("Rn", "r7", 4, 5), ("@Rn", "@r5", 4, 6), ("@Rn+", "@r5+", 4, 6), ("#N", "#0x12345", 4, 5),
                    ("x(Rn)", "2(r5)", 5, 7), ("EDE", "EDE", 5, 7), ("&EDE", "&0x1C20", 5, 7)):
    X2 += [case(FIIX + ": PUSHX", f"pushx.w {sa}", w, f"pushx.w {s}"), case(FIIX + ": PUSHX.A", f"pushx.a {sa}", a, f"pushx.a {s}")]
for n in (1, 2, 3, 4):
    for op in ("rram", "rrcm", "rlam", "rrum"):
        for sfx in (".w", ".a"):
            X2.append(case(FIIX + ": RxxM #n: n", f"{op}{sfx} #{n}, r7", n))
for n in (1, 3, 8, 12):
    X2 += [case(FIIX + ": PUSHM.W 2+n", f"pushm.w #{n}, r15", 2 + n), case(FIIX + ": PUSHM.A 2+2n", f"pushm.a #{n}, r15", 2 + 2 * n),
           case(FIIX + ": POPM.W 2+n", f"popm.w #{n}, r15", 2 + n), case(FIIX + ": POPM.A 2+2n", f"popm.a #{n}, r15", 2 + 2 * n)]
X2 += [
    case(FIIX + ": CALLA Rn 5", "calla r7", 5), case(FIIX + ": CALLA @Rn 6", "calla @r5", 6),
    case(FIIX + ": CALLA @Rn+ 6", "calla @r5+", 6), case(FIIX + ": CALLA #N 5", "calla #0x8100", 5),
    case(FIIX + ": CALLA x(Rn) 5", "calla 2(r5)", 5), case(FIIX + ": CALLA x(SP) 5+1", "calla 2(sp)", 6),
    case(FIIX + ": CALLA EDE 7", "calla EDE", 7), case(FIIX + ": CALLA &EDE 7", "calla &0x1C20", 7),
]

# SLAU208 "Address Instruction Cycles and Length"
AD = "SLAU208 Address instructions"
ADDR = [
    case(AD + ": MOVA Rn->Rm 1", "mova r7, r9", 1), case(AD + ": MOVA Rn->PC 3 (BRA)", "bra r7", 3),
    case(AD + ": MOVA Rn->x(Rm) 4", "mova r7, 2(r6)", 4), case(AD + ": MOVA Rn->&abs 4", "mova r7, &0x1C20", 4),
    case(AD + ": MOVA @Rn->Rm 3", "mova @r5, r9", 3), case(AD + ": MOVA @Rn+->Rm 3", "mova @r5+, r9", 3),
    case(AD + ": MOVA @Rn->PC 5", "bra @r5", 5), case(AD + ": MOVA @Rn+->PC 5 (RETA)", "reta", 5),
    case(AD + ": MOVA #N->Rm 2", "mova #0x12345, r9", 2), case(AD + ": MOVA #N->PC 3", "bra #0x8100", 3),
    case(AD + ": MOVA x(Rn)->Rm 4", "mova 2(r5), r9", 4), case(AD + ": MOVA x(Rn)->PC 6", "bra 2(r5)", 6),
    case(AD + ": MOVA &abs->Rm 4", "mova &0x1C20, r9", 4), case(AD + ": MOVA &abs->PC 6", "bra &0x1C20", 6),
    case(AD + ": MOVA EDE->Rm 4", "mova EDE, r9", 4),
    case(AD + ": ADDA Rn 1", "adda r7, r9", 1), case(AD + ": SUBA Rn 1", "suba r7, r9", 1),
    case(AD + ": CMPA Rn 1", "cmpa r7, r9", 1), case(AD + ": ADDA #N 3", "adda #0x12345, r9", 3),
    case(AD + ": SUBA #N 3", "suba #0x12345, r9", 3), case(AD + ": CMPA #N 3", "cmpa #0x12345, r9", 3),
]


@pytest.mark.parametrize("asm,expected", FORMAT_I + FORMAT_II + OTHER + FORMAT_IX + X2 + ADDR)
def test_cpuxv2_cycles(asm, expected):
    sim = make_sim("cc430f6137")
    regs = {**REGS, 8: 3}
    # RET/RETI/RETA/POP read a return address from the stack: make it a flash address
    sim.write(0x2000, bytes([0x00, 0x81, 0x00, 0x00, 0x00, 0x81, 0x00, 0x00]))
    assert cycles_of_first(sim, PRE + asm, regs) == expected
