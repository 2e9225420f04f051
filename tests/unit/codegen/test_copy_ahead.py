"""A stack slot read again while its value sits in a register updated in place since
(codegen/copy_ahead.py), on ARMv6-M machine IR: the value copied to the reload's register at
once, the reload gone; where it must not be."""
from __future__ import annotations

import copy

from aedsl.backends.armv6m.backend import BARRIERS, LOW
from aedsl.codegen.copy_ahead import copy_ahead
from aedsl.codegen.mir import Imm, Lbl, Mem, MFunction

from .test_kept_spills import SLOT, TARGET, ins, mov


def run(insts: list) -> tuple[int, list]:
    mf = MFunction("t", copy.deepcopy(insts))
    return copy_ahead(mf, TARGET, LOW, BARRIERS), mf.insts


# NORX's H(x, y) with x spilled: x ^ y in place, then x & y from a second load of x
H = [mov(SLOT, 6), ins("eors", 6, 4), mov(SLOT, 1), ins("ands", 1, 4),
     mov(6, Mem(7, 0)), mov(1, Mem(7, 4)), ins("ret")]


def test_the_reload_becomes_a_copy_after_the_first_load():
    n, out = run(H)
    assert n == 1
    assert out[:4] == [mov(SLOT, 6), mov(6, 1), ins("eors", 6, 4), ins("ands", 1, 4)]


def test_after_a_store_too():
    before = [mov(6, SLOT), ins("adds8", 6, Imm(1)), mov(SLOT, 2), mov(6, Mem(7, 0)), mov(2, Mem(7, 4)),
              ins("ret")]
    n, out = run(before)
    assert n == 1 and out[:3] == [mov(6, SLOT), mov(6, 2), ins("adds8", 6, Imm(1))]


def test_a_store_in_between_is_the_nearer_holder():
    before = [mov(SLOT, 6), ins("eors", 6, 4), mov(4, SLOT), ins("adds8", 4, Imm(1)), mov(SLOT, 1),
              mov(6, Mem(7, 0)), mov(1, Mem(7, 4)), mov(4, Mem(7, 8)), ins("ret")]
    n, out = run(before)
    assert n == 1 and out[2:5] == [mov(4, SLOT), mov(4, 1), ins("adds8", 4, Imm(1))]


def test_left_alone():
    cases = {
        "the reload's register read in between": [mov(SLOT, 6), ins("eors", 6, 1), mov(SLOT, 1)],
        "the reload's register written in between": [mov(SLOT, 6), mov(Mem(7, 16), 1), mov(SLOT, 1)],
        "a label between": [mov(SLOT, 6), ins("eors", 6, 4), ins("label", Lbl(".Lin")), mov(SLOT, 1)],
        "a call between": [mov(SLOT, 6), ins("eors", 6, 4), ins("bl", 0), mov(SLOT, 1)],
        "a first load nothing reads": [mov(SLOT, 6), mov(Mem(7, 0), 6), mov(SLOT, 1)],
    }
    for why, body in cases.items():
        before = [*body, mov(6, Mem(7, 8)), mov(1, Mem(7, 12)), ins("ret")]
        assert run(before) == (0, before), why
