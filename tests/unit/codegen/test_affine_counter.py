"""A loop that counts with a carried value stepped by a constant (codegen/select_base.py
`affine_counter`, fed by ir/passes/affine_tables.py): no counter, no table read, the loop ending
when the value reaches its last one. The generated code against the interpreter on both targets,
and the instructions Ascon-128's permutation loop is left with on Cortex-M0."""
import random
import re

import pytest

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer, Program

from tests.paths import SPECS

PRIM = """spec prim
table t: u8[8] = {0x07, 0x50, 0x47, 0x3e, 0x35, 0x2c, 0x23, 0x1a}
fn step(x: u8, n: u8) -> u8 {
    for i in 8 - n..8 {
        x = (x ^ t[i]) <<< 1
    }
    return x
}
"""
SCHEME = """spec s
use Q = prim()
fn f(x: u8) -> u8 {
    x = Q.step(x, 5)
    x = Q.step(x ^ 0x5a, 7)
    return x
}
"""


def body(asm: str, symbol: str) -> list[str]:
    text = asm.split(f"\n{symbol}:")[1].split(".size")[0]
    return [ln.strip() for ln in text.splitlines()
            if ln.startswith("\t") and ln.strip() and not ln.strip().startswith(("@", ";", "."))]


@pytest.mark.needs("msp430")
@pytest.mark.needs("armv6m")
@pytest.mark.parametrize("chip", ["stm32f030", "msp430f1611"])
def test_against_the_interpreter(tmp_path, chip):
    (tmp_path / "prim.ae").write_text(PRIM)
    spec = tmp_path / "s.ae"
    spec.write_text(SCHEME)
    c = chips.load(chip)
    unit = compile_spec(spec, c, {"affine_tables": "on", "inline": "none"})
    step = body(unit.asm, "s_Q_step")
    assert not any("Q.t" in i or "Q_t" in i for i in step)          # no table read
    # c = t[i] = 0x59 - 9 i, stepped by -9; the loop ends when c reaches 0x59 - 9 * 8 = 0x11
    assert any(re.fullmatch(r"cmp\s+(r\d+, #17|#17, r\d+)", i) for i in step)
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(spec, {}))
    e = unit.entries["f"]
    limb = 4 if c.isa == "armv6m" else 2
    for x in random.Random(5).sample(range(256), 24):
        r = prog.call(e.symbol, [x, Buffer(limb)])
        assert int.from_bytes(r.buffers[-1], "little") == ref.call("f", [x])[0]


@pytest.mark.needs("armv6m")
def test_ascon_permute_counts_with_its_round_constant():
    ins = body(compile_spec(SPECS / "schemes" / "ascon128.ae", "stm32f030").asm, "ascon128_P_permute")
    assert not any("ascon128_P.rc" in i for i in ins)
    # c = 60 + 15 * rounds, passed so by the calls (the argument is read by nothing else), c - 15
    # at the loop's end, until c = 60: no wrap modulo 256 over the rounds the module asks for,
    # so no mask (uxtb) anywhere, and no multiply at the entry
    assert any(re.fullmatch(r"cmp\s+r\d+, #60", i) for i in ins)
    assert any(re.fullmatch(r"subs\s+r\d+, #15", i) for i in ins)
    assert not any(i.startswith(("uxtb", "muls")) for i in ins)
    calls = body(compile_spec(SPECS / "schemes" / "ascon128.ae", "stm32f030").asm, "ascon128_encrypt_with")
    assert {"movs\tr1, #240", "movs\tr1, #150"} <= set(calls)
    # every call runs the loop (6 and 12 rounds): no entry test, and 16 is compared nowhere
    assert not any(re.fullmatch(r"cmp\s+r\d+, #16", i) for i in ins)


def test_msp430_keeps_the_table_by_default():
    # an indexed read is a memory operand of the xor there (`affine_tables` off by default)
    ins = body(compile_spec(SPECS / "schemes" / "ascon128.ae", "msp430f1611").asm, "ascon128_P_permute")
    assert any("ascon128_P.rc" in i for i in ins)
