"""A spill slot living within one stretch of a block carried by a chain of idle registers
(codegen/slot_registers.py), on MSP430 machine IR written by hand."""
from __future__ import annotations

from aedsl import chips
from aedsl.backends.msp430.target import make_target
from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, MInst, R
from aedsl.codegen.slot_registers import slot_registers

from tests.mir import mfunction as fn, text

T = make_target(chips.load("msp430f1611"))
SP = 1
SLOT = T.spill_operand(0)
PTR = 5                                  # a pointer the results are stored through
REGS = frozenset(T.allocatable)
ALL = set(T.allocatable)


def keep(*regs):
    """Stores that keep `regs` live to the end of the block."""
    return [MInst("mov", [R(r), Mem(PTR, 2 * k)]) for k, r in enumerate(regs)]


def cost(f, target=T):
    """(bytes, cycles) of the function's instructions."""
    return tuple(map(sum, zip(*(target.cost(i) for i in f.insts))))


def test_a_latch_copy_out_of_a_slot_goes_when_its_register_is_idle_up_to_the_store():
    # the value reaches r9 at the end; r9 is idle from the store on: the store writes r9
    f = fn(MInst("mov", [R(12), SLOT]), MInst("xor", [R(13), R(14)]), MInst("mov", [SLOT, R(9)]),
           *keep(9, 13, 14))
    before = cost(f)
    assert slot_registers(f, T, ALL, REGS) == {9}
    assert text(f)[:2] == ["mov R(reg=12), R(reg=9)", "xor R(reg=13), R(reg=14)"]
    assert len(f.insts) == 2 + 3
    assert cost(f) < before


def test_the_store_goes_when_the_stored_register_is_idle_after_it():
    # r12 dies at the store and nothing touches it until the reads: no copy at all
    f = fn(MInst("mov", [R(12), SLOT]), MInst("mov", [Imm(3), R(13)]), MInst("xor", [SLOT, R(13)]),
           MInst("and", [SLOT, R(14)]), *keep(13, 14))
    assert slot_registers(f, T, ALL, REGS) == {12}
    assert text(f)[:3] == ["mov Imm(value=3), R(reg=13)", "xor R(reg=12), R(reg=13)",
                           "and R(reg=12), R(reg=14)"]


def test_a_register_busy_in_the_middle_hands_over_to_an_idle_one():
    """The loop-carried register r8 is a temporary in the middle of the stretch and the stored
    register r4 is written again: an idle register carries the value to where r8 is free."""
    idle = [r for r in T.allocatable if r not in (4, 8, PTR)]
    busy = [MInst("mov", [Imm(k), R(r)]) for k, r in enumerate(idle)]   # all of them live after
    f = fn(MInst("mov", [Imm(1), R(4)]), MInst("mov", [R(4), SLOT]), MInst("mov", [Imm(2), R(4)]),
           MInst("mov", [Imm(3), R(8)]), MInst("mov", [R(8), Mem(PTR, 40)]), *busy,
           MInst("mov", [SLOT, R(8)]), *keep(4, 8, *idle))
    before = cost(f)
    used = slot_registers(f, T, ALL, REGS)
    t = text(f)
    # the value goes to a register idle between the store and the first of `busy`
    q = next(r for r in used if r != 8)
    assert t[1] == f"mov R(reg=4), R(reg={q})"
    assert f"mov R(reg={q}), R(reg=8)" in t
    assert t.index(f"mov R(reg={q}), R(reg=8)") < t.index(repr(busy[0])) + 1
    assert not any("slot" in x for x in t)
    assert cost(f) < before


def test_no_idle_register_at_some_point_no_change():
    busy = [r for r in T.allocatable if r != PTR]
    f = fn(MInst("mov", [R(busy[0]), SLOT]), *[MInst("mov", [Imm(k), R(r)]) for k, r in enumerate(busy)],
           MInst("xor", [SLOT, R(busy[1])]), *keep(*busy))
    before = text(f)
    assert slot_registers(f, T, ALL, REGS) == set()
    assert text(f) == before


def test_slots_across_blocks_bytes_or_calls_stay():
    loop = [MInst("label", [Lbl(".Lf_loop1")]), MInst("mov", [SLOT, R(9)]), MInst("mov", [R(12), SLOT]),
            MInst("sub", [Imm(1), R(13)]), MInst("jnz", [Lbl(".Lf_loop1")]), *keep(9, 12)]
    high = Mem(SP, Frame("slot", 0, 1))
    byte = [MInst("mov", [R(12), SLOT]), MInst("mov.b", [high, R(13)]), MInst("mov", [SLOT, R(9)]), *keep(9, 13)]
    call = [MInst("mov", [R(4), SLOT]), MInst("call", [Lbl("g")]), MInst("mov", [SLOT, R(9)]), *keep(9)]
    for insts in (loop, byte, call):
        f = fn(*insts)
        before = text(f)
        assert slot_registers(f, T, ALL, REGS) == set()
        assert text(f) == before


def test_only_registers_the_function_may_take():
    # r12 is the only idle register but not usable (it would need a save): nothing changes
    others = [r for r in T.allocatable if r not in (12, PTR, 4)]
    f = fn(MInst("mov", [R(4), SLOT]), *[MInst("mov", [Imm(k), R(r)]) for k, r in enumerate(others)],
           MInst("mov", [Imm(9), R(4)]), MInst("xor", [SLOT, R(others[0])]), *keep(4, *others))
    before = text(f)
    assert slot_registers(f, T, ALL - {12}, REGS) == set()
    assert text(f) == before
    assert slot_registers(f, T, ALL, REGS) == {12}


def test_thumb_low_registers_carry_a_slot_between_its_store_and_reload():
    """On ARMv6-M a slot is stored and reloaded by the move pseudo (`str`/`ldr`); only r0-r7
    may carry it (`regs`): the store becomes a low-register copy and the reload goes."""
    from aedsl.backends.armv6m.backend import BARRIERS, LOW
    from aedsl.backends.armv6m.target import make_target as arm_target
    A = arm_target(chips.load("stm32f030"))
    slot = A.spill_operand(0)
    f = fn(MInst("mov", [R(3), slot]), MInst("eors", [R(1), R(2)]), MInst("mov", [slot, R(6)]),
           MInst("str", [R(6), Mem(7, 0)]), MInst("str", [R(1), Mem(7, 4)]))
    before = cost(f, A)
    used = slot_registers(f, A, set(A.allocatable), LOW, BARRIERS)
    assert used and used <= LOW
    assert not any("slot" in x for x in text(f))
    assert cost(f, A)[1] < before[1] and cost(f, A)[0] <= before[0]


def test_a_slot_stored_again_in_its_block_is_carried_stretch_by_stretch():
    """A chain of two-address steps spilled as one (the allocator gives a copy's two ends one
    slot): the accumulator is stored, reloaded, xored, stored again and read after a label. The
    first stretch (store to the reload before the next store) is carried in an idle register;
    the last, read across the label, keeps its slot. Before, a slot with two stores stayed
    (Ascon's linear layer on ARMv6-M: every partial sum of a rotation xor went through a slot)."""
    f = fn(MInst("mov", [R(12), SLOT]),                  # stretch 1: the partial sum ...
           MInst("mov", [Imm(4), R(12)]),                # ... its register reused meanwhile
           MInst("mov", [SLOT, R(13)]),                  # reloaded
           MInst("xor", [R(12), R(13)]),
           MInst("mov", [R(13), SLOT]),                  # stretch 2: stored again
           MInst("label", [Lbl(".Lnext")]),
           MInst("mov", [SLOT, R(14)]),                  # read in the next block
           *keep(12, 14))
    assert slot_registers(f, T, ALL, REGS) == {13}
    assert text(f)[:4] == ["mov R(reg=12), R(reg=13)", "mov Imm(value=4), R(reg=12)",
                           "xor R(reg=12), R(reg=13)", "mov R(reg=13), " + str(SLOT)]
