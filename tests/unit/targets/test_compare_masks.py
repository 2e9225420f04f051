"""A comparison (`if a < b then x else y`; also ==, !=) read only as a select's condition is
made as the select's mask where the comparison is (codegen/select/arith.py `_carry_result`, the
targets' `carry_mask`): MSP430 `subc rD, rD` (C - 1, its zeroing dropped by
peephole.carry_masks), ARMv6-M `movs #0; sbcs` (C - 1), `inv`/`mvns` where the mask is the
carry itself; instead of the 0/1 value (clear, add the carry, flip) and its negation. The
results match the interpreter's on random and boundary inputs on both targets."""
import random

import pytest

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer, Program

SPEC = """spec masks
fn lt(a: u16, b: u16, x: u16, y: u16) -> u16 {
    return if a < b then x else y
}
fn ge(a: u32, b: u32, x: u32, y: u32) -> u32 {
    return if a >= b then x else y
}
fn gt(a: u16, b: u16, x: u16, y: u16) -> u16 {
    return if a > b then x else y
}
fn eq(a: u16, b: u16, x: u16, y: u16) -> u16 {
    return if a == b then x else y
}
fn ne(a: u16, b: u16, x: u16, y: u16) -> u16 {
    return if a != b then x else y
}
"""


@pytest.mark.parametrize("chip", ["msp430f1611", "stm32f030"])
def test_masks_from_the_carry(tmp_path, chip, require_tools):
    require_tools(chip)
    path = tmp_path / "masks.ae"
    path.write_text(SPEC)
    unit = compile_spec(path, chip, {})
    for fn in ("masks_lt", "masks_ge", "masks_gt", "masks_eq", "masks_ne"):
        body = unit.asm.split(f"\n{fn}:\n")[1].split(".size")[0]
        if chip.startswith("msp430"):
            assert "\tadc\t" not in body and "\tsubc\tr" in body, fn
        else:
            assert "\tadcs\t" not in body and "\tsbcs\t" in body, fn
    prog = Program(build_elf(unit, chips.load(chip)), chips.load(chip))
    ref = compile_module(load_module(path, {}))
    rnd = random.Random(7)
    for name, e in sorted(unit.entries.items()):
        w = e.params[0].width
        edge = [0, 1, (1 << w) - 1, 1 << (w - 1)]
        for t in range(24):
            a = edge[t % 4] if t < 16 else rnd.getrandbits(w)
            b = edge[t // 4 % 4] if t < 16 else (a if t == 16 else rnd.getrandbits(w))
            vals = [a, b, rnd.getrandbits(w), rnd.getrandbits(w)]
            args = [Buffer(v.to_bytes(w // 8, "little")) if p.kind != "word" else v
                    for p, v in zip(e.params, vals)]
            args += [Buffer(2 * (-(-r // 16))) for r in e.results]
            got = int.from_bytes(prog.call(e.symbol, args).buffers[-1], "little")
            assert got == ref.call(name, vals)[0], (chip, name, vals)
