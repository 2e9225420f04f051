"""Jumps to the next instruction deleted (codegen/jumps.py), on both targets' machine IR."""
from __future__ import annotations

import pytest

from aedsl import chips
from aedsl.backends.armv6m.target import make_target as arm_target
from aedsl.backends.msp430.target import make_target as msp_target
from aedsl.codegen.jumps import remove_jumps_to_next
from aedsl.codegen.mir import Imm, Lbl, MFunction, MInst, R

TARGETS = {"stm32f030": arm_target(chips.load("stm32f030")),
           "msp430f1611": msp_target(chips.load("msp430f1611"))}


def label(name: str) -> MInst:
    return MInst("label", [Lbl(name)])


def jmp(name: str) -> MInst:
    return MInst("jmp", [Lbl(name)])


def run(insts, chip) -> tuple[int, list]:
    mf = MFunction("t", list(insts))
    return remove_jumps_to_next(mf, TARGETS[chip]), mf.insts


@pytest.mark.parametrize("chip", TARGETS)
def test_a_jump_to_the_next_instruction_goes(chip):
    # a loop's exit to a jump past an empty arm: `.Ldone: b .Lendif; .Lelse: .Lendif:`
    note = MInst("comment", [])
    before = [label(".Ldone"), jmp(".Lendif"), note, label(".Lelse"), label(".Lendif"), MInst("ret", [])]
    n, out = run(before, chip)
    assert n == 1 and out == [before[0], *before[2:]]


@pytest.mark.parametrize("chip", TARGETS)
def test_a_jump_over_code_or_backwards_stays(chip):
    move = MInst("mov", [Imm(1), R(4)])
    before = [label(".Ltop"), jmp(".Lend"), move, label(".Lend"), jmp(".Ltop"), MInst("ret", [])]
    assert run(before, chip) == (0, before)
