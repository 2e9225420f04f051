"""peephole.scale_index: a counted loop whose index is read only as the byte offset of an element
of 2^k-byte entries (`mov i, t; and #m, t; rla` k times) keeps i << k: the shifts go, the
increment, the end and the mask are scaled. Checked on hand-written machine IR and on generated
code against the interpreter, on the original CPU and on MSP430X."""
import random
import re

import pytest

from aedsl.backends.msp430.peephole import scale_index
from aedsl.codegen.mir import Imm, Lbl, MInst, R
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer

from tests.mir import mfunction, text
from tests.programs import compiled_program

I, T, U = 64, 65, 66       # virtual registers: the index, its copy, the copy shifted


def _loop(*body):
    init = MInst("mov", [Imm(0), R(I)])
    inc = MInst("add", [Imm(1), R(I)])
    cmp = MInst("cmp", [Imm(20), R(I)])
    jump = MInst("jnc", [Lbl("top")])
    f = mfunction(init, MInst("label", [Lbl("top")]), *body, inc, cmp, jump)
    return f, [(I, inc, cmp, jump, 20, 20)]


def test_the_shifts_of_a_masked_index_go():
    f, loops = _loop(MInst("mov", [R(I), R(T)]), MInst("and", [Imm(7), R(T)]),
                     MInst("mov", [R(T), R(U)]), MInst("rla", [R(U)]), MInst("rla", [R(U)]),
                     MInst("rla", [R(U)]), MInst("add", [R(1), R(U)]))
    assert scale_index(f, loops) == 1
    assert text(f) == text(mfunction(
        MInst("mov", [Imm(0), R(I)]), MInst("label", [Lbl("top")]), MInst("mov", [R(I), R(T)]),
        MInst("and", [Imm(56), R(T)]), MInst("mov", [R(T), R(U)]), MInst("add", [R(1), R(U)]),
        MInst("add", [Imm(8), R(I)]), MInst("cmp", [Imm(160), R(I)]), MInst("jnc", [Lbl("top")])))
    assert loops[0][5] == 160


@pytest.mark.parametrize("body", [
    # the index read otherwise too
    (MInst("mov", [R(I), R(T)]), MInst("rla", [R(T)]), MInst("xor", [R(I), R(T)])),
    # two reads shifted by different amounts
    (MInst("mov", [R(I), R(T)]), MInst("rla", [R(T)]), MInst("mov", [R(I), R(U)]),
     MInst("rla", [R(U)]), MInst("rla", [R(U)])),
    # no shift
    (MInst("mov", [R(I), R(T)]), MInst("and", [Imm(7), R(T)]), MInst("add", [R(1), R(T)])),
])
def test_left_alone(body):
    f, loops = _loop(*body)
    before = text(f)
    assert scale_index(f, loops) == 0 and text(f) == before


def test_an_end_that_would_not_fit_16_bits_is_left_alone():
    f, loops = _loop(MInst("mov", [R(I), R(T)]), MInst("rla", [R(T)]), MInst("rla", [R(T)]))
    loops[0] = loops[0][:4] + (20, 0x5000)
    loops[0][2].ops[0] = Imm(0x5000)
    assert scale_index(f, loops) == 0


SPEC = """
spec scale
table k: u32[8] = {0x01234567, 0x89abcdef, 0x0f1e2d3c, 0x4b5a6978, 0x11223344, 0x55667788,
                   0x99aabbcc, 0xddeeff00}
fn mix(x: u32) -> u32 {
    var t: u32[8]
    for i in 0..8 {
        t[i] = k[i] ^ x
    }
    for j in 0..20 {
        x = (x <<< 5) ^ t[j % 8]
    }
    return x
}
"""


@pytest.mark.parametrize("chip", ["msp430f1611", "cc430f6137"])
def test_generated_code_agrees_with_the_interpreter(tmp_path, chip, require_tools):
    require_tools(chip)
    path = tmp_path / "scale.ae"
    path.write_text(SPEC)
    unit, prog = compiled_program(path, chip)
    body = unit.asm.split("\nscale_mix:\n", 1)[1]
    # 4-byte entries: j is kept as 4j, the mask is 7 << 2 and the loop ends at 20 << 2
    assert re.search(r"and\t#28, r\d+", body) and re.search(r"cmp\t#80, ", body)
    ref = compile_module(load_module(path, {}))
    rnd = random.Random(5)
    for _ in range(4):
        x = rnd.getrandbits(32)
        r = prog.call(unit.entries["mix"].symbol, [Buffer(x.to_bytes(4, "little")), Buffer(4)])
        assert int.from_bytes(r.buffers[-1], "little") == ref.call("mix", [x])[0]
