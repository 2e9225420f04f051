"""Spill code made cheaper after register allocation, on MSP430 machine IR: a slot (or a word of
memory through a pointer) read several times in a block read from a free register
(codegen/reloads.py), a slot read back while a register holds its value (codegen/copies.py),
and a copy out of a dying register renamed away (codegen/rename.py)."""
from __future__ import annotations

from aedsl import chips
from aedsl.backends.msp430.target import make_target
from aedsl.codegen import copies, reloads, rename
from aedsl.codegen.mir import Frame, Imm, Inc, Ind, Lbl, Mem, MInst, R

from tests.mir import mfunction as fn, text

T = make_target(chips.load("msp430f1611"))
SP = 1
SLOT = T.spill_operand(0)
PTR = 5                                  # a pointer the results are stored through
REGS = frozenset(T.allocatable)          # every MSP430 register is like every other


def keep(*regs):
    """Stores that keep `regs` live to the end of the block."""
    return [MInst("mov", [R(r), Mem(PTR, 2 * k)]) for k, r in enumerate(regs)]


def test_three_reads_of_a_slot_become_one_load():
    f = fn(MInst("xor", [SLOT, R(12)]), MInst("and", [SLOT, R(13)]), MInst("bis", [SLOT, R(14)]),
           *keep(12, 13, 14))
    used = reloads.reload_runs(f, T, set(T.allocatable))
    (reg,) = used
    assert reg not in (PTR, 12, 13, 14)
    assert text(f)[:4] == [f"mov {SLOT}, R(reg={reg})", f"xor R(reg={reg}), R(reg=12)",
                           f"and R(reg={reg}), R(reg=13)", f"bis R(reg={reg}), R(reg=14)"]
    assert sum(T.cost(i)[1] for i in f.insts[:4]) < 3 * T.cost(MInst("xor", [SLOT, R(12)]))[1]


def test_a_slot_updated_in_place_is_updated_in_a_register():
    """A bit permutation shifts bits into an accumulator one `rrc` at a time; spilled, each
    step is `rrc slot` (4 cycles): one load, the steps on a free register, one store back."""
    f = fn(MInst("rra", [R(12)]), MInst("rrc", [SLOT]), MInst("rra", [R(12)]), MInst("rrc", [SLOT]),
           MInst("rra", [R(12)]), MInst("rrc", [SLOT]), MInst("mov", [SLOT, Mem(PTR, 0)]), *keep(12))
    (reg,) = reloads.reload_runs(f, T, set(T.allocatable))
    assert reg not in (12, PTR)
    assert text(f)[:9] == ["rra R(reg=12)", f"mov {SLOT!r}, R(reg={reg})", f"rrc R(reg={reg})",
                           "rra R(reg=12)", f"rrc R(reg={reg})", "rra R(reg=12)", f"rrc R(reg={reg})",
                           f"mov R(reg={reg}), {Mem(PTR, 0)!r}", f"mov R(reg={reg}), {SLOT!r}"]


def test_a_store_stays_a_store_and_a_byte_read_sees_the_current_value():
    # stored and read back without an update: the store stays a store (copies.py reads the
    # stored register where it still holds the value); the reads may form a run of their own
    f = fn(MInst("mov", [R(12), SLOT]), MInst("xor", [SLOT, R(13)]), MInst("and", [SLOT, R(14)]),
           MInst("mov", [Imm(0), R(12)]), *keep(12, 13, 14))
    reloads.reload_runs(f, T, set(T.allocatable))
    assert text(f)[0] == f"mov R(reg=12), {SLOT!r}"
    # a byte of the slot read between updates: memory is current there (the run before it
    # ends with its store)
    high = Mem(SP, Frame("slot", 0, 1))
    steps = [MInst("rrc", [SLOT])] * 3
    f = fn(*steps, MInst("mov.b", [high, R(13)]), *steps, *keep(13))
    reloads.reload_runs(f, T, set(T.allocatable))
    t = text(f)
    k = next(i for i, x in enumerate(t) if x.startswith("mov.b"))
    assert t[k - 1] == f"rrc {SLOT!r}" or t[k - 1].endswith(f", {SLOT!r}")


def test_a_write_to_the_slot_ends_the_run_and_a_high_byte_read_stays():
    high = Mem(SP, Frame("slot", 0, 1))
    f = fn(MInst("xor", [SLOT, R(12)]), MInst("mov", [R(15), SLOT]), MInst("and", [SLOT, R(13)]),
           MInst("mov.b", [high, R(14)]), *keep(12, 13, 14))
    before = text(f)
    assert reloads.reload_runs(f, T, set(T.allocatable)) == set()
    assert text(f) == before


def test_no_free_register_no_change():
    regs = list(T.allocatable)
    busy = [r for r in regs if r != PTR]
    f = fn(*[MInst("mov", [Imm(k), R(r)]) for k, r in enumerate(busy)],
           MInst("xor", [SLOT, R(busy[0])]), MInst("and", [SLOT, R(busy[1])]), *keep(*busy))
    before = text(f)
    assert reloads.reload_runs(f, T, set(regs)) == set()
    assert text(f) == before
    # the same with one register the function may not take (a callee-saved one it does not save)
    f = fn(MInst("xor", [SLOT, R(12)]), MInst("and", [SLOT, R(13)]), *keep(12, 13))
    assert reloads.reload_runs(f, T, {12, 13, PTR}) == set()


def test_a_slot_read_back_while_a_register_holds_it():
    f = fn(MInst("mov", [R(4), SLOT]), MInst("xor", [R(6), R(4)]), MInst("xor", [SLOT, R(7)]),
           MInst("xor", [SLOT, R(8)]), *keep(4, 7, 8))
    copies.remove_redundant_moves(f, T)
    # r4 was redefined by the first xor: the second instruction's read stays on the slot
    assert text(f)[2] == f"xor {SLOT}, R(reg=7)"
    f = fn(MInst("mov", [R(4), SLOT]), MInst("xor", [SLOT, R(7)]), *keep(4, 7))
    copies.remove_redundant_moves(f, T)
    assert text(f)[1] == "xor R(reg=4), R(reg=7)"


def test_a_copy_out_of_a_dying_register_is_renamed_away():
    f = fn(MInst("mov", [R(4), R(15)]), MInst("xor", [R(11), R(15)]), MInst("mov", [R(15), SLOT]),
           *keep(11))
    assert rename.rename_copies(f, T, REGS) == 1
    assert text(f)[:2] == ["xor R(reg=11), R(reg=4)", f"mov R(reg=4), {SLOT}"]


def test_a_copy_whose_source_lives_on_stays():
    live_on = fn(MInst("mov", [R(4), R(15)]), MInst("xor", [R(11), R(15)]), MInst("mov", [R(15), SLOT]),
                 *keep(4))
    # rS written while rD is needed, but a call (fixed argument registers) before both die
    called = fn(MInst("mov", [R(4), R(15)]), MInst("mov", [Imm(3), R(4)]), MInst("xor", [R(4), R(15)]),
                MInst("call", [Lbl("f")]), MInst("mov", [R(15), SLOT]), *keep(4))
    for f in (live_on, called):
        before = text(f)
        assert rename.rename_copies(f, T, REGS) == 0
        assert text(f) == before


def test_a_copy_read_only_while_its_source_lives_on_unchanged_goes():
    """rS lives on after the copy, but neither register changes while rD holds it and rD is
    only read (a pointer copied for one store through it): the reads take rS, the copy goes."""
    f = fn(MInst("mov", [R(11), R(12)]), MInst("mov", [R(15), Mem(12, -10)]),
           MInst("mov", [R(13), Mem(11, -8)]), *keep(11))
    assert rename.rename_copies(f, T, REGS) == 1
    assert text(f)[:2] == [f"mov R(reg=15), {Mem(11, -10)!r}", f"mov R(reg=13), {Mem(11, -8)!r}"]
    # rS written while rD still holds the copy: stays
    g = fn(MInst("mov", [R(11), R(12)]), MInst("add", [Imm(2), R(11)]),
           MInst("mov", [R(15), Mem(12, -10)]), *keep(11))
    before = text(g)
    assert rename.rename_copies(g, T, REGS) == 0 and text(g) == before


def test_a_copy_whose_source_is_written_again_swaps_the_names():
    """rS (dead at the copy) is written while rD still holds the copy: from the copy up to the
    point where both are dead, the two registers exchange names, and the copy goes."""
    redefined = fn(MInst("mov", [R(4), R(15)]), MInst("mov", [Imm(3), R(4)]), MInst("xor", [R(4), R(15)]),
                   MInst("mov", [R(15), SLOT]), *keep(4))
    assert rename.rename_copies(redefined, T, REGS) == 1
    assert text(redefined) == ["mov Imm(value=3), R(reg=15)", "xor R(reg=15), R(reg=4)",
                               f"mov R(reg=4), {SLOT!r}", f"mov R(reg=15), {Mem(PTR, 0)!r}"]
    walked = fn(MInst("mov", [R(4), R(15)]), MInst("mov", [Inc(15), R(6)]), MInst("mov", [R(15), SLOT]),
                *keep(6))
    assert rename.rename_copies(walked, T, REGS) == 1
    assert text(walked)[:2] == ["mov Inc(reg=4), R(reg=6)", f"mov R(reg=4), {SLOT!r}"]


WORD = Mem(13, 4)                        # a word of a state the function reads through r13


def test_a_word_read_through_a_pointer_several_times_is_loaded_once():
    """A bit-level shift register in memory: its taps read the same words again and again
    (Grain's clock16 on msp430f1611: 696 -> 641 cycles)."""
    f = fn(MInst("xor", [WORD, R(12)]), MInst("bit", [Imm(8), WORD]), MInst("bis", [WORD, R(14)]),
           *keep(12, 14))
    (reg,) = reloads.reload_runs(f, T, set(T.allocatable))
    assert text(f)[:4] == [f"mov {WORD!r}, R(reg={reg})", f"xor R(reg={reg}), R(reg=12)",
                           f"bit Imm(value=8), R(reg={reg})", f"bis R(reg={reg}), R(reg=14)"]
    # @r13 is the word at 0(r13)
    f = fn(MInst("xor", [Ind(13), R(12)]), MInst("and", [Mem(13, 0), R(14)]), *keep(12, 14))
    (reg,) = reloads.reload_runs(f, T, set(T.allocatable))
    assert text(f)[:3] == [f"mov {Ind(13)!r}, R(reg={reg})", f"xor R(reg={reg}), R(reg=12)",
                           f"and R(reg={reg}), R(reg=14)"]


def test_a_word_is_not_cached_across_what_may_change_it():
    """A store through another pointer (it may point at the same word), a store to the word
    itself or its pointer moved: memory is read afresh after each. A store through the same
    pointer to another word is no obstacle."""
    for between in (MInst("mov", [R(15), Mem(PTR, 0)]), MInst("mov", [R(15), Mem(13, 4)]),
                    MInst("add", [Imm(2), R(13)]), MInst("mov", [Inc(13), R(15)]),
                    MInst("call", [Lbl("g"), R(12), R(13), R(14), R(15)])):
        f = fn(MInst("xor", [WORD, R(12)]), between, MInst("and", [WORD, R(14)]), *keep(12, 14))
        before = text(f)
        assert reloads.reload_runs(f, T, set(T.allocatable)) == set(), between
        assert text(f) == before
    f = fn(MInst("xor", [WORD, R(12)]), MInst("mov", [R(15), Mem(13, 6)]), MInst("and", [WORD, R(14)]),
           *keep(12, 14))
    (reg,) = reloads.reload_runs(f, T, set(T.allocatable))
    assert text(f)[3] == f"and R(reg={reg}), R(reg=14)"


def test_a_word_through_a_pointer_is_never_written_from_the_register():
    """The run reads only: an in-place update of the word stays in memory."""
    f = fn(MInst("xor", [WORD, R(12)]), MInst("rrc", [WORD]), MInst("and", [WORD, R(14)]), *keep(12, 14))
    before = text(f)
    assert reloads.reload_runs(f, T, set(T.allocatable)) == set()
    assert text(f) == before
