"""peephole.carry_masks: `mov #0, rD`, then nothing that reads or writes rD, then `subc #0, rD`
(the C - 1 mask of a bit test or a comparison) is `subc rD, rD` alone: rD - rD - 1 + C does not
depend on rD (SLAU144 §3.4.6). Grain-128AEADv2's AUGen on msp430f1611 (eight masks from the
message bits): 264 -> 256 cycles, 422 -> 406 B."""
from aedsl import chips
from aedsl.backends.msp430.peephole import carry_masks
from aedsl.backends.msp430.target import make_target
from aedsl.codegen.mir import Imm, Lbl, MInst, R
from aedsl.driver import compile_spec

from tests.mir import mfunction, text

T = make_target(chips.load("msp430f1611"))


def test_the_zeroing_before_a_carry_mask_goes():
    f = mfunction(MInst("mov", [Imm(0), R(11)]), MInst("bit", [Imm(4), R(14)]),
                  MInst("subc", [Imm(0), R(11)]), MInst("inv", [R(11)]), MInst("ret", []))
    assert carry_masks(f, T) == 1
    assert text(f) == ["bit Imm(value=4), R(reg=14)", "subc R(reg=11), R(reg=11)", "inv R(reg=11)", "ret "]


def test_kept_when_the_register_is_read_or_a_block_starts_between():
    read = mfunction(MInst("mov", [Imm(0), R(11)]), MInst("cmp", [R(11), R(14)]),
                     MInst("subc", [Imm(0), R(11)]), MInst("ret", []))
    label = mfunction(MInst("mov", [Imm(0), R(11)]), MInst("label", [Lbl("L")]),
                      MInst("bit", [Imm(4), R(14)]), MInst("subc", [Imm(0), R(11)]), MInst("ret", []))
    other = mfunction(MInst("mov", [Imm(0), R(11)]), MInst("bit", [Imm(4), R(14)]),
                      MInst("subc", [Imm(1), R(11)]), MInst("ret", []))
    for f in (read, label, other):
        before = text(f)
        assert carry_masks(f, T) == 0 and text(f) == before


def test_grain_authentication_masks():
    asm = compile_spec("specs/schemes/grain128aeadv2.ae", "msp430f1611", {}, entry="authenticate").asm
    body = asm.split("\ngrain128aeadv2_authenticate:\n")[1].split(".size")[0]
    assert body.count("\tsubc\tr") >= 8 and "subc\t#0" not in body


def test_a_negated_inverted_carry_is_one_subtraction():
    """The selector's 0 - (1 - C) of a comparison (`if count < 16` of a partial block's length):
    clr, adc, xor #1, inv, inc -> subc d, d (Romulus-N on msp430f1611: 64 B and ~780 cycles
    less at 1 024 B)."""
    seq = [MInst("cmp", [Imm(16), R(14)]), MInst("clr", [R(15)]), MInst("adc", [R(15)]),
           MInst("xor", [Imm(1), R(15)]), MInst("inv", [R(15)]), MInst("inc", [R(15)]),
           MInst("and", [R(15), R(12)]), MInst("ret", [])]
    f = mfunction(*seq)
    assert carry_masks(f, T) == 4
    assert text(f) == ["cmp Imm(value=16), R(reg=14)", "subc R(reg=15), R(reg=15)",
                       "and R(reg=15), R(reg=12)", "ret "]
    # not the whole sequence (no negation): left alone
    g = mfunction(*seq[:4], seq[6], seq[7])
    before = text(g)
    assert carry_masks(g, T) == 0 and text(g) == before
