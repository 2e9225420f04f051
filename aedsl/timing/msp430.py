"""MSP430 / MSP430X instruction cycle tables: the one source of truth.

The simulator core (aedsl/sim/native/msp430.c) receives these numbers at init as a flat int array
(`flat(cpu)`, laid out as `LAYOUT`) and holds only the rules that index them; the MSP430 backend
reads the same tables for its cost model.

Sources (table titles; see also /work/shared/facts/TARGETS.md):
  SLAU208 §4.5 (MSP430x5xx/6xx CPUXV2):
    "MSP430 Format I Instructions Cycles and Length"      -> FMT1 / CPUXV2
    "MSP430 Format II Instruction Cycles and Length"      -> FMT2 / CPUXV2
    "Interrupt, Return, and Reset Cycles and Length"      -> RETI
    jump instructions: 2 cycles taken or not              -> JUMP
    "MSP430X Format I Instruction Cycles and Length"      -> FMT1X
    "MSP430X Format II Instruction Cycles and Length"     -> FMT2X, PUSHM/POPM, RxxM, CALLA
    "Address Instruction Cycles and Length"               -> MOVA, ADDA
  SLAU144 §3.4.4 / SLAU049 (original MSP430 CPU): the same titles, original-CPU numbers.
Entries marked UNCONFIRMED are not in TARGETS.md; they are best knowledge of the manual's table
and must be checked against the manual before a result depends on them.

Indexing: source modes SRC = Rn, x(Rn), EDE, &EDE, @Rn, @Rn+, #N (constant-generator
immediates #-1 #0 #1 #2 #4 #8 cost as Rn); destination classes DST = Rm, PC, x(Rm), EDE, &EDE.
"""
from __future__ import annotations

SRC = ("Rn", "x(Rn)", "EDE", "&EDE", "@Rn", "@Rn+", "#N")
DST = ("Rm", "PC", "x(Rm)", "EDE", "&EDE")
X = -1  # not encodable / not an instruction


def _by_src(rows: dict[str, list[int]]) -> list[list[int]]:
    return [rows[m] for m in SRC]


# ---- CPUXV2 (SLAU208) -------------------------------------------------------------------------
CPUXV2 = {
    # SLAU208 "MSP430 Format I Instructions Cycles and Length"; dst Rm, PC, x(Rm), EDE, &EDE.
    # Memory dst = register-dst cost + 3 (Rn source: 4).
    "fmt1": _by_src({
        "Rn":    [1, 3, 4, 4, 4],
        "x(Rn)": [3, 5, 6, 6, 6],
        "EDE":   [3, 5, 6, 6, 6],
        "&EDE":  [3, 5, 6, 6, 6],
        "@Rn":   [2, 4, 5, 5, 5],
        "@Rn+":  [2, 4, 5, 5, 5],
        "#N":    [2, 3, 5, 5, 5],
    }),
    # same table, footnote: MOV, BIT and CMP to a memory destination take one cycle less.
    "fmt1_mbc_mem": 1,
    # SLAU208 "MSP430 Format II Instruction Cycles and Length"; modes in SRC order.
    "fmt2": [
        [1, 4, 4, 4, 3, 3, X],   # RRA, RRC, SWPB, SXT (no #N form)
        [3, 4, 4, 4, 3, 3, 3],   # PUSH
        [4, 5, 5, 6, 4, 4, 4],   # CALL
    ],
    "jump": 2,                   # SLAU208 4.5.1.x: all jumps 2 cycles, taken or not
    "reti": 5,                   # SLAU208 "Interrupt, Return, and Reset Cycles and Length": RETI 5
    # SLAU208 "MSP430X Format I Instruction Cycles and Length": [.B/.W, .A][src][dst].
    # Register and memory destinations per TARGETS.md. PC destinations are UNCONFIRMED (TARGETS.md
    # is silent): taken as the MSP430 Format I PC cost + 1 for the extension word (.A: see below).
    "fmt1x": [
        _by_src({
            "Rn":    [2, 4, 5, 5, 5],
            "x(Rn)": [4, 6, 7, 7, 7],
            "EDE":   [4, 6, 7, 7, 7],
            "&EDE":  [4, 6, 7, 7, 7],
            "@Rn":   [3, 5, 6, 6, 6],
            "@Rn+":  [3, 5, 6, 6, 6],
            "#N":    [3, 4, 6, 6, 6],
        }),
        _by_src({                 # .A; PC column UNCONFIRMED (register column + 2, #N + 1)
            "Rn":    [2, 4, 7, 7, 7],
            "x(Rn)": [5, 7, 10, 10, 10],
            "EDE":   [5, 7, 10, 10, 10],
            "&EDE":  [5, 7, 10, 10, 10],
            "@Rn":   [4, 6, 9, 9, 9],
            "@Rn+":  [4, 6, 9, 9, 9],
            "#N":    [3, 4, 8, 8, 8],
        }),
    ],
    "fmt1x_mbc_mem": [1, 2],     # same table, footnotes: MOV/BIT/CMP to memory -1 (.A -2)
    "fmt1x_pc_mas": 1,           # TARGETS.md: MOV/ADD/SUB to PC with #N or memory source -1
    # SLAU208 "MSP430X Format II Instruction Cycles and Length": [RRCX/RRAX/RRUX/SWPBX/SXTX, PUSHX]
    # [.B/.W, .A][mode]. PUSHX from TARGETS.md. RRxX Rn = 1+n with n=1 (TARGETS.md); the memory
    # forms of RRxX/SWPBX/SXTX are UNCONFIRMED (MSP430 Format II + 1 for the extension word; .A
    # like PUSHX.A + 1 for the second data word written back).
    "fmt2x": [
        [[2, 5, 5, 5, 4, 4, X], [2, 7, 7, 7, 6, 6, X]],
        [[4, 5, 5, 5, 4, 4, 4], [5, 7, 7, 7, 6, 6, 5]],
    ],
    "rpt_base": 1,               # SLAU208 XFI/XFII footnote: a repeated instruction takes n + 1
    "rxxm_per_shift": 1,         # SLAU208 XFII: RRAM/RRCM/RRUM/RLAM #n: n cycles
    "pushm_base": 2, "pushm_per": [1, 2],  # SLAU208 XFII: PUSHM.W 2+n, PUSHM.A 2+2n
    "popm_base": 2, "popm_per": [1, 2],    # SLAU208 XFII: POPM.W 2+n, POPM.A 2+2n
    # SLAU208 XFII CALLA, modes in SRC order: Rn 5, x(Rn) 5 (+1 for x(SP)), EDE 7, &EDE 7, @Rn 6,
    # @Rn+ 6, #N 5 (TARGETS.md).
    "calla": [5, 5, 7, 7, 6, 6, 5],
    "calla_idx_sp_extra": 1,
    # SLAU208 "Address Instruction Cycles and Length", MOVA [src][Rm, PC, memory dst]:
    # Rn->Rm 1, Rn->PC 3, Rn->x(Rm)/&abs 4; @Rn/@Rn+ 3 (PC 5, so RETA = MOVA @SP+,PC = 5);
    # #N 2 (PC 3); x(Rn)/EDE/&EDE 4 (PC 6).
    "mova": _by_src({
        "Rn":    [1, 3, 4],
        "x(Rn)": [4, 6, X],
        "EDE":   [4, 6, X],
        "&EDE":  [4, 6, X],
        "@Rn":   [3, 5, X],
        "@Rn+":  [3, 5, X],
        "#N":    [2, 3, X],
    }),
    # CMPA/ADDA/SUBA [Rn, #N][Rm, PC]: Rn 1, #N 3 (TARGETS.md); PC destination UNCONFIRMED
    # (taken as MOVA's PC costs: Rn 3, #N 3).
    "adda": [[1, 3], [3, 3]],
}

# ---- original MSP430 CPU (SLAU144 §3.4.4 / SLAU049) -----------------------------------------
MSP430 = {
    # SLAU144 "MSP430 Format I Instructions Cycles and Length": PC dst: Rn/@Rn 2, others 3;
    # no MOV/BIT/CMP reduction.
    "fmt1": _by_src({
        "Rn":    [1, 2, 4, 4, 4],
        "x(Rn)": [3, 3, 6, 6, 6],
        "EDE":   [3, 3, 6, 6, 6],
        "&EDE":  [3, 3, 6, 6, 6],
        "@Rn":   [2, 2, 5, 5, 5],
        "@Rn+":  [2, 3, 5, 5, 5],
        "#N":    [2, 3, 5, 5, 5],
    }),
    "fmt1_mbc_mem": 0,
    # SLAU144 "MSP430 Format II Instruction Cycles and Length"
    "fmt2": [
        [1, 4, 4, 4, 3, 3, X],   # RRA, RRC, SWPB, SXT
        [3, 5, 5, 5, 4, 5, 4],   # PUSH: Rn 3, @Rn 4, @Rn+ 5, #N 4, x(Rn)/EDE/&EDE 5
        [4, 5, 5, 5, 4, 5, 5],   # CALL: Rn 4, @Rn 4, others 5
    ],
    "jump": 2,                   # SLAU144 3.4.4: jumps 2 cycles
    "reti": 5,                   # SLAU144 "Interrupt and Reset Cycles": RETI 5
    # no MSP430X instructions: the core faults before reading any of these
    "fmt1x": [[[X] * 5 for _ in SRC] for _ in range(2)],
    "fmt1x_mbc_mem": [0, 0], "fmt1x_pc_mas": 0,
    "fmt2x": [[[X] * 7, [X] * 7], [[X] * 7, [X] * 7]],
    "rpt_base": X, "rxxm_per_shift": X,
    "pushm_base": X, "pushm_per": [X, X], "popm_base": X, "popm_per": [X, X],
    "calla": [X] * 7, "calla_idx_sp_extra": 0,
    "mova": [[X] * 3 for _ in SRC],
    "adda": [[X, X], [X, X]],
}

TABLES = {"cpuxv2": CPUXV2, "msp430": MSP430}

# Field order and shapes of the C struct `timing_t` (aedsl/sim/native/msp430.c).
LAYOUT: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("fmt1", (7, 5)), ("fmt1_mbc_mem", ()), ("fmt2", (3, 7)), ("jump", ()), ("reti", ()),
    ("fmt1x", (2, 7, 5)), ("fmt1x_mbc_mem", (2,)), ("fmt1x_pc_mas", ()), ("fmt2x", (2, 2, 7)),
    ("rpt_base", ()), ("rxxm_per_shift", ()), ("pushm_base", ()), ("pushm_per", (2,)),
    ("popm_base", ()), ("popm_per", (2,)), ("calla", (7,)), ("calla_idx_sp_extra", ()),
    ("mova", (7, 3)), ("adda", (2, 2)),
)


def _flatten(value, shape: tuple[int, ...], name: str) -> list[int]:
    if not shape:
        if not isinstance(value, int):
            raise TypeError(f"timing entry {name}: expected an int, got {value!r}")
        return [value]
    if len(value) != shape[0]:
        raise ValueError(f"timing entry {name}: expected {shape[0]} rows, got {len(value)}")
    out: list[int] = []
    for v in value:
        out += _flatten(v, shape[1:], name)
    return out


def flat(cpu: str) -> list[int]:
    """The table of `cpu` ("cpuxv2" | "msp430") as the int array the C core expects."""
    try:
        t = TABLES[cpu]
    except KeyError:
        raise KeyError(f"no MSP430 cycle tables for cpu {cpu!r}; known: {', '.join(TABLES)}") from None
    out: list[int] = []
    for name, shape in LAYOUT:
        out += _flatten(t[name], shape, name)
    return out


def format1_cycles(cpu: str, mnemonic: str, src: str, dst: str, extended: str | None = None) -> int:
    """Cycles of a Format I instruction, e.g. format1_cycles("cpuxv2", "mov", "@Rn", "x(Rm)") -> 4.
    extended: None for MSP430 instructions, "bw" or "a" for MSP430X ones. For the backend's costs."""
    t = TABLES[cpu]
    si, di = SRC.index(src), DST.index(dst)
    mbc = mnemonic.lower().rstrip("x.abw") in ("mov", "bit", "cmp")
    if extended is None:
        c = t["fmt1"][si][di]
        return c - (t["fmt1_mbc_mem"] if di >= 2 and mbc else 0)
    a = 1 if extended == "a" else 0
    c = t["fmt1x"][a][si][di]
    if di >= 2 and mbc:
        c -= t["fmt1x_mbc_mem"][a]
    if di == 1 and mnemonic.lower().rstrip("x.abw") in ("mov", "add", "sub") and src in ("#N", "x(Rn)", "EDE", "&EDE"):
        c -= t["fmt1x_pc_mas"]
    return c
