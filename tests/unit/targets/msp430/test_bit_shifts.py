"""A bit-serial loop on MSP430: a value narrower than a word shifted right by `rra` alone (its
bit 15 is clear: arithmetic = logical, no `clrc; rrc`), and peephole.bit_shifts: `bit #1, rA`
then, with nothing between reading or writing rA or reading flags other than C, `rra rA` ->
`rra rA` in the test's place (SLAU144 §3.4.6: BIT sets C to bit 0 when testing bit 0, RRA
shifts bit 0 into C). Grain-128AEADv2's AUGen as a loop (`-k unroll=1`) on msp430f1611: 382 ->
366 cycles (rra) -> 350 (fused tests) before the loop counted with its message byte."""
import pytest

from aedsl import chips
from aedsl.backends.msp430.peephole import bit_shifts
from aedsl.backends.msp430.target import make_target
from aedsl.codegen.mir import Imm, Lbl, MInst, R
from aedsl.driver import compile_spec

from tests.mir import mfunction, text

T = make_target(chips.load("msp430f1611"))


def ins(mn, *ops):
    return MInst(mn, list(ops))


def test_the_shift_takes_the_place_of_the_bit_test():
    f = mfunction(ins("label", Lbl("L")), ins("bit", Imm(1), R(14)), ins("subc", R(11), R(11)),
                  ins("inv", R(11)), ins("and", R(11), R(12)), ins("rra", R(14)),
                  ins("cmp", Imm(2), R(14)), ins("jc", Lbl("L")), ins("ret"))
    assert bit_shifts(f, T) == 1
    assert text(f) == ["label Lbl(name='L')", "rra R(reg=14)", "subc R(reg=11), R(reg=11)",
                       "inv R(reg=11)", "and R(reg=11), R(reg=12)", "cmp Imm(value=2), R(reg=14)",
                       "jc Lbl(name='L')", "ret "]


def test_a_carry_chain_takes_the_shifted_bit():
    f = mfunction(ins("bit", Imm(1), R(15)), ins("rrc", R(12)), ins("rrc", R(11)),
                  ins("rra", R(15)), ins("mov", R(12), R(13)), ins("tst", R(13)), ins("ret"))
    assert bit_shifts(f, T) == 1
    assert text(f)[:3] == ["rra R(reg=15)", "rrc R(reg=12)", "rrc R(reg=11)"]


KEPT = {
    "register read between": [ins("bit", Imm(1), R(14)), ins("mov", R(14), R(13)), ins("rra", R(14)),
                              ins("tst", R(13)), ins("ret")],
    "register written between": [ins("bit", Imm(1), R(14)), ins("mov", R(13), R(14)), ins("rra", R(14)),
                                 ins("tst", R(13)), ins("ret")],
    "zero flag read between": [ins("bit", Imm(1), R(14)), ins("addc", R(12), R(13)), ins("sub", R(13), R(12)),
                               ins("jz", Lbl("L")), ins("rra", R(14)), ins("tst", R(13)),
                               ins("label", Lbl("L")), ins("ret")],
    "bit other than 0": [ins("bit", Imm(2), R(14)), ins("subc", R(11), R(11)), ins("rra", R(14)),
                         ins("tst", R(13)), ins("ret")],
    "flags of the shift read after it": [ins("label", Lbl("L")), ins("bit", Imm(1), R(14)),
                                         ins("subc", R(11), R(11)), ins("rra", R(14)), ins("jc", Lbl("L")),
                                         ins("ret")],
    "flags of the shift live at the block's end": [ins("bit", Imm(1), R(14)), ins("subc", R(11), R(11)),
                                                   ins("rra", R(14)), ins("ret")],
    "label between": [ins("bit", Imm(1), R(14)), ins("label", Lbl("L")), ins("rra", R(14)),
                      ins("tst", R(13)), ins("ret")],
}


@pytest.mark.parametrize("seq", KEPT.values(), ids=KEPT.keys())
def test_kept(seq):
    f = mfunction(*seq)
    before = text(f)
    assert bit_shifts(f, T) == 0 and text(f) == before


def test_a_narrow_value_shifts_right_with_rra_alone():
    asm = compile_spec("specs/schemes/grain128aeadv2.ae", "msp430f1611", {"unroll": 1}, entry="authenticate").asm
    body = asm.split("\ngrain128aeadv2_authenticate:\n")[1].split(".size")[0]
    assert "clrc" not in body and "\tbit\t#1" not in body
    assert body.count("\trra\t") == 2          # the message byte and the key-stream byte, once a turn


@pytest.mark.slow      # a whole scheme compiled; the full suite runs it
def test_the_augen_loop_is_constant_time():
    """Its exit test reads the secret message byte that counts the turns (the marker bit): the
    selector marks it public, and the static analysis finds nothing."""
    from aedsl.ct.taint_mir import analyse
    unit = compile_spec("specs/schemes/grain128aeadv2.ae", "msp430f1611", {"unroll": 1}, keep=True)
    assert [f for f in analyse(unit.mir, chips.load("msp430f1611"))] == []
