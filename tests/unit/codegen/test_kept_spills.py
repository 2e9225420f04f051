"""A register holding a spilled value kept over a short-lived overwrite (codegen/kept_spills.py),
on ARMv6-M machine IR: where it renames, where it must not, and that the reload then goes."""
from __future__ import annotations

import copy

from aedsl import chips
from aedsl.backends.armv6m.backend import BARRIERS, LOW
from aedsl.backends.armv6m.target import SP, make_target
from aedsl.codegen import copies, kept_spills
from aedsl.codegen.mir import Frame, Imm, Mem, MFunction, MInst, R

TARGET = make_target(chips.load("stm32f030"))
SLOT = Mem(SP, Frame("slot", 0))


def ins(mn: str, *ops) -> MInst:
    return MInst(mn, [R(o) if isinstance(o, int) else o for o in ops])


def mov(src, dst) -> MInst:
    return ins("mov", src, dst)


def use(*regs: int) -> list[MInst]:
    """Reads of the registers after the block (stores of them through r6)."""
    return [mov(r, Mem(6, 4 * k)) for k, r in enumerate(regs)]


def run(insts: list, usable=frozenset(range(8))) -> tuple[set, list]:
    mf = MFunction("t", copy.deepcopy(insts))
    taken = kept_spills.keep_spilled(mf, TARGET, LOW, set(usable), BARRIERS)
    return taken, mf.insts


# The state pointer r0 is stored to its slot; the last word loaded through it takes r0 and goes
# on to r12; the pointer is reloaded at once for the next load (Ascon-p's entry on Thumb).
POINTER = [mov(0, SLOT), mov(Mem(0, 4), 0), mov(0, 12), mov(SLOT, 0), mov(Mem(0, 0), 7),
           *use(7, 12), ins("ret")]


def test_the_overwrite_moves_to_an_idle_register_and_the_reload_goes():
    taken, out = run(POINTER, usable={0, 1, 6, 7})
    assert taken == {1}                       # r1: free over the two instructions, and usable
    assert out[1] == mov(Mem(0, 4), 1) and out[2] == mov(1, 12)
    mf = MFunction("t", out)
    copies.remove_redundant_moves(mf, TARGET)
    assert mov(SLOT, 0) not in mf.insts       # r0 still holds the slot's value there
    assert mf.insts[:4] == [mov(0, SLOT), mov(Mem(0, 4), 1), mov(1, 12), mov(Mem(0, 0), 7)]


def test_each_of_several_overwrites_moves_to_an_idle_register():
    # the key's words pass one by one through r2 on their way to their slots and the state,
    # the first word reloaded after the others: each of the later words takes a register of its own
    before = [mov(Mem(0, 0), 2), mov(2, SLOT), mov(Mem(0, 4), 2), mov(2, Mem(6, 4)),
              mov(Mem(0, 8), 2), mov(2, Mem(6, 8)), mov(SLOT, 2), mov(2, Mem(6, 0)), ins("ret")]
    taken, out = run(before, usable={0, 1, 2, 3, 6})
    assert taken == {1}                       # r1 for both (their lives do not overlap)
    assert [i for i in out if R(1) in i.ops] == [
        mov(Mem(0, 4), 1), mov(1, Mem(6, 4)), mov(Mem(0, 8), 1), mov(1, Mem(6, 8))]
    mf = MFunction("t", out)
    copies.remove_redundant_moves(mf, TARGET)
    assert mov(SLOT, 2) not in mf.insts


def unchanged(insts, **kw):
    taken, out = run(insts, **kw)
    assert not taken and out == insts


def test_an_update_in_place_of_the_slots_value_is_left():
    # `adds r0, #4`: the slot's value is the overwrite's own input
    unchanged([mov(0, SLOT), ins("adds8", 0, Imm(4)), mov(Mem(0, 0), 1), mov(SLOT, 0),
               mov(Mem(0, 4), 7), *use(1, 7), ins("ret")])


def test_an_overwrite_read_after_the_reload_is_left():
    # the loaded word stays in r0's place past the reload (here read into r3 by the reload's
    # own destination being another register)
    unchanged([mov(0, SLOT), mov(Mem(0, 4), 0), mov(SLOT, 3), mov(Mem(3, 0), 7), *use(0, 7),
               ins("ret")])


def test_no_idle_register_leaves_it():
    # r7 would do (written only after the overwrite's last read) but may not be taken here
    unchanged(POINTER, usable={0, 6})
    assert run(POINTER, usable={0, 6, 7})[0] == {7}


def test_a_slot_written_in_between_is_left():
    # by a store instruction (a copy into the slot would make its source the slot's holder)
    unchanged([mov(0, SLOT), mov(Mem(0, 4), 0), mov(0, 12), ins("str", 5, SLOT), mov(SLOT, 0),
               mov(Mem(0, 0), 7), *use(5, 7, 12), ins("ret")])


def test_a_call_in_between_is_left():
    unchanged([mov(0, SLOT), mov(Mem(0, 4), 0), mov(0, 12), ins("bl", 0), mov(SLOT, 0),
               mov(Mem(0, 0), 7), *use(7, 12), ins("ret")])
