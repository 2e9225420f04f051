"""fold_copies: a copy `mov S, t` whose register has one reader X (t dead after it) is folded
into X when the target takes S's form there and the cost model says it is cheaper: MSP430's
`mov 74(sp), r15 ; mov r15, &0x09c8` is `mov 74(sp), &0x09c8` (SLAU144 Table 3-16: 3 + 4 cycles
and 8 bytes become 6 cycles and 6 bytes). Grain-128AEADv2 on msp430f1611: 9 896 -> 9 824 B."""
from aedsl import chips
from aedsl.backends.armv6m.target import make_target as arm_target
from aedsl.backends.msp430.target import make_target
from aedsl.codegen.fold_copies import fold_copies
from aedsl.codegen.mir import Frame, Imm, Inc, Lbl, Mem, MInst, R
from aedsl.driver import compile_spec

from tests.mir import mfunction, text

T = make_target(chips.load("msp430f1611"))
SLOT = Mem(1, Frame("slot", 3))
PORT = Mem(None, 0x09C8)


def test_a_load_and_a_store_become_one_move():
    f = mfunction(MInst("mov", [SLOT, R(15)]), MInst("mov", [R(15), PORT]), MInst("ret", []))
    assert fold_copies(f, T) == 1
    assert text(f) == [repr(MInst("mov", [SLOT, PORT])), "ret "]


def test_the_reader_may_come_later_and_take_an_immediate_or_an_autoincrement():
    imm = mfunction(MInst("mov", [Imm(1000), R(15)]), MInst("xor", [R(11), R(12)]),
                    MInst("add", [R(15), R(12)]), MInst("ret", []))
    assert fold_copies(imm, T) == 1
    assert text(imm) == [repr(MInst("xor", [R(11), R(12)])), repr(MInst("add", [Imm(1000), R(12)])), "ret "]
    inc = mfunction(MInst("mov", [Inc(13), R(14)]), MInst("mov", [R(14), Mem(1, 6)]), MInst("ret", []))
    assert fold_copies(inc, T) == 1
    assert text(inc) == [repr(MInst("mov", [Inc(13), Mem(1, 6)])), "ret "]


def test_a_peripheral_read_goes_straight_to_its_slot():
    """`movio` (a read of the AES module's output FIFO, marked a copy in the MSP430 table) into
    a register only stored: the store reads the FIFO itself, once, where the register was read;
    two FIFO reads keep their order (nothing that touches memory lies between a fold's ends)."""
    dout = Mem(None, 0x09CA)
    f = mfunction(MInst("movio", [dout, R(15)]), MInst("mov", [R(15), SLOT]),
                  MInst("movio", [dout, R(14)]), MInst("mov", [R(14), Mem(1, 2)]), MInst("ret", []))
    assert fold_copies(f, T) == 2
    assert text(f) == [repr(MInst("mov", [dout, SLOT])), repr(MInst("mov", [dout, Mem(1, 2)])), "ret "]
    g = mfunction(MInst("movio", [dout, R(15)]), MInst("movio", [dout, R(14)]), MInst("mov", [R(15), SLOT]),
                  MInst("mov", [R(14), Mem(1, 2)]), MInst("ret", []))
    before = text(g)                       # the first would pass the second read, the second a store
    assert fold_copies(g, T) == 0 and text(g) == before


def test_kept_where_moving_the_read_would_change_what_it_reads_or_sees():
    cases = [
        # t is read again after X
        [MInst("mov", [SLOT, R(15)]), MInst("mov", [R(15), PORT]), MInst("xor", [R(15), R(12)])],
        # a store between: the load would move past it
        [MInst("mov", [Mem(12, 2), R(15)]), MInst("mov", [R(11), Mem(13, 0)]), MInst("mov", [R(15), PORT])],
        # a peripheral read between: two FIFO reads would swap
        [MInst("mov", [Mem(None, 0x09CA), R(15)]), MInst("movio", [Mem(None, 0x09CA), R(14)]),
         MInst("mov", [R(15), SLOT]), MInst("mov", [R(14), Mem(1, 2)])],
        # the source's base register changes between
        [MInst("mov", [Mem(12, 2), R(15)]), MInst("add", [Imm(2), R(12)]), MInst("mov", [R(15), SLOT])],
        # X writes t (read-modify-write): its operand cannot become memory it would write
        [MInst("mov", [SLOT, R(15)]), MInst("xor", [R(12), R(15)]), MInst("mov", [R(15), PORT])],
        # a block starts between
        [MInst("mov", [SLOT, R(15)]), MInst("label", [Lbl("L")]), MInst("mov", [R(15), PORT])],
        # an autoincrement whose register X also mentions
        [MInst("mov", [Inc(13), R(14)]), MInst("mov", [R(14), Mem(13, 0)])],
        # an immediate cannot be a destination (cmp's second operand)
        [MInst("mov", [Imm(1000), R(15)]), MInst("cmp", [R(12), R(15)]), MInst("jz", [Lbl("L")]),
         MInst("label", [Lbl("L")])],
    ]
    for insts in cases:
        f = mfunction(*insts, MInst("ret", []))
        before = text(f)
        assert fold_copies(f, T) == 0, before
        assert text(f) == before


def test_a_register_only_target_keeps_its_loads():
    arm = arm_target(chips.load("stm32f030"))
    f = mfunction(MInst("mov", [Mem(13, 4), R(3)]), MInst("eors", [R(2), R(3)]), MInst("ret", []))
    before = text(f)
    assert fold_copies(f, arm) == 0 and text(f) == before


def test_grain_has_no_copy_that_only_feeds_a_store():
    """Grain-128AEADv2's pre-output on msp430f1611 reads spilled words into a register only to
    store them elsewhere: 39 such pairs before, 5 now (their register is read again)."""
    asm = compile_spec("specs/schemes/grain128aeadv2.ae", "msp430f1611", {}).asm
    lines = [ln.strip() for ln in asm.splitlines() if ln.strip() and not ln.strip().startswith(";")]
    pairs = 0
    for a, b in zip(lines, lines[1:]):
        pa, pb = a.split(None, 1), b.split(None, 1)
        if len(pa) == 2 and len(pb) == 2 and pa[0] == pb[0] == "mov":
            s, t = [x.strip() for x in pa[1].split(",")]
            u, v = [x.strip() for x in pb[1].split(",")]
            if t == u and t.startswith("r") and "(" in s and ("(" in v or v.startswith("&")):
                pairs += 1
    assert pairs <= 8          # 39 before the fold
