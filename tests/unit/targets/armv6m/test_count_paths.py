"""Word blocks with a run-time count on ARMv6-M (select/buffers.py `_count_entries`): the byte path
is entered twice, a count below the block copying the count itself (no clamp to the block) and a
misaligned whole block copying all of it (`movs k, #8; b`). Checked against the interpreter for
every count 0..10 at every alignment of the buffers."""
import re

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer, Program

SPEC = """spec counted
// a last block: the first c bytes read (the rest zero), xored, and c bytes written back
fn last(msg: bytes, off: u32, c: u32, out: bytes) {
    x = load_be(msg, off, 8, c)
    store_be(out, off, x ^ 0x0123456789abcdef, c)
}
"""

# the clamp the two entries replace: `cmp rK, #8; bcc; movs rK, #8`
CLAMP = r"\tcmp\tr(\d), #8\n\tbcc\t\S+\n\tmovs\tr\1, #8\n"


def test_counted_blocks_match_the_interpreter(tmp_path, require_tools):
    require_tools("stm32f030")
    path = tmp_path / "counted.ae"
    path.write_text(SPEC)
    c = chips.load("stm32f030")
    unit = compile_spec(path, c, {})
    body = unit.asm.split("\ncounted_last:\n")[1].split(".size")[0]
    assert not re.search(CLAMP, body)
    assert body.count("\tmovs\tr") >= 2 and re.search(r"\tmovs\tr\d, #8\n\tb\t", body)
    prog = Program(build_elf(unit, c), c, bench=True)
    ref = compile_module(load_module(path, {}))
    e = unit.entries["last"]
    msg = bytes(range(100, 120))
    for off in range(4):
        for count in range(11):
            out = bytes(range(200, 220))
            r = prog.call(e.symbol, [Buffer(msg, region="bench"), 20, off, count,
                                     Buffer(out, region="bench"), 20])
            want = list(out)
            ref.call("last", [list(msg), off, count, want])
            assert r.buffers[1] == bytes(want), (off, count)
