"""Run-time multiplications on MSP430: the hardware multiplier (MPY32 on the CC430, MPY16 on the
F1611; the simulator faults a result read before its latency) and the shift-and-add fallback
(the CC430 with its multiplier removed), each against the IR interpreter; ChaCha20-Poly1305
(Poly1305's 16x16 -> 32 products) on the official vectors."""
import dataclasses
import random

import pytest

from aedsl import chips, vectors
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf, sim_engine
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Program
from aedsl.vectors import runner

from tests.programs import call_entry

CHIPS = ("cc430f6137", "msp430f1611")

MUL_SPEC = """spec mpymul
fn m16(a: u16, b: u16) -> (u32, u16, u32) {
    return (a as u32) * (b as u32), a * b, (a as u32) * (b as u32) + ((b as u32) * (a as u32) >> 7)
}
fn m32(a: u32, b: u32, c: u16) -> (u32, u32, u48) {
    return a * b, a * (c as u32), (a as u48) * (b as u48)
}
fn m64(a: u64, b: u48) -> (u64, u64, u8) {
    return a * (b as u64), (b as u64) * (b as u64), (a as u8) * (b[15:8])
}
"""


def _edge(rnd, width: int) -> int:
    """Random values mixed with the edges: 0, 1, all ones, 0xFFFF in every limb position."""
    pick = rnd.randrange(6)
    if pick == 0:
        return 0
    if pick == 1:
        return (1 << width) - 1
    if pick == 2:
        return 0xFFFF << (16 * rnd.randrange(max(1, width // 16))) & ((1 << width) - 1)
    if pick == 3:
        return rnd.choice([1, 0xFFFF, 0x8000]) & ((1 << width) - 1)
    return rnd.getrandbits(width)


def _no_multiplier(chip):
    return dataclasses.replace(chip, multiplier={})


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("variant", [*CHIPS, "cc430f6137-no-mpy"])
def test_mul_against_interpreter(tmp_path, variant):
    spec = tmp_path / "mpymul.ae"
    spec.write_text(MUL_SPEC)
    c = chips.load(variant.removesuffix("-no-mpy"))
    if variant.endswith("-no-mpy"):
        c = _no_multiplier(c)
    unit = compile_spec(spec, c)
    asm = unit.asm
    mpy_op2 = f"&{c.multiplier['base'] + 8:#06x}" if c.multiplier else None
    # the multiplier is used where there is one, and only there
    assert (mpy_op2 in asm) if mpy_op2 else ("&0x04c8" not in asm and "&0x0138" not in asm)
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(spec, {}))
    rnd = random.Random(0x3B7)
    fixed = {"m16": [[0, 0], [0xFFFF, 0xFFFF], [0xFFFF, 1], [0, 0xFFFF], [0x8000, 0x8000]]}
    for name, e in unit.entries.items():
        cases = [list(v) for v in fixed.get(name, [])]
        cases += [[_edge(rnd, p.width) for p in e.params] for _ in range(16)]
        cases.append([(1 << p.width) - 1 for p in e.params])
        for vals in cases:
            got = call_entry(prog, e, vals)
            assert got == list(ref.call(name, vals)), (variant, name, [hex(v) for v in vals])


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("chip", CHIPS)
def test_chacha20_poly1305_vectors(chip):
    eng = sim_engine("specs/schemes/chacha20_poly1305.ae", {}, chip)
    vecs = list(vectors.load("rfc8439"))
    wy = [v for v in vectors.load("wycheproof:chacha20_poly1305") if len(v.nonce) == 12]
    vecs += wy[::8]                         # a spread sample: empty, short and multi-block messages
    rep = runner.run(eng, vecs)
    assert rep.failed == 0 and rep.passed >= 40, str(rep)
