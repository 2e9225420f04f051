"""The MSP430 / MSP430X target as data: registers, calling convention, instruction table, costs.

Cycle counts are not copied here: `cost()` reads the simulator's tables in
`aedsl.timing.msp430` (SLAU208 CPUXV2 / SLAU144 original CPU), so the code generator's cost
model and the measuring instrument agree by construction (the delay-slot scheduler relies on it).

Calling convention (MSP430 EABI, SLAA534): arguments in R12, R13, R14, R15, further words on the
stack above the return address; R4–R10 callee-saved, R11–R15 caller-saved; SP = R1.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from aedsl.timing import msp430 as T

from aedsl.codegen.mir import Frame, Imm, Inc, Ind, Lbl, Mem, MInst, R, is_vreg
from aedsl.codegen.target import UNDEF, UNDEF_DESC, InstrDesc, Target
from .multiplier import MPY_REGS

PC, SP, SR, CG = 0, 1, 2, 3
ARG_REGS = (12, 13, 14, 15)
CALLEE_SAVED = frozenset(range(4, 11))
# Caller-saved first: a function that fits in R11–R15 saves nothing.
ALLOCATABLE = (15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4)
CG_VALUES = {0, 1, 2, 4, 8, 0xFFFF}

_RW = InstrDesc(reads=(0, 1), writes=(1,), flags_out=True)
_RWC = InstrDesc(reads=(0, 1), writes=(1,), flags_in=True, flags_out=True)
_COMM = InstrDesc(reads=(0, 1), writes=(1,), flags_out=True, commutes=True)
_MOV = InstrDesc(reads=(0,), writes=(1,))
_CMP = InstrDesc(reads=(0, 1), flags_out=True)
_U1 = InstrDesc(reads=(0,), writes=(0,), flags_out=True)          # single operand, read-modify-write
_U1C = InstrDesc(reads=(0,), writes=(0,), flags_in=True, flags_out=True)
_JCC = InstrDesc(reads=(), branch="cond", flags_in=True)

# mnemonic -> operand roles. "format": I (two-operand), II (one operand), E (emulated: the real
# instruction it assembles to is in EMULATED), J (jump), X (MSP430X only).
INSTRS: dict[str, InstrDesc] = {
    "mov": _MOV, "add": _COMM, "addc": InstrDesc(reads=(0, 1), writes=(1,), flags_in=True, flags_out=True, commutes=True),
    "sub": replace(_RW, cancels=True), "subc": replace(_RWC, cancels=True), "xor": replace(_COMM, cancels=True),
    "and": _COMM,
    "bis": InstrDesc(reads=(0, 1), writes=(1,), commutes=True), "bic": InstrDesc(reads=(0, 1), writes=(1,)),
    "cmp": _CMP, "bit": _CMP,
    # mov.b to a register clears its upper byte (the zero-extending byte load); to keep that
    # meaning its destination must stay a register.
    "mov.b": InstrDesc(reads=(0,), writes=(1,), reg_only=(1,)),
    # byte ALU ops on a register destination clear its upper byte (the xor.b byte merge)
    "xor.b": InstrDesc(reads=(0, 1), writes=(1,), reg_only=(1,), flags_out=True),
    "and.b": InstrDesc(reads=(0, 1), writes=(1,), reg_only=(1,), flags_out=True),
    "bis.b": InstrDesc(reads=(0, 1), writes=(1,), reg_only=(1,)),
    # the byte store (mov.b to memory; renamed to mov.b at emission)
    "movb.st": InstrDesc(reads=(0,), writes=(1,)),
    "rra": _U1, "rrc": _U1C, "swpb": InstrDesc(reads=(0,), writes=(0,)), "sxt": _U1,
    "rla": _U1, "rlc": _U1C,
    # rla.b (add.b Rn, Rn) on a register: shifts the low byte and clears the upper one
    "rla.b": InstrDesc(reads=(0,), writes=(0,), reg_only=(0,), flags_out=True), "adc": _U1C, "inv": _U1, "inc": _U1, "incd": _U1, "dec": _U1,
    "clr": InstrDesc(writes=(0,)), "tst": InstrDesc(reads=(0,), flags_out=True),
    "clrc": InstrDesc(flags_out=True), "setc": InstrDesc(flags_out=True),
    "rlam": InstrDesc(reads=(1,), writes=(1,), reg_only=(1,), flags_out=True),
    "rram": InstrDesc(reads=(1,), writes=(1,), reg_only=(1,), flags_out=True),
    "rrum": InstrDesc(reads=(1,), writes=(1,), reg_only=(1,), flags_out=True),
    "jmp": InstrDesc(branch="jump"), "jz": _JCC, "jnz": _JCC, "jc": _JCC, "jnc": _JCC,
    # `ret` reads its operands: the registers a subroutine returns its result words in
    # (select/calls.py `returns_in_registers`), so that nothing deletes their moves
    "ret": InstrDesc(branch="ret", reads=(0, 1, 2, 3)),
    "label": InstrDesc(pseudo=True), "comment": InstrDesc(pseudo=True), UNDEF: UNDEF_DESC,
    # accelerator (aedsl/backends/msp430/accel.py, common/schedule.py): a read of a FIFO register
    # (mov, never dead: each read advances the FIFO); start / wait markers, removed or expanded
    # into a BUSY poll (which clobbers the flags) before emission
    "movio": InstrDesc(reads=(0,), writes=(1,), reg_only=(1,), pseudo=True, copy=True),
    "accel.go": InstrDesc(pseudo=True), "accel.wait": InstrDesc(pseudo=True, flags_out=True),
    # frame set-up, only emitted after allocation (operands are physical)
    "push": InstrDesc(reads=(0,)), "pop": InstrDesc(writes=(0,)),
    "pushm": InstrDesc(reads=(1,)), "popm": InstrDesc(writes=(1,)),
    "suba": InstrDesc(reads=(0, 1), writes=(1,)), "adda": InstrDesc(reads=(0, 1), writes=(1,)),
    # a subroutine call (msp430/calls.py): ops = [symbol, the 4 argument registers R12-R15 (R or
    # a placeholder Imm), then the registers it clobbers (CALL_CLOBBERS, or all a subroutine
    # that saves none writes: `Backend.clobbered`)]; it ends
    # a basic block for the scheduler (branch "call": falls through) and is never dead
    "call": InstrDesc(reads=(1, 2, 3, 4), writes=tuple(range(5, 5 + 16)), flags_out=True, branch="call", memory="call"),
    # the address of a frame area or a table: ops = [Mem(SP, Frame) or Mem(None, symbol), dst];
    # expanded after the frame layout into `mov sp, dst; add #offset, dst` or `mov #symbol, dst`
    "lea": InstrDesc(reads=(0,), writes=(1,), reg_only=(1,), flags_out=True, memory="address"),
}
CALL_CLOBBERS = (11, 12, 13, 14, 15)

# emulated instruction -> (real mnemonic, implicit source or "dup" for src = dst)
EMULATED = {"rla": ("add", "dup"), "rlc": ("addc", "dup"), "adc": ("addc", 0), "inv": ("xor", 0xFFFF),
            "inc": ("add", 1), "incd": ("add", 2), "dec": ("sub", 1), "clr": ("mov", 0),
            "tst": ("cmp", 0)}
MSP430X_ONLY = {"rlam", "rram", "rrum", "pushm", "popm", "suba", "adda"}


def rxxm_counts(s: int) -> list[int]:
    """The counts n of the MSP430X shifts by n (RLAM, RRAM, RRUM #n: n is 1..4, SLAU208) that
    shift by s: fours, the rest last."""
    return [min(n, 4) for n in range(s, 0, -4)]


def src_mode(op) -> str:
    if isinstance(op, R):
        return "Rn"
    if isinstance(op, Imm):
        return "Rn" if (op.value & 0xFFFF) in CG_VALUES else "#N"
    if isinstance(op, Mem):
        return "&EDE" if op.base is None else "x(Rn)"
    if isinstance(op, Ind):
        return "@Rn"
    if isinstance(op, Inc):
        return "@Rn+"
    raise ValueError(f"not a source operand: {op!r}")


def dst_class(op) -> str:
    if isinstance(op, R):
        return "PC" if op.reg == PC else "Rm"
    if isinstance(op, Mem):
        return "&EDE" if op.base is None else "x(Rm)"
    raise ValueError(f"not a destination operand: {op!r}")


def _ext_words(op) -> int:
    if isinstance(op, Mem):
        return 1
    if isinstance(op, Imm) and (op.value & 0xFFFF) not in CG_VALUES:
        return 1
    return 0


@lru_cache(maxsize=None)
def _fmt2_row(mn: str) -> int:
    return {"rra": 0, "rrc": 0, "swpb": 0, "sxt": 0, "push": 1}[mn]


def make_cost(cpu: str):
    tab = T.TABLES[cpu]

    def cost(inst: MInst) -> tuple[int, int]:
        """(bytes, cycles) of one instruction on `cpu`, from the simulator's tables."""
        mn, ops = inst.mn, inst.ops
        if mn in ("label", "comment", UNDEF):
            return 0, 0
        if mn in ("accel.go", "accel.wait"):
            return 0, 0
        base = "mov" if mn in ("movb.st", "movio") else mn[:-2] if mn.endswith(".b") else mn
        if base in EMULATED:
            real, src = EMULATED[base]
            ops = [ops[0], ops[0]] if src == "dup" else [Imm(src), *ops]
            if real == "cmp" or real == "mov":
                pass
            base = real
        if base in ("mov", "add", "addc", "sub", "subc", "xor", "and", "bis", "bic", "cmp", "bit"):
            s, d = ops
            return 2 * (1 + _ext_words(s) + (1 if isinstance(d, Mem) else 0)), \
                T.format1_cycles(cpu, base, src_mode(s), dst_class(d))
        if base in ("rra", "rrc", "swpb", "sxt", "push"):
            m = src_mode(ops[0])
            return 2 * (1 + _ext_words(ops[0])), tab["fmt2"][_fmt2_row(base)][T.SRC.index(m)]
        if base in ("clrc", "setc"):    # bic/bis #1, SR: constant generator, register dst
            return 2, T.format1_cycles(cpu, "bic", "Rn", "Rm")
        if base in ("jmp", "jz", "jnz", "jc", "jnc"):
            return 2, tab["jump"]
        if base == "call":              # call #symbol (16-bit return address: CALL/RET)
            return 4, tab["fmt2"][2][T.SRC.index("#N")]
        if base == "br":                # mov #label, PC (the long form of a jump)
            return 4, T.format1_cycles(cpu, "mov", "#N", "PC")
        if base == "lea":               # before the frame is laid out: the longest expansion
            return (4, 2) if ops[0].base is None else (6, 3)
        if base == "ret":               # mov @SP+, PC
            return 2, T.format1_cycles(cpu, "mov", "@Rn+", "PC")
        if base == "pop":               # mov @SP+, dst
            return 2, T.format1_cycles(cpu, "mov", "@Rn+", dst_class(ops[0]))
        if base in ("rlam", "rram", "rrum"):
            return 2, tab["rxxm_per_shift"] * ops[0].value
        if base in ("pushm", "popm"):
            n = ops[0].value
            key = "pushm" if base == "pushm" else "popm"
            return 2, tab[f"{key}_base"] + tab[f"{key}_per"][0] * n
        if base in ("suba", "adda"):
            return (2 if isinstance(ops[0], R) else 4), tab["adda"][0 if isinstance(ops[0], R) else 1][0]
        raise KeyError(f"no cost for {mn}")

    return cost


def reg_name(r: int) -> str:
    if is_vreg(r):
        return f"v{r}"
    return {PC: "pc", SP: "sp", SR: "sr", CG: "r3"}.get(r, f"r{r}")


def multiplier_unit(chip):
    """`Target.unit_of` of a chip with the MPY peripheral: a store into its operand registers
    feeds the multiplier (the register map is the module's: multiplier.MPY_REGS)."""
    base = chip.multiplier.get("base")
    if base is None:
        return None
    operands = {int(base) + MPY_REGS[name] for name in ("MPY", "OP2")}

    def unit_of(inst: MInst) -> str:
        desc = INSTRS.get(inst.mn)
        if desc is None:
            return ""
        for k in desc.writes:
            op = inst.ops[k] if k < len(inst.ops) else None
            if isinstance(op, Mem) and op.base is None and _address(op.disp) in operands:
                return "multiplier"
        return ""
    return unit_of


def _address(disp) -> int | None:
    if isinstance(disp, int):
        return disp
    try:
        return int(str(disp), 0)
    except ValueError:
        return None


def make_target(chip) -> Target:
    return Target(
        name=f"msp430:{chip.name}",
        allocatable=ALLOCATABLE,
        callee_saved=CALLEE_SAVED,
        instrs=INSTRS,
        cost=make_cost(chip.cpu),
        move=lambda s, d: MInst("mov", [s, d]),
        spill_operand=lambda k: Mem(SP, Frame("slot", k)),
        reg_name=reg_name,
        unit_of=multiplier_unit(chip),
        arg_homes=True,
        word_homes=True,
        writeback_homes=True,
    )


__all__ = ["make_target", "CALL_CLOBBERS", "ARG_REGS", "CALLEE_SAVED", "ALLOCATABLE", "SP", "PC", "INSTRS", "Lbl"]
