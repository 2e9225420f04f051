"""Table look-ups indexed by a bit field with pre-multiplied indices (select/memory.py
`premultiplied`): the field x[lo + w - 1 : lo] of a 16-bit limb indexing 2^s-byte entries is
moved to bit s and masked once (`rra; rra; and #60` for a high nibble and 4-byte entries) instead
of extracted and then scaled (`clrc; rrc; rra; rra; rra; and #15; rla; rla`); fields of words in
memory are read a byte at a time, and read again after a store to the word. Checked on the
generated code's shape and against the interpreter, on the original CPU and on MSP430X."""
import random
import re

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer

from tests.programs import compiled_program

SPEC = """
spec fields
table t: u32[64] = [(e * 0x9e3779b9 + 0x7f4a7c15) % 0x100000000 for e in 0..64]
table h: u16[32] = [(e * 0x6f4b + 0x1234) % 0x10000 for e in 0..32]
fn lookups(x: u32, m: u32[2]) -> u32 {
    // nibbles of a register value at each offset, a constant added to the index, 4- and 2-byte
    // entries, fields of words in memory, a 5-bit field
    y = t[x[3:0] as u8] ^ t[16 + x[7:4] as u8] ^ t[32 + x[11:8] as u8] ^ t[48 + x[15:12] as u8]
    y = y ^ t[x[19:16] as u8] ^ t[x[23:20] as u8] ^ t[x[27:24] as u8] ^ t[x[31:28] as u8]
    y = y ^ t[m[0][7:4] as u8] ^ t[m[0][11:8] as u8] ^ t[m[1][31:28] as u8] ^ t[m[1][5:0] as u8]
    z = h[x[9:5] as u8] ^ h[m[1][20:16] as u8]
    // the same field of a word stored to in between: read again
    m[1] = y
    y = y ^ t[m[1][5:0] as u8] ^ t[m[1][31:28] as u8]
    return y ^ (z as u32)
}
"""


@pytest.mark.parametrize("chip", ["msp430f1611", "cc430f6137"])
def test_field_indices_are_premultiplied_and_agree_with_the_interpreter(tmp_path, chip, require_tools):
    require_tools(chip)
    path = tmp_path / "fields.ae"
    path.write_text(SPEC)
    unit, prog = compiled_program(path, chip)
    body = unit.asm.split("\nfields_lookups:\n", 1)[1].split(".size", 1)[0]
    # every index is masked at its scaled place: 0x3c (4-bit field, 4-byte entries), 0xfc (6-bit
    # field), 0x3e (5-bit field, 2-byte entries); no mask at the field's own place, no scaling
    # shift after a mask
    assert re.search(r"and\t#60, r\d+", body) and re.search(r"and\t#252, r\d+", body)
    assert re.search(r"and\t#62, r\d+", body)
    assert not re.search(r"and\t#15, r\d+", body)
    assert not re.search(r"and\t#\d+, (r\d+)\n\t(rla|rlam\t#\d+,)\t\1", body)
    # the high nibble of a word in memory: its byte read alone
    assert re.search(r"mov\.b\t\d+\(r\d+\), r\d+", body)
    ref = compile_module(load_module(path, {}))
    rnd = random.Random(7)
    for _ in range(6):
        x, m0, m1 = (rnd.getrandbits(32) for _ in range(3))
        mem = m0.to_bytes(4, "little") + m1.to_bytes(4, "little")
        r = prog.call(unit.entries["lookups"].symbol, [Buffer(x.to_bytes(4, "little")), Buffer(mem), Buffer(4)])
        assert int.from_bytes(r.buffers[-1], "little") == ref.call("lookups", [x, [m0, m1]])[0]
