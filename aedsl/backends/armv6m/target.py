"""The ARMv6-M (Cortex-M0, Thumb-1) target as data: registers, calling convention, instruction
table with operand constraints, sizes, and costs read from the simulator's timing rules.

Cycle counts are not copied here: `cost()` maps each instruction to a timing class of
`aedsl.timing.armv6m` (ARM DDI 0432C Table 3-1), so the code generator's model and the
measuring instrument agree by construction.

Registers: r0–r7 (low) are the allocatable class — nearly every Thumb-1 data-processing,
load and store encoding only names low registers. r8–r12 are reachable only through MOV, ADD
and CMP, which is exactly what a spill slot needs: the most used spilled values (weighted by loop
depth; backend.place_slots) live in r12 (caller-saved) and r8–r11 (callee-saved, saved once in
the prologue), and cost a 1-cycle MOV per access instead of a 2-cycle LDR/STR; the others go to
the stack.

Calling convention (AAPCS): arguments r0–r3, then the stack at [sp], [sp+4] … at entry; r4–r11
callee-saved; r0–r3, r12 caller-saved; SP = r13, LR = r14, PC = r15. Generated functions call
each other (BL, `bl` below) with this same convention, so a function that calls keeps no spilled
value in r12 (CALLER_HIGH_SLOTS).

Machine-IR operand order is the assembler's (destination first), except the shared `mov`
pseudo, which the target-neutral code writes as `mov src, dst` (see common/select_base.py).
"""
from __future__ import annotations

from dataclasses import replace

from aedsl.timing import armv6m as T

from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, MInst, R, is_vreg
from aedsl.codegen.target import UNDEF, UNDEF_DESC, InstrDesc, Target

SP, LR, PC, IP = 13, 14, 15, 12
ARG_REGS = (0, 1, 2, 3)
CALLEE_SAVED = frozenset(range(4, 12))
# Caller-saved first: a function that fits in r0–r3 saves nothing.
ALLOCATABLE = (0, 1, 2, 3, 4, 5, 6, 7)
# Spill slots held in high registers, in order of preference (r12 costs no save).
HIGH_SLOTS = (12, 8, 9, 10, 11)
# In a function that makes no call, LR too: it is pushed with the saved low registers anyway
# (`push {r4-r7, lr}` ... `pop {r4-r7, pc}`: no save of its own), MOV reaches it like r8-r12,
# and nothing else writes it (the emission's BL to a label beyond a B's reach would: such a
# function is emitted again without it).
LEAF_HIGH_SLOTS = (12, LR, 8, 9, 10, 11)
# In a subroutine that saves no register (its callers know what it overwrites: `Backend.clobbered`)
# and makes no call: r8-r12 need no save, LR costs its push and pop, so it comes last.
SUBROUTINE_HIGH_SLOTS = (12, 8, 9, 10, 11, LR)

# --- operand roles -------------------------------------------------------------------------
_DP2 = InstrDesc(reads=(0, 1), writes=(0,), reg_only=(0, 1), flags_out=True)     # rd = rd op rm
_DP2X = InstrDesc(reads=(0, 1), writes=(0,), reg_only=(0, 1), flags_out=True, commutes=True)
_DP2C = InstrDesc(reads=(0, 1), writes=(0,), reg_only=(0, 1), flags_in=True, flags_out=True)
_DP3 = InstrDesc(reads=(1, 2), writes=(0,), reg_only=(0, 1, 2), flags_out=True)  # rd = rn op rm|#imm3
_DP1 = InstrDesc(reads=(1,), writes=(0,), reg_only=(0, 1), flags_out=True)       # rd = op rm [#imm]
_EXT = InstrDesc(reads=(1,), writes=(0,), reg_only=(0, 1))                        # no flags
_IMM8 = InstrDesc(reads=(0,), writes=(0,), reg_only=(0,), flags_out=True)         # rd = rd op #imm8
_CMP = InstrDesc(reads=(0, 1), reg_only=(0, 1), flags_out=True)
_LD = InstrDesc(reads=(1,), writes=(0,), reg_only=(0,))                           # rt, [rn, #imm]
_LDR = InstrDesc(reads=(1, 2), writes=(0,), reg_only=(0, 1, 2), memory="load", addr=(1, 2))  # rt, [rn, rm]
_ST = InstrDesc(reads=(0, 1), reg_only=(0,), memory="store")                       # rt, [rn, #imm]
_STR = InstrDesc(reads=(0, 1, 2), reg_only=(0, 1, 2), memory="store", addr=(1, 2))
_BCC = InstrDesc(branch="cond", flags_in=True)

CONDS = ("eq", "ne", "cs", "cc", "mi", "pl", "hi", "ls")
INVERSE = {"eq": "ne", "ne": "eq", "cs": "cc", "cc": "cs", "mi": "pl", "pl": "mi", "hi": "ls", "ls": "hi"}

INSTRS: dict[str, InstrDesc] = {
    # the shared copy pseudo: mov src, dst (src a register, an immediate or a spill slot;
    # emitted as MOV, MOVS/MVNS/LDR =imm, or LDR from the stack). Never changes the flags the
    # selector relies on (C): MOVS #imm changes only N and Z.
    "mov": InstrDesc(reads=(0,), writes=(1,), reg_only=(1,)),
    "ands": _DP2X, "eors": replace(_DP2X, cancels=True), "orrs": _DP2X, "bics": _DP2,
    # MULS takes the multiplier's latency (the chip file's [multiplier]: 1 or 32 cycles)
    "muls": InstrDesc(reads=(0, 1), writes=(0,), reg_only=(0, 1), flags_out=True, unit="multiplier"),
    "adcs": _DP2C, "sbcs": replace(_DP2C, cancels=True),
    "rors": _DP2, "lslv": _DP2, "lsrv": _DP2,
    "adds": _DP3, "subs": replace(_DP3, cancels=True),
    "adds8": _IMM8, "subs8": _IMM8,
    "lsls": _DP1, "lsrs": _DP1, "asrs": _DP1, "mvns": _DP1, "rsbs": _DP1,
    "rev": _EXT, "rev16": _EXT, "uxtb": _EXT, "uxth": _EXT,
    "cmp": _CMP, "cmpi": InstrDesc(reads=(0,), reg_only=(0,), flags_out=True), "tst": _CMP,
    "ldr": _LD, "ldrh": _LD, "ldrb": _LD,
    "ldrr": _LDR, "ldrhr": _LDR, "ldrbr": _LDR,
    "str": replace(_ST, width=4), "strh": replace(_ST, width=2), "strb": replace(_ST, width=1),
    "strr": replace(_STR, width=4), "strhr": replace(_STR, width=2), "strbr": replace(_STR, width=1),
    "ldaddr": InstrDesc(writes=(0,), reg_only=(0,), memory="address"),   # ldr rd, =symbol
    # ldm rb(!), {regs}: ops = [base, ascending destinations]; the base is written back unless
    # it is a destination (only made after allocation, ldm.py)
    # add rdn, rm (T2: any registers, no flags; only made after slot placement, highadd.py)
    "addh": InstrDesc(reads=(0, 1), writes=(0,), reg_only=(0, 1)),
    # cmp rn, rm (T2: a high register compared without a copy; highadd.fold_high_compares)
    "cmph": InstrDesc(reads=(0, 1), reg_only=(0, 1), flags_out=True),
    "ldm": InstrDesc(reads=(0,), writes=tuple(range(9)), reg_only=tuple(range(9)), memory="load", addr=(0,)),
    "addsp": InstrDesc(writes=(0,), reg_only=(0,), memory="address"),    # add rd, sp, #frame offset
    "jmp": InstrDesc(branch="jump"),
    **{f"b{c}": _BCC for c in CONDS},
    # `ret` reads its operands: the registers a subroutine returns its result words in
    # (select/calls.py `returns_in_registers`), so that nothing deletes their moves
    "ret": InstrDesc(branch="ret", reads=(0, 1, 2, 3)),
    "label": InstrDesc(pseudo=True), "comment": InstrDesc(pseudo=True), UNDEF: UNDEF_DESC,
    # frame set-up, only emitted after allocation (operands are physical registers)
    "push": InstrDesc(), "pop": InstrDesc(), "subsp": InstrDesc(), "addspi": InstrDesc(),
    "bx": InstrDesc(branch="ret"),
    # a subroutine call: ops = [symbol, 4 argument positions (R or a placeholder Imm), then the
    # registers it clobbers: r0-r3, r12, lr (AAPCS), or all a subroutine that saves none writes];
    # the flags are clobbered too
    "bl": InstrDesc(reads=(1, 2, 3, 4), writes=tuple(range(5, 5 + 16)), flags_out=True, memory="call"),
}
CALL_CLOBBERS = (0, 1, 2, 3, 12, LR)

# Assembler mnemonic of each machine-IR mnemonic whose name differs.
ASM_NAME = {"jmp": "b", "addh": "add", "cmph": "cmp", "adds8": "adds", "subs8": "subs", "lslv": "lsls", "lsrv": "lsrs", "cmpi": "cmp",
            "ldrr": "ldr", "ldrhr": "ldrh", "ldrbr": "ldrb", "strr": "str", "strhr": "strh", "strbr": "strb"}

# Timing class (armv6m_timing rules) of each mnemonic; what is not here is "dp".
TIMING = {"muls": "muls", "ldr": "ldr", "ldrh": "ldr", "ldrb": "ldr", "ldrr": "ldr", "ldrhr": "ldr",
          "ldrbr": "ldr", "ldaddr": "ldr", "str": "str", "strh": "str", "strb": "str", "strr": "str",
          "strhr": "str", "strbr": "str", "jmp": "b", "bx": "bx", "bl": "bl", **{f"b{c}": "bcc_taken" for c in CONDS}}

# Immediate-offset ranges of the load/store encodings: (scale, max offset).
OFFSET_RANGE = {"ldr": (4, 124), "str": (4, 124), "ldrh": (2, 62), "strh": (2, 62), "ldrb": (1, 31), "strb": (1, 31)}
SP_OFFSET_MAX = 1020          # LDR/STR rt, [sp, #imm8*4]; ADD rd, sp, #imm8*4


def offset_ok(mn: str, disp: int) -> bool:
    scale, top = OFFSET_RANGE[mn]
    return 0 <= disp <= top and disp % scale == 0


def imm_cost(v: int) -> tuple[int, int]:
    """(bytes, cycles) to put constant v in a low register: MOVS #imm8, MOVS+MVNS, MOVS+LSLS,
    or a literal-pool LDR (2 bytes of code + the 4-byte pool word)."""
    v &= 0xFFFFFFFF
    if v < 256:
        return 2, T.cycles("dp")
    if (~v & 0xFFFFFFFF) < 256 or _shifted8(v) is not None:
        return 4, 2 * T.cycles("dp")
    return 6, T.cycles("ldr")


def _shifted8(v: int):
    """(imm8, shift) with imm8 << shift == v, or None."""
    if v == 0:
        return None
    s = (v & -v).bit_length() - 1
    return (v >> s, s) if (v >> s) < 256 else None


def make_cost(chip):
    rules = T.rules(chip)

    def cost(inst: MInst) -> tuple[int, int]:
        """(bytes, cycles) of one instruction, from the simulator's Cortex-M0 rules."""
        mn, ops = inst.mn, inst.ops
        if mn in ("label", "comment", UNDEF):
            return 0, 0
        if mn == "mov":
            s, d = ops
            if isinstance(s, Imm):
                return imm_cost(s.value)
            if isinstance(s, Mem) or isinstance(d, Mem):
                return 2, rules["ldr" if isinstance(s, Mem) else "str"].cycles()
            return 2, rules["dp"].cycles()
        if mn == "ldaddr":
            return 6, rules["ldr"].cycles()
        if mn in ("push", "pop"):
            regs = ops
            n = len(regs)
            if mn == "pop" and R(PC) in regs:
                return 2, rules["pop_pc"].cycles(n)
            return 2, rules[mn].cycles(n)
        if mn == "ret":
            return 2, rules["bx"].cycles()
        if mn == "bl":
            return 4, rules["bl"].cycles()
        if mn == "ldm":
            return 2, rules["ldm"].cycles(len(ops) - 1)
        return 2, rules[TIMING.get(mn, "dp")].cycles()

    return cost


def reg_name(r: int) -> str:
    if is_vreg(r):
        return f"v{r}"
    return {SP: "sp", LR: "lr", PC: "pc"}.get(r, f"r{r}")


# A function that calls others keeps no spilled value in r12 (a call clobbers it).
CALLER_HIGH_SLOTS = (8, 9, 10, 11)


def spill_operand(k: int):
    """Slot k as the allocator sees it; backend.place_slots then puts the most used slots in the
    high registers (HIGH_SLOTS, or CALLER_HIGH_SLOTS in a function that calls) and the rest in
    stack words."""
    return Mem(SP, Frame("slot", k))


def make_target(chip, calls: bool = False) -> Target:
    """`calls`: the target for a function that makes subroutine calls (no spill slot in r12)."""
    return Target(
        name=f"armv6m:{chip.name}",
        allocatable=ALLOCATABLE,
        callee_saved=CALLEE_SAVED,
        instrs=INSTRS,
        cost=make_cost(chip),
        move=lambda s, d: MInst("mov", [s, d]),
        spill_operand=spill_operand,
        reg_name=reg_name,
        rematerialize=True,       # MOVS #imm8 is one cycle; a reload from r8-r12 one, from the stack two
        word_bytes=4,
    )


__all__ = ["make_target", "CALL_CLOBBERS", "CALLER_HIGH_SLOTS", "LEAF_HIGH_SLOTS", "SUBROUTINE_HIGH_SLOTS", "ARG_REGS", "CALLEE_SAVED", "ALLOCATABLE", "SP", "LR", "PC", "INSTRS", "Lbl",
           "offset_ok", "imm_cost", "INVERSE"]
