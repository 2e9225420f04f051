"""A subroutine whose results take at most four words returns them in R12-R15 on MSP430
(select/calls.py `returns_in_registers`): calls.ae used as a module (calls_user.ae), every call
kept (`inline=none`), so `mixer` (u64) and `with_local` (u32) return in registers, `spread`
(u32, u64) and `run` (u64, u32) through out-pointers. The results must match the interpreter's
on random inputs. Size mode's software AES calls `mix_column` (u32) 36 times a block: on
cc430f6137 CCM 4 062 -> 3 982 B at 626.8 -> 529.4 cycles/byte for 4 KB."""
import random
import re

import pytest

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Program

from tests.paths import ROOT
from tests.programs import call_entry

SPEC = ROOT / "tests" / "unit" / "targets" / "calls_user.ae"


def _reads_after_call(asm: str, callee: str) -> set[str]:
    """The source operands of the instruction after each `call #callee`."""
    return set(re.findall(rf"\tcall\t#{callee}\n\tmov\t(\w+), ", asm))


def test_small_results_come_back_in_registers():
    unit = compile_spec(SPEC, chips.load("msp430f1611"), {"inline": "none"})
    asm = unit.asm
    assert _reads_after_call(asm, "calls_user_C_mixer") <= {"r12", "r13", "r14", "r15"}
    assert _reads_after_call(asm, "calls_user_C_mixer")
    assert _reads_after_call(asm, "calls_user_C_with_local")
    # six result words: through out-pointers, as an exported function's
    body = asm.split("\ncalls_user_C_spread:\n")[1].split(".size")[0]
    assert re.search(r"\tmov\t\w+, \d*\(r\d+\)\n", body)


@pytest.mark.parametrize("chip", ["msp430f1611", "cc430f6137", "stm32f030"])
def test_the_results_match_the_interpreter(chip, require_tools):
    require_tools(chip)
    c = chips.load(chip)
    unit = compile_spec(SPEC, c, {"inline": "none"})
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(SPEC, {}))
    e = unit.entries["run"]
    rnd = random.Random(0x5E7)
    for t in range(8):
        x, k, n = rnd.getrandbits(64), rnd.getrandbits(32), t % 4
        tab = [rnd.getrandbits(32) for _ in range(4)]
        got = call_entry(prog, e, [x, k, n, tab])
        assert got == list(ref.call("run", [x, k, n, tab])), (chip, t)
