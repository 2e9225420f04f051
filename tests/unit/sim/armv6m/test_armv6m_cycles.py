"""One test per instruction class (and addressing form) asserting the Cortex-M0 cycle count of
ARM DDI 0432C Table 3-1. Each snippet runs from `start` to `end`; only that span is counted."""
from __future__ import annotations

import dataclasses

import pytest
from .armv6m_asm import load

from aedsl.chips import load as load_chip
from aedsl.sim.armv6m import ArmV6MSim
from aedsl.timing.armv6m import cycles as rule_cycles

pytestmark = pytest.mark.needs("armv6m")

BUF = 0x20000100   # a scratch buffer in the STM32F030's RAM


@dataclasses.dataclass
class Case:
    id: str
    body: str                 # the instructions between start: and end:
    cycles: int               # Table 3-1
    insns: int = 1
    setup: str = ""
    flags: tuple | None = None  # (N, Z, C, V) set just before start
    chip: dict | None = None    # Chip field overrides


def _regs(n: int) -> str:
    """r0..r(n-1) as a register-list body (gas rejects the range r0-r0)."""
    return "r0" if n == 1 else f"r0-r{n - 1}"


def _dp(mnem: str) -> Case:
    return Case("dp:" + mnem.split("\n")[0], mnem, 1, setup=f"ldr r0, ={BUF}\nmovs r1, #3\nmovs r2, #5")


CASES: list[Case] = [
    # Table 3-1 Move / Add / Subtract / Multiply / Compare / Logical / Shift / Rotate / Extend / Reverse: 1
    *[_dp(m) for m in [
        "movs r3, #200", "movs r3, r1", "mov r8, r1", "mov r3, r9",
        "adds r3, r1, r2", "adds r3, r1, #7", "adds r3, #100", "add r8, r1", "add r3, r8", "adcs r3, r1",
        "add sp, #16", "add r3, sp, #64", "adr r3, 1f\n.align 2\n1:", "add r3, sp", "add sp, r0",
        "subs r3, r1, r2", "subs r3, r1, #1", "subs r3, #9", "sbcs r3, r1", "sub sp, #16", "rsbs r3, r1, #0",
        "cmp r1, r2", "cmp r1, #5", "cmp r8, r1", "cmn r1, r2",
        "ands r3, r1", "eors r3, r1", "orrs r3, r1", "bics r3, r1", "mvns r3, r1", "tst r1, r2",
        "lsls r3, r1, #4", "lsls r3, r1", "lsrs r3, r1, #4", "lsrs r3, r1", "asrs r3, r1, #4", "asrs r3, r1",
        "rors r3, r1", "sxth r3, r1", "sxtb r3, r1", "uxth r3, r1", "uxtb r3, r1",
        "rev r3, r1", "rev16 r3, r1", "revsh r3, r1",
        "cpsid i", "cpsie i", "nop", "yield", "sev",
    ]],
    Case("wfe", "wfe", 2), Case("wfi", "wfi", 2),
    # MOV PC,Rm / ADD PC,PC,Rm: 3
    Case("mov_pc", "mov pc, r0\nnop\nnop\n.align 2\nend:", 3, setup="ldr r0, =end"),
    Case("add_pc", "add pc, r0\nnop\nnop", 3, setup="movs r0, #2"),
    # MULS: 1 or 32 from the chip
    Case("muls_fast", "muls r1, r2, r1", 1, setup="movs r1, #3\nmovs r2, #5"),
    Case("muls_small", "muls r1, r2, r1", 32, setup="movs r1, #3\nmovs r2, #5",
         chip={"multiplier": {"kind": "muls", "cycles": 32}}),
    # Loads and stores, every addressing form: 2
    *[Case("ldr:" + m.split("\n")[0], m, 2, setup=f"ldr r0, ={BUF}\nmovs r1, #8\nsub sp, #16") for m in [
        "ldr r3, [r0, #4]", "ldr r3, [r0, r1]", "ldr r3, [sp, #8]", "ldr r3, 1f\nend:\nb 2f\n.align 2\n1: .word 7\n2:",
        "ldrb r3, [r0, #3]", "ldrb r3, [r0, r1]", "ldrh r3, [r0, #2]", "ldrh r3, [r0, r1]",
        "ldrsb r3, [r0, r1]", "ldrsh r3, [r0, r1]",
    ]],
    *[Case("str:" + m, m, 2, setup=f"ldr r0, ={BUF}\nmovs r1, #8\nsub sp, #16") for m in [
        "str r3, [r0, #4]", "str r3, [r0, r1]", "str r3, [sp, #8]",
        "strb r3, [r0, #3]", "strb r3, [r0, r1]", "strh r3, [r0, #2]", "strh r3, [r0, r1]",
    ]],
    # LDM/STM/PUSH/POP: 1+N; POP with PC: 4+N (N includes PC)
    *[Case(f"ldm:N={n}", f"ldm r7!, {{{_regs(n)}}}" if n < 8 else "ldm r7, {r0-r7}", 1 + n,
           setup=f"ldr r7, ={BUF}") for n in range(1, 9)],
    *[Case(f"stm:N={n}", f"stm r7!, {{{_regs(n)}}}" if n < 8 else "stm r0!, {r0-r7}", 1 + n,
           setup=f"ldr r7, ={BUF}\nldr r0, ={BUF}") for n in range(1, 9)],
    *[Case(f"push:N={n}", f"push {{{_regs(n)}}}", 1 + n) for n in range(1, 9)],
    Case("push:lr", "push {lr}", 2), Case("push:r4-r7,lr", "push {r4-r7, lr}", 6),
    Case("push:r0-r7,lr", "push {r0-r7, lr}", 10),
    *[Case(f"pop:N={n}", f"pop {{{_regs(n)}}}", 1 + n, setup="sub sp, #32") for n in range(1, 9)],
    *[Case(f"pop_pc:N={n}", ("pop {pc}" if n == 1 else f"pop {{{_regs(n - 1)}, pc}}") + "\nnop\nend:", 4 + n,
           setup="ldr r7, =end+1\npush {r7}" + ("" if n == 1 else f"\npush {{{_regs(n - 1)}}}"))
      for n in range(1, 9)],
    Case("pop_pc:N=9", "pop {r0-r7, pc}\nnop\nend:", 13, setup="ldr r7, =end+1\npush {r7}\npush {r0-r7}"),
    # Branches: B 3; B<cc> 3 taken / 1 not taken; BL 4; BX 3; BLX 3
    Case("b", "b end\nnop\nend:", 3),
    Case("bl", "bl end\nnop\nend:", 4),
    Case("bx", "bx r0\nnop\n.align 2\nend:", 3, setup="ldr r0, =end+1"),
    Case("blx", "blx r0\nnop\n.align 2\nend:", 3, setup="ldr r0, =end+1"),
    # MRS/MSR/barriers: 4
    Case("mrs", "mrs r3, apsr", 4), Case("msr", "msr apsr_nzcvq, r1", 4),
    Case("mrs_primask", "mrs r3, primask", 4), Case("msr_primask", "msr primask, r1", 4),
    Case("isb", "isb", 4), Case("dmb", "dmb", 4), Case("dsb", "dsb", 4),
]

# B<cc> for every condition, with flags that make it taken and flags that do not.
_CONDS = ["eq", "ne", "cs", "cc", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le"]


def _cond_holds(cond: str, n, z, c, v) -> bool:
    return {"eq": z, "ne": not z, "cs": c, "cc": not c, "mi": n, "pl": not n, "vs": v, "vc": not v,
            "hi": c and not z, "ls": not c or z, "ge": n == v, "lt": n != v,
            "gt": not z and n == v, "le": z or n != v}[cond]


for _cond in _CONDS:
    _all = [(n, z, c, v) for n in (0, 1) for z in (0, 1) for c in (0, 1) for v in (0, 1)]
    for _taken in (True, False):
        _flags = next(f for f in _all if bool(_cond_holds(_cond, *f)) == _taken)
        CASES.append(Case(f"b{_cond}:{'taken' if _taken else 'not_taken'}",
                          f"b{_cond} end\n" if _taken else f"b{_cond} 1f\nend:\nb .\n1:",
                          3 if _taken else 1, flags=_flags))

# Flash wait states (model: W per flash word fetched, W per data word read from flash).
_WS1 = {"flash_wait_states": 1}
CASES += [
    Case("ws1:4nop", ".align 2\nstart4: nop\nnop\nnop\nnop", 4 + 2, insns=4, chip=_WS1),
    Case("ws1:ldr_literal", ".align 2\nstart4: ldr r3, 1f\nnop\nb 2f\n.align 2\n1: .word 7\n2:",
         2 + 1 + 3 + 2 + 1, insns=3, chip=_WS1),   # ldr+nop share a word; b refetch; data read from flash
    Case("ws1:ldr_ram", ".align 2\nstart4: ldr r3, [r0]\nnop", 2 + 1 + 1, insns=2, setup=f"ldr r0, ={BUF}", chip=_WS1),
]


def _program(case: Case) -> str:
    body = case.body
    if "start4:" in body:     # the case aligns its own start
        body = body.replace("start4:", "start:")
        head = ""
    else:
        head = "start:\n"
    end = "" if "end:" in body else "end:\n"
    return f"{case.setup}\n{head}{body}\n{end}bkpt #0\n.ltorg\n"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cycles(case: Case):
    chip = load_chip("stm32f030")
    if case.chip:
        chip = dataclasses.replace(chip, **case.chip)
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


def test_timing_module_matches_table():
    """The numbers the code generator reads are the ones the tests above assert."""
    chip = load_chip("stm32f030")
    assert rule_cycles("pop_pc", chip, n_registers=2) == 6
    assert rule_cycles("push", chip, n_registers=9) == 10
    assert rule_cycles("muls", chip) == 1
    assert rule_cycles("muls", dataclasses.replace(chip, multiplier={"cycles": 32})) == 32
    with pytest.raises(ValueError):
        rule_cycles("muls", dataclasses.replace(chip, multiplier={"cycles": 7}))
