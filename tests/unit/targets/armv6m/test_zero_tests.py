"""`cmp r, #0` deleted after the instruction that set N and Z from r (backends/armv6m/zero_tests.py):
only where every reader of the flags it set tests N or Z alone."""
from __future__ import annotations

from aedsl import chips
from aedsl.backends.armv6m.target import make_target
from aedsl.backends.armv6m.zero_tests import delete_zero_tests
from aedsl.codegen.mir import Imm, Lbl, MFunction, MInst, R

TARGET = make_target(chips.load("stm32f030"))


def label(name: str) -> MInst:
    return MInst("label", [Lbl(name)])


def run(insts) -> tuple[int, list]:
    mf = MFunction("t", list(insts))
    return delete_zero_tests(mf, TARGET), mf.insts


def test_scaled_bound_test_goes():
    shift = MInst("lsls", [R(0), R(0), Imm(3)])
    test = MInst("cmpi", [R(0), Imm(0)])
    rest = [MInst("beq", [Lbl(".Ldone")]), MInst("adds", [R(1), R(1), R(0)]), label(".Ldone"),
            MInst("ret", [])]
    n, out = run([shift, MInst("comment", []), test, *rest])
    assert n == 1 and test not in out and len(out) == 6


def test_an_or_of_low_bits_then_bne():
    orr = MInst("orrs", [R(1), R(0)])
    test = MInst("cmpi", [R(1), Imm(0)])
    n, out = run([orr, test, MInst("bne", [Lbl(".Lx")]), label(".Lx"), MInst("ret", [])])
    assert n == 1 and test not in out


def test_a_carry_reader_keeps_the_compare():
    # CMP #0 sets C = 1; ADDS would leave C from its own sum: a later bcs (or adcs) reads it
    for reader in (MInst("bcs", [Lbl(".Lx")]), MInst("adcs", [R(2), R(2)])):
        before = [MInst("adds", [R(0), R(0), R(1)]), MInst("cmpi", [R(0), Imm(0)]),
                  MInst("beq", [Lbl(".Lx")]), reader, label(".Lx"), MInst("ret", [])]
        assert run(before) == (0, before), reader.mn


def test_a_carry_reader_at_the_branch_target_keeps_the_compare():
    before = [MInst("subs", [R(0), R(0), R(1)]), MInst("cmpi", [R(0), Imm(0)]),
              MInst("bne", [Lbl(".Lx")]), MInst("ret", []), label(".Lx"), MInst("bcc", [Lbl(".Ly")]),
              label(".Ly"), MInst("ret", [])]
    assert run(before) == (0, before)


def test_another_register_a_load_or_a_label_between_keeps_it():
    cases = [
        [MInst("adds", [R(1), R(0), R(2)]), MInst("cmpi", [R(0), Imm(0)])],      # r1 set, r0 tested
        [MInst("ldr", [R(0), R(13)]), MInst("cmpi", [R(0), Imm(0)])],            # a load sets no flags
        [MInst("eors", [R(0), R(1)]), label(".Lin"), MInst("cmpi", [R(0), Imm(0)])],  # another way in
        [MInst("adds", [R(0), R(0), R(1)]), MInst("cmpi", [R(0), Imm(1)])],      # not a zero test
    ]
    for case in cases:
        before = [*case, MInst("beq", [Lbl(".Lx")]), label(".Lx"), MInst("ret", [])]
        assert run(before) == (0, before), [x.mn for x in case]
