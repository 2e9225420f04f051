"""Masks made from one bit and bits shifted into a register at the top (shared selection
rules, codegen/select/arith.py `bit_smear` and codegen/select/shifts.py `shift_in_at_top`):
the generated code against the interpreter on every target, and the instructions each rule
stands for.

- 0 - x for x in {0, 1} is one register in every limb; from a bit of a value, the target's
  `bit_mask` (MSP430 bit; subc; inv, ARMv6-M lsls; asrs #31) instead of shifting it down;
- cat(b, v[w-1:1]) for one bit b: on MSP430 `bit` puts b in C and rrc takes it in at the top
  of each limb from the highest down (a shift register's step: Grain's authentication)."""
import random
import re

import pytest

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer, Program

SPEC = """spec bitmasks
fn auth(acc: u64, sr: u64, m: u8, a: u8) -> (u64, u64) {
    forall j in 0..8 {
        acc = acc ^ (sr & -(m[j] as u64))
        sr = cat(a[j], sr[63:1])
    }
    return acc, sr
}
fn flag(x: u96, b: u8) -> u96 {
    return x & (0 - ((b & 1) as u96))
}
fn high(x: u40, y: u32) -> (u40, u48) {
    return x & -(y[17] as u40), cat(y[31], x[39:1] as u47)
}
"""

CHIPS = ("msp430f1611", "cc430f6137", "stm32f030")


def body(asm: str, symbol: str) -> list[str]:
    """The mnemonics and operands of `symbol`'s instructions."""
    text = asm.split(f"\n{symbol}:")[1].split(".size")[0]
    return [ln.strip() for ln in text.splitlines()
            if ln.startswith("\t") and ln.strip() and not ln.strip().startswith((";", "."))]


@pytest.mark.needs("msp430")
@pytest.mark.needs("armv6m")
@pytest.mark.parametrize("chip", CHIPS)
def test_against_the_interpreter(tmp_path, chip):
    spec = tmp_path / "bitmasks.ae"
    spec.write_text(SPEC)
    c = chips.load(chip)
    unit = compile_spec(spec, c)
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(spec, {}))
    limb = 32 if c.isa == "armv6m" else 16
    rnd = random.Random(3)
    for name, e in unit.entries.items():
        for t in range(16):
            vals = [rnd.getrandbits(p.width) if t % 4 else (0 if t % 8 else (1 << p.width) - 1)
                    for p in e.params]
            args = [v if p.kind == "word" else Buffer(v.to_bytes(p.nbytes, "little"))
                    for p, v in zip(e.params, vals)]
            args += [Buffer(limb // 8 * (-(-w // limb))) for w in e.results]
            r = prog.call(e.symbol, args)
            got = [int.from_bytes(b, "little") for b in r.buffers[-len(e.results):]]
            assert got == list(ref.call(name, vals)), (name, vals)


def test_msp430_masks_by_bit_and_shifts_in_through_carry(tmp_path):
    spec = tmp_path / "bitmasks.ae"
    spec.write_text(SPEC)
    ins = body(compile_spec(spec, "msp430f1611", entry="auth").asm, "bitmasks_auth")
    ops = [i.split()[0] for i in ins]
    # eight masks (bit; subc; inv) and eight steps (bit; rrc x 4), no shifts of m, a or sr
    assert ops.count("bit") == 16 and ops.count("inv") == 8 and ops.count("rrc") == 32
    assert not {"rra", "rla", "clrc"} & set(ops)
    assert ops.count("subc") == 8                      # one subtraction a mask, not one a limb


def test_armv6m_masks_by_two_shifts(tmp_path):
    spec = tmp_path / "bitmasks.ae"
    spec.write_text(SPEC)
    ins = body(compile_spec(spec, "stm32f030", entry="auth").asm, "bitmasks_auth")
    assert len([i for i in ins if re.fullmatch(r"asrs\s+r\d+, r\d+, #31", i)]) == 8
    assert not [i for i in ins if i.startswith(("rsbs", "negs", "sbcs"))]
