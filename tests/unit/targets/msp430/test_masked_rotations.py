"""masked_rotations (aedsl/backends/msp430/masked_rotations.py): k one-bit rotations of a register
and an `and` of it right after, whose mask keeps the bits of one shift, become that shift:
rla / rlam (left), rra / rrum (right), or swpb and a shift by 8 - k for the far part. On MIR, on
the code of masked_rotations.ae (32-bit shifts by 4 read in their low half), and that code's
results in the simulator on both CPUs against Python."""
import random
import re
from pathlib import Path

import pytest

from aedsl import chips
from aedsl.backends.msp430.masked_rotations import masked_rotations
from aedsl.backends.msp430.target import make_target
from aedsl.codegen.mir import Imm, Lbl, MInst, R
from aedsl.driver import compile_spec
from aedsl.sim.harness import Buffer

from tests.mir import mfunction, text
from tests.programs import compiled_program

SPEC = Path(__file__).with_name("masked_rotations.ae")
PLAIN = make_target(chips.load("msp430f1611"))
CPUX = make_target(chips.load("cc430f6137"))


def ins(mn, *ops):
    return MInst(mn, list(ops))


def left(r, k):
    return [x for _ in range(k) for x in (ins("rla", R(r)), ins("adc", R(r)))]


def right(r, k):
    return [x for _ in range(k) for x in (ins("bit", Imm(1), R(r)), ins("rrc", R(r)))]


# after the `and`: an instruction that sets the flags, so those of the `and` are dead
TAIL = [ins("add", R(12), R(13)), ins("ret")]


def run(seq, cpux):
    f = mfunction(*seq)
    n = masked_rotations(f, CPUX if cpux else PLAIN, cpux)
    return n, text(f)


def test_a_left_rotation_under_the_shifts_mask_is_the_shift():
    seq = left(15, 4) + [ins("and", Imm(0xFFF0), R(15))] + TAIL
    assert run(seq, True) == (8, ["rlam Imm(value=4), R(reg=15)", *map(repr, TAIL)])
    assert run(seq, False) == (5, ["rla R(reg=15)"] * 4 + [repr(x) for x in TAIL])
    # a narrower mask stays; so does the `and` whose flags are read after it
    narrow = left(15, 3) + [ins("and", Imm(0x0FF8), R(15))] + TAIL
    assert run(narrow, True) == (5, ["rlam Imm(value=3), R(reg=15)", "and Imm(value=4088), R(reg=15)",
                                     *map(repr, TAIL)])
    read = left(15, 4) + [ins("and", Imm(0xFFF0), R(15)), ins("jz", Lbl("L")), ins("label", Lbl("L")), ins("ret")]
    assert run(read, True)[1][:2] == ["rlam Imm(value=4), R(reg=15)", "and Imm(value=65520), R(reg=15)"]


def test_a_right_rotation_under_the_shifts_mask_is_the_shift():
    seq = right(11, 4) + [ins("and", Imm(0x0FFF), R(11))] + TAIL
    assert run(seq, True) == (8, ["rrum Imm(value=4), R(reg=11)", *map(repr, TAIL)])
    # the original CPU shifts arithmetically: bit 15 copies down and the mask stays to clear it
    assert run(seq, False) == (4, ["rra R(reg=11)"] * 4 + ["and Imm(value=4095), R(reg=11)", *map(repr, TAIL)])


def test_the_far_part_is_a_byte_swap_and_a_shift():
    # rotr(x, 4) & 0xF000 = x << 12: swpb, then 4 bits left
    top = right(15, 4) + [ins("and", Imm(0xF000), R(15))] + TAIL
    assert run(top, True)[1][:3] == ["swpb R(reg=15)", "rlam Imm(value=4), R(reg=15)", "and Imm(value=61440), R(reg=15)"]
    assert run(top, False)[1][:6] == ["swpb R(reg=15)"] + ["rla R(reg=15)"] * 4 + ["and Imm(value=61440), R(reg=15)"]
    # rotl(x, 4) & 0x000F = x >> 12: swpb, then 4 bits right
    bottom = left(15, 4) + [ins("and", Imm(0x000F), R(15))] + TAIL
    assert run(bottom, True)[1][:3] == ["swpb R(reg=15)", "rrum Imm(value=4), R(reg=15)", "and Imm(value=15), R(reg=15)"]
    # two steps cost fewer cycles than swpb and six: kept
    two = right(15, 2) + [ins("and", Imm(0xC000), R(15))] + TAIL
    assert run(two, True) == (0, [repr(x) for x in two])


KEPT = {
    "mask keeps both parts": left(15, 4) + [ins("and", Imm(0xFFFF), R(15))] + TAIL,
    "mask of another register": left(15, 4) + [ins("and", Imm(0xFFF0), R(14))] + TAIL,
    "instruction between": left(15, 4) + [ins("mov", R(15), R(14)), ins("and", Imm(0xFFF0), R(15))] + TAIL,
    "label between": left(15, 4) + [ins("label", Lbl("L")), ins("and", Imm(0xFFF0), R(15))] + TAIL,
    "steps of two registers": [ins("rla", R(15)), ins("adc", R(14)), ins("and", Imm(0xFFFE), R(15))] + TAIL,
    "bit other than 0": [ins("bit", Imm(2), R(15)), ins("rrc", R(15)), ins("and", Imm(0x7FFF), R(15))] + TAIL,
}


@pytest.mark.parametrize("seq", KEPT.values(), ids=KEPT.keys())
def test_kept(seq):
    for cpux in (False, True):
        assert run(seq, cpux) == (0, [repr(x) for x in seq])


def test_comments_inside_stay():
    seq = [ins("rla", R(15)), ins("comment", "; x"), ins("adc", R(15)), ins("and", Imm(0xFFFE), R(15))] + TAIL
    assert run(seq, False) == (2, ["rla R(reg=15)", "comment ; x", *map(repr, TAIL)])


def _body(asm: str, symbol: str) -> str:
    return asm.split(f"\n{symbol}:\n", 1)[1].split(".size", 1)[0]


@pytest.mark.parametrize("chip", ["msp430f1611", "cc430f6137"])
def test_the_shifts_code_has_no_rotation_left(chip):
    unit = compile_spec(SPEC, chip, {})
    for name in ("blocks", "offset"):
        body = _body(unit.asm, unit.entries[name].symbol)
        assert "adc" not in body and not re.search(r"bit\t#1, (r\d+)\n\trrc\t\1", body), (chip, name)
    assert "and" not in _body(unit.asm, unit.entries["offset"].symbol)


@pytest.mark.parametrize("chip", ["msp430f1611", "cc430f6137"])
def test_generated_code_agrees_with_python(chip, require_tools):
    require_tools(chip)
    unit, prog = compiled_program(SPEC, chip)
    rnd = random.Random(13)
    edges = [0, 1, 15, 16, 17, 0xFFF0, 0xFFFF, 0x10000, 0xFFFFFFF0, 0xFFFFFFFF, 0x8000000F]
    for n in edges + [rnd.getrandbits(32) for _ in range(40)]:
        r = prog.call(unit.entries["blocks"].symbol, [Buffer(n.to_bytes(4, "little")), Buffer(4)])
        assert int.from_bytes(r.buffers[-1], "little") == ((n + 15) & 0xFFFFFFFF) // 16, (chip, n)
        m = rnd.getrandbits(32)
        r = prog.call(unit.entries["offset"].symbol, [Buffer(n.to_bytes(4, "little")), Buffer(m.to_bytes(4, "little")),
                                                    Buffer(2)])
        assert int.from_bytes(r.buffers[-1], "little") == ((16 * n) ^ m) & 0xFFFF, (chip, n, m)


def test_each_new_step_has_its_own_operands():
    """Later passes edit operand lists in place (peephole.autoincrement_tail, for one): no two
    instructions may share one."""
    for seq in (left(15, 4) + [ins("and", Imm(0xFFF0), R(15))] + TAIL,
                right(11, 4) + [ins("and", Imm(0x0FFF), R(11))] + TAIL):
        f = mfunction(*seq)
        masked_rotations(f, PLAIN, False)
        assert len({id(x.ops) for x in f.insts}) == len(f.insts)
