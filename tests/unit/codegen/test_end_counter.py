"""Loops over byte-buffer blocks up to a run-time bound counted up to zero
(codegen/select/loops.py `end_offsets`, ARMv6-M's `rebase_to_end` and `count_to_zero`): the
buffers' bases moved to their ends before the loop, the index kept as (i - hi) << k, the loop's
exit the add's own zero flag. Checked against the interpreter on random inputs of every length
up to five blocks (0 included); loops that read their index otherwise,
or name a buffer at another offset, keep their counter and compare."""
import random
import re

import pytest

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer, Program

SPEC = """spec blocks
// the message loop of a stream: each block xored with a chained value and stored
fn chain(msg: bytes, out: bytes) {
    acc = 0x0123456789abcdef as u64
    for i in 0..len(msg) / 8 {
        off = 8 * i
        acc = (acc << 1) ^ load_be(msg, off, 8)
        store_be(out, off, acc)
    }
}
// from the second block on: the index starts at 1
fn tail(msg: bytes, out: bytes) {
    for i in 1..len(msg) / 4 {
        store_le(out, 4 * i, load_le(msg, 4 * i, 4) + 1)
    }
}
// the index is read as a value too: an ordinary counter
fn counted(msg: bytes, out: bytes) {
    for i in 0..len(msg) / 8 {
        off = 8 * i
        store_be(out, off, load_be(msg, off, 8) ^ (i as u64))
    }
}
// the first block is read in every turn: the buffer is named at another offset
fn first(msg: bytes, out: bytes) {
    for i in 0..len(msg) / 8 {
        off = 8 * i
        store_be(out, off, load_be(msg, off, 8) ^ load_be(msg, 0, 8))
    }
}
"""

# the latch: j += block size (a spilled j stored back), then `bne` to the loop's top
LATCH = r"\tadds\tr\d, #[48]\n(\tstr\tr\d, \[sp(, #\d+)?\]\n)?\tbne\t"


def _body(asm: str, fn: str) -> str:
    return asm.split(f"\n{fn}:\n")[1].split(".size")[0]


def test_block_loops_count_up_to_zero(tmp_path, require_tools):
    require_tools("stm32f030")
    path = tmp_path / "blocks.ae"
    path.write_text(SPEC)
    c = chips.load("stm32f030")
    unit = compile_spec(path, c, {})
    for fn in ("chain", "tail"):
        body = _body(unit.asm, f"blocks_{fn}")
        assert re.search(LATCH, body), fn
        assert "rsbs" in body, fn                       # j starts at -(hi << k)
    for fn in ("counted", "first"):
        assert not re.search(LATCH, _body(unit.asm, f"blocks_{fn}")), fn
    prog = Program(build_elf(unit, c), c, bench=True)
    ref = compile_module(load_module(path, {}))
    rnd = random.Random(5)
    for name, e in sorted(unit.entries.items()):
        for n in range(0, 41):
            msg, out = rnd.randbytes(n), rnd.randbytes(n)
            r = prog.call(e.symbol, [Buffer(msg, region="bench"), n, Buffer(out, region="bench"), n])
            want = list(out)
            ref.call(name, [list(msg), want])
            assert r.buffers[1] == bytes(want), (name, n)
