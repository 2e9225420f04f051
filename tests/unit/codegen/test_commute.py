"""Two-address operations copy the operand that dies (codegen/commute.py), on MSP430 and Thumb
machine IR over virtual registers, and the allocation it buys: the S-box line
`t0 = x0 ^ (~x1 & x2)` with x0 read again after it."""
from __future__ import annotations

from aedsl import chips
from aedsl.backends.armv6m.target import make_target as arm_target
from aedsl.backends.msp430.target import make_target
from aedsl.codegen import commute, regalloc
from aedsl.codegen.mir import FIRST_VREG, Lbl, Mem, MInst, R

from tests.mir import mfunction as fn, text

T = make_target(chips.load("msp430f1611"))
A = arm_target(chips.load("stm32f030"))
PTR = 5
X0, X1, X2, TMP, D = (FIRST_VREG + k for k in range(5))


def sbox_line(mid=()):
    """t0 = x0 ^ (~x1 & x2) as selected: the temporary ~x1 & x2, then x0 copied into t0 and the
    temporary xored in; x0 is stored again afterwards, so it is live past the xor."""
    return fn(MInst("mov", [Mem(PTR, 0), R(X0)]), MInst("mov", [Mem(PTR, 2), R(X1)]),
              MInst("mov", [Mem(PTR, 4), R(X2)]),
              MInst("mov", [R(X1), R(TMP)]), MInst("inv", [R(TMP)]), MInst("and", [R(X2), R(TMP)]),
              MInst("mov", [R(X0), R(D)]), *mid, MInst("xor", [R(TMP), R(D)]),
              MInst("mov", [R(D), Mem(PTR, 6)]), MInst("mov", [R(X0), Mem(PTR, 8)]),
              MInst("mov", [R(X2), Mem(PTR, 10)]))


def test_the_copy_takes_the_dying_operand():
    f = sbox_line()
    assert commute.commute_copies(f, T) == 1
    assert text(f)[6:8] == [f"mov R(reg={TMP}), R(reg={D})", f"xor R(reg={X0}), R(reg={D})"]
    # allocated, the copy joins the temporary and disappears: one register-to-register move fewer
    g = sbox_line()
    regalloc.allocate(f, T)
    regalloc.allocate(g, T)

    def moves(h):
        return sum(1 for i in h.insts if i.mn == "mov" and all(isinstance(o, R) for o in i.ops)
                   and i.ops[0] != i.ops[1])
    assert moves(f) == moves(g) - 1


def test_the_copy_moves_down_to_the_operation():
    f = sbox_line(mid=[MInst("mov", [R(X2), Mem(PTR, 12)])])
    assert commute.commute_copies(f, T) == 1
    assert text(f)[6:9] == [f"mov R(reg={X2}), {Mem(PTR, 12)!r}", f"mov R(reg={TMP}), R(reg={D})",
                            f"xor R(reg={X0}), R(reg={D})"]


def test_no_change_where_it_would_not_pay_or_is_not_sound():
    # the temporary is read again: both operands live on, nothing gained
    f = sbox_line()
    f.insts.append(MInst("mov", [R(TMP), Mem(PTR, 14)]))
    before = text(f)
    assert commute.commute_copies(f, T) == 0 and text(f) == before
    # x0 dies at the xor (the coalescer already joins it): left alone
    f = sbox_line()
    del f.insts[-2]
    assert commute.commute_copies(f, T) == 0
    # x0 written between the copy and the xor: the xor must read the old value
    f = sbox_line(mid=[MInst("inc", [R(X0)])])
    assert commute.commute_copies(f, T) == 0
    # the copy read in between, or a label in between (another block): left alone
    assert commute.commute_copies(sbox_line(mid=[MInst("mov", [R(D), Mem(PTR, 12)])]), T) == 0
    assert commute.commute_copies(sbox_line(mid=[MInst("label", [Lbl("x")])]), T) == 0
    # sub does not commute
    f = sbox_line()
    f.insts[7] = MInst("sub", [R(TMP), R(D)])
    assert commute.commute_copies(f, T) == 0


def test_thumb_eors_rd_rm():
    """Thumb's two-address forms write their first operand: `eors rd, rm`."""
    f = fn(MInst("ldr", [R(X0), Mem(PTR, 0)]), MInst("ldr", [R(TMP), Mem(PTR, 4)]),
           MInst("mov", [R(X0), R(D)]), MInst("eors", [R(D), R(TMP)]),
           MInst("str", [R(D), Mem(PTR, 8)]), MInst("str", [R(X0), Mem(PTR, 12)]))
    assert commute.commute_copies(f, A) == 1
    assert text(f)[2:4] == [f"mov R(reg={TMP}), R(reg={D})", f"eors R(reg={D}), R(reg={X0})"]
    f.insts[3] = MInst("bics", [R(D), R(X0)])
    g = fn(*f.insts[:2], MInst("mov", [R(X0), R(D)]), MInst("bics", [R(D), R(TMP)]), *f.insts[4:])
    assert commute.commute_copies(g, A) == 0
