"""peephole.rebase_index: a counted loop with a constant end whose index is read only as a table
index keeps i - end, reads `t+end(i)` and exits on the increment's zero flag (`add #1; jnz`
instead of `add #1; cmp #end; jnc`); peephole.count_down's loops exit on a walking index the
same way instead of keeping a counter beside it. Checked on the shape of loop_index.ae's code and on its
results against a Python model on the original CPU and on MSP430X, where an index register
below 64 KB wraps within 64 KB (SLAU208 §4.4.1.2) as the rebased negative index needs."""
import random
import re
from pathlib import Path

import pytest

from aedsl.driver import compile_spec
from aedsl.sim.harness import Buffer

from tests.programs import compiled_program

SPEC = Path(__file__).with_name("loop_index.ae")
T = [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10]


def model(name: str, x: int, n: int = 16) -> int:
    order = range(15, -1, -1) if name == "walked_down" else range(16 - n, 16)
    for i in order:
        x = ((x << 3) | (x >> 13)) & 0xFFFF
        x ^= T[i] ^ (i if name == "mixed" else 0)
    return x


def _body(asm: str, symbol: str) -> str:
    return asm.split(f"\n{symbol}:\n", 1)[1].split(".size", 1)[0]


def test_the_index_is_rebased_only_where_it_is_only_an_index():
    unit = compile_spec(SPEC, "msp430f1611", {})
    lookup = _body(unit.asm, unit.entries["lookup"].symbol)
    assert re.search(r"sub\t#16, ", lookup) and re.search(r"loop_index_t\+16\(r\d+\)", lookup)
    # the entry test still compares i with 16; the exit test is the increment's zero flag
    assert len(re.findall(r"cmp\t#16, ", lookup)) == 1 and "jnz" in lookup and "jnc" not in lookup
    mixed = _body(unit.asm, unit.entries["mixed"].symbol)
    assert "t+16" not in mixed and len(re.findall(r"cmp\t#16, ", mixed)) == 2 and "jnc" in mixed


def test_a_counted_loop_exits_on_its_walking_index():
    """count_down's loop without a counter: the walking index keeps i - 16 and its `add`
    ends the loop (no `dec` of a counter beside it)."""
    unit = compile_spec(SPEC, "msp430f1611", {})
    walked = _body(unit.asm, unit.entries["walked"].symbol)
    assert re.search(r"mov\t#65520, r\d+", walked) and re.search(r"loop_index_t\+16\(r\d+\)", walked)
    assert "dec" not in walked and re.search(r"add\t#1, r\d+\n\tjnz", walked)
    # walked down: the index steps by -1 and the displacement stays a small offset (an
    # MSP430X linker rejects `t+65535*16` where the original CPU's wraps it)
    down = _body(unit.asm, unit.entries["walked_down"].symbol)
    assert "dec" not in down and re.search(r"loop_index_t\+15-16\(r\d+\)", down)


@pytest.mark.parametrize("chip", ["msp430f1611", "cc430f6137"])
def test_generated_code_agrees_with_the_model(chip, require_tools):
    require_tools(chip)
    unit, prog = compiled_program(SPEC, chip)
    rnd = random.Random(4)
    for name in ("lookup", "mixed"):
        e = unit.entries[name]
        for n in (0, 1, 2, 7, 16):
            x = rnd.getrandbits(16)
            r = prog.call(e.symbol, [x, n, Buffer(2)])
            assert int.from_bytes(r.buffers[-1], "little") == model(name, x, n), (chip, name, x, n)
    for name in ("walked", "walked_down"):
        e = unit.entries[name]
        for _ in range(3):
            x = rnd.getrandbits(16)
            r = prog.call(e.symbol, [x, Buffer(2)])
            assert int.from_bytes(r.buffers[-1], "little") == model(name, x), (chip, name, x)
