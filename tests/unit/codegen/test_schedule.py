"""Pre-allocation scheduling of machine IR (aedsl/codegen/schedule.py): what may not move (flags,
memory order), that a bitsliced round gets fewer live registers, and that the pipeline keeps the
re-ordered function only when its allocated code is cheaper."""
from __future__ import annotations

import pytest

from aedsl import chips
from aedsl.backends.msp430.target import make_target
from aedsl.codegen import schedule
from aedsl.codegen.mir import FIRST_VREG, Imm, Mem, MInst, R
from aedsl.driver import compile_spec
from tests.tiers import tiered

V = [FIRST_VREG + i for i in range(16)]
TARGET = make_target(chips.load("msp430f1611"))


def test_a_carry_chain_moves_as_one_group():
    insts = [MInst("add", [R(V[0]), R(V[1])]),       # sets the carry
             MInst("mov", [R(V[2]), R(V[3])]),       # leaves the flags alone
             MInst("addc", [R(V[4]), R(V[5])]),      # reads the carry of the add
             MInst("xor", [R(V[6]), R(V[7])])]
    assert schedule.groups(insts, TARGET) == [[0, 1, 2], [3]]


def test_loads_stay_behind_stores_and_may_pass_loads():
    p = V[9]
    insts = [MInst("mov", [Mem(p, 0), R(V[0])]),      # load
             MInst("mov", [Mem(p, 2), R(V[1])]),      # load
             MInst("mov", [R(V[2]), Mem(p, 4)]),      # store
             MInst("mov", [Mem(p, 6), R(V[3])])]      # load
    groups = schedule.groups(insts, TARGET)
    preds = schedule.dependencies(groups, insts, TARGET)[0]
    assert preds[1] == set() and preds[0] == set()     # the two loads are free
    assert preds[2] == {0, 1}                          # the store waits for both
    assert preds[3] == {2}                             # the last load waits for the store


def test_arm_stores_are_stores():
    """An ARM `str` lists its memory operand as read (the base register is an input); its
    description's memory kind makes it a store. Before, a call's result loaded from the frame's
    call area could move below the next call's argument stored to the same words (EAX with
    `ctr` and `omac` both subroutines: every decryption failed on stm32f030)."""
    from aedsl.backends.armv6m.target import SP, make_target as arm_target
    from aedsl.codegen.mir import Frame
    arm = arm_target(chips.load("stm32f030"), calls=True)
    buf = Mem(SP, Frame("local", "call.buf", 0))
    insts = [MInst("ldr", [R(V[0]), buf]),           # the previous call's result
             MInst("str", [R(V[1]), buf]),           # the next call's argument, same words
             MInst("ldr", [R(V[2]), buf])]
    groups = schedule.groups(insts, arm)
    preds = schedule.dependencies(groups, insts, arm)[0]
    assert preds[1] == {0} and preds[2] == {1}


def test_register_write_after_read_is_kept():
    insts = [MInst("mov", [R(V[0]), R(V[1])]),       # reads v0
             MInst("mov", [Imm(5), R(V[0])])]        # then overwrites v0
    groups = schedule.groups(insts, TARGET)
    assert schedule.dependencies(groups, insts, TARGET)[0][1] == {0}


@pytest.mark.parametrize("chip", tiered(["msp430f1611", "stm32f030"], {"msp430f1611"}, single=True))
def test_the_pipeline_keeps_the_cheaper_order(chip):
    """Every function of the GCM scheme: the cost model's figure with the re-ordering tried is
    never above the one without."""
    import copy

    from aedsl.backends import registry
    from aedsl.codegen import interface
    seen = []
    original = interface.run_mir_pipeline

    def spy(mf, passes, ctx):
        plain = copy.deepcopy(mf)
        original(plain, [p for p in passes if p is not interface.SCHEDULE], ctx.__class__(ctx.chip, ctx.machine, ctx.knobs))
        original(mf, passes, ctx)
        seen.append((schedule.static_cost(mf, ctx.machine), schedule.static_cost(plain, ctx.machine)))

    interface.run_mir_pipeline = spy
    try:
        compile_spec("specs/schemes/gcm.ae", chip, {})
    finally:
        interface.run_mir_pipeline = original
    assert seen and all(a <= b for a, b in seen)
    assert any(a < b for a, b in seen)
    assert registry.target_for(chips.load(chip)).mir_pipeline(chips.load(chip), {}).count(interface.SCHEDULE) == 1
