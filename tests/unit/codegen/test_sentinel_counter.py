"""Counted loops that count with the value they shift (select_base.sentinel_counter): a loop of
`trips` turns that never reads its index, carrying a value v < 2^trips it shifts right by one a
turn and otherwise reads only as v[0], gets a marker bit at `trips` in v and ends when v is 1:
no counter. Checked on both targets against the interpreter; loops that read their index, or
whose value may have bits beyond the trips, keep their counter."""
import random
import re

import pytest

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer, Program

SPEC = """spec bitloop
// a byte's bits select words to add up, bit 0 first (a bit-serial MAC step)
fn select_sum(acc: u32, r: u32, m: u8) -> u32 {
    for j in 0..8 {
        acc = acc ^ (r & (0 - (m[0] as u32)))
        r = (r << 1) | (r >> 31)
        m = m >> 1
    }
    return acc
}
// the index is read: an ordinary counter
fn indexed(acc: u32, m: u8) -> u32 {
    for j in 0..8 {
        acc = acc ^ ((m[0] as u32) << j)
        m = m >> 1
    }
    return acc
}
// only 4 turns over a byte: bits 4..7 would still be there at the end
fn half(acc: u32, m: u8) -> u32 {
    for j in 0..4 {
        acc = (acc << 1) ^ (m[0] as u32)
        m = m >> 1
    }
    return acc
}
"""


def _body(asm: str, fn: str) -> str:
    return asm.split(f"\n{fn}:\n")[1].split(".size")[0]


@pytest.mark.parametrize("chip", ["msp430f1611", "stm32f030"])
def test_loops_counted_by_their_shifted_value(tmp_path, chip, require_tools):
    require_tools(chip)
    path = tmp_path / "bitloop.ae"
    path.write_text(SPEC)
    c = chips.load(chip)
    unit = compile_spec(path, c, {})
    # the loop ends when the marked value is below 2 (MSP430 `cmp #2, r; jc`, Thumb `cmp r, #2;
    # bcs`), not on a counter
    ends = r"\tcmp\t#2, r\d+\n\tjc\t" if chip.startswith("msp430") else r"\tcmp\tr\d, #2\n\tbcs\t"
    assert re.search(ends, _body(unit.asm, "bitloop_select_sum"))
    for fn in ("bitloop_indexed", "bitloop_half"):
        assert not re.search(ends, _body(unit.asm, fn)), fn
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(path, {}))
    rnd = random.Random(3)
    for name, e in sorted(unit.entries.items()):
        for t in range(20):
            vals = [rnd.getrandbits(p.width) for p in e.params]
            if t < 2:
                vals[-1] = (0, 255)[t]
            args = [Buffer(v.to_bytes(2 * (-(-p.width // 16)), "little")) if p.kind != "word" else v
                    for p, v in zip(e.params, vals)]
            args += [Buffer(2 * (-(-r // 16))) for r in e.results]
            got = int.from_bytes(prog.call(e.symbol, args).buffers[-1], "little")
            assert got == ref.call(name, vals)[0], (chip, name, vals)
