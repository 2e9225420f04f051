"""A partial or odd-addressed byte block reaches the scratch area through the MSP430 byte loops
(`Msp430Buffers._pad_copy`): speed mode copies the count's bytes with `mov.b @p+, 0(s)` and then
zeroes the rest, two loops; size mode keeps one loop that tests the count on every byte
(`_pad_copy_compact`, about 20 bytes shorter). Both must give the zero-padded block for every
count (none, part of the block, all of it, more) at every alignment."""
import random
import re

import pytest

from aedsl.sim.harness import Buffer

from tests.programs import compiled_program

SPEC = """
spec pad_copy

// buf[off, off + min(16, len(buf) - off)) zero-padded to 16 bytes, big-endian
fn get16(buf: bytes, off: u32) -> u128 {
    return load_be(buf, off, 16, len(buf) - off)
}

// the same in a 15-byte field (an odd size: the byte loops alone)
fn get15(buf: bytes, off: u32) -> u120 {
    return load_be(buf, off, 15, len(buf) - off)
}
"""


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    p = tmp_path_factory.mktemp("pad_copy") / "pad_copy.ae"
    p.write_text(SPEC)
    return str(p)


def _call(prog, unit, fn: str, data: bytes, off: int):
    # the offset is a u32: two words, passed through a buffer on MSP430 (docs/BACKENDS.md)
    r = prog.call(unit.entries[fn].symbol, [Buffer(data, align=1), len(data), Buffer(off.to_bytes(4, "little")),
                                            Buffer(16)])
    return int.from_bytes(r.buffers[-1], "little"), r.cycles


@pytest.mark.parametrize("chip,knobs", [("cc430f6137", {}), ("msp430f1611", {}), ("cc430f6137", {"opt": "size"})])
def test_every_count_and_alignment(spec_path, chip, knobs, require_tools):
    require_tools(chip)
    unit, prog = compiled_program(spec_path, chip, knobs)
    rng = random.Random(3686)
    for fn, width in (("get16", 16), ("get15", 15)):
        for off in (0, 1, 2, 3):
            for n in range(off, off + width + 3):
                data = rng.randbytes(n)
                got, _ = _call(prog, unit, fn, data, off)
                block = data[off:off + width]
                want = int.from_bytes(block + bytes(width - len(block)), "big")
                assert got == want, (chip, knobs, fn, off, n)


def test_speed_mode_copies_with_autoincrement_and_costs_half(spec_path, require_tools):
    require_tools("cc430f6137")
    speed, fast = compiled_program(spec_path, "cc430f6137")
    size, small = compiled_program(spec_path, "cc430f6137", {"opt": "size"})
    assert re.search(r"^\tmov\.b\t@r\d+\+, 0\(r\d+\)$", speed.asm, re.M)
    assert not re.search(r"^\tmov\.b\t@r\d+\+, 0\(r\d+\)$", size.asm, re.M)
    assert speed.function_bytes[speed.entries["get15"].symbol] > size.function_bytes[size.entries["get15"].symbol]
    # a 12-byte nonce in a 15-byte field (OCB3's): 12 bytes copied, 3 zeroed
    data = bytes(range(12))
    _, t_speed = _call(fast, speed, "get15", data, 0)
    _, t_size = _call(small, size, "get15", data, 0)
    assert t_speed + 80 <= t_size, (t_speed, t_size)      # 218 against 303 cycles
