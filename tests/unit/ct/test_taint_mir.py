"""The machine-code taint analysis (aedsl/ct/taint_mir.py) on small hand-written MSP430 functions:
a branch on flags set from a secret is found, a spill slot overwritten with a public value is
public again (slots are tracked per program point), a frame area is tracked per program point,
and a store through a pointer the analysis cannot follow is refused; and on ARMv6-M ones, whose
stores say their width: a frame area a word at a time, through pointers with a known offset."""
from aedsl import chips
from aedsl.backends.msp430.target import make_target
from aedsl.codegen.interface import KeptFunction
from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, MFunction, MInst, R
from aedsl.codegen.unit import Entry, Param
from aedsl.ct.taint_mir import analyse

CHIP = chips.load("cc430f6137")
SP = 1
LOC = ("x.ae", 7, 1)


def run(insts: list[MInst], params: list[Param]):
    mf = MFunction("f", insts=insts + [MInst("ret")], incoming=[R(12 + j) for j in range(len(params))])
    for i in mf.insts:
        i.loc = i.loc or LOC
    unit = KeptFunction("f", mf, make_target(CHIP), Entry("f", "f", params, []))
    return [(f.kind, f.detail.split(":")[0]) for f in analyse([unit], CHIP)]


KEY, NONCE_LEN = Param("key", "word", 16), Param("nonce", "word", 16)


def test_a_branch_on_a_secret_is_found_and_one_on_a_public_value_is_not():
    body = [MInst("tst", [R(12)]), MInst("jz", [Lbl("L")]), MInst("inc", [R(12)]), MInst("label", [Lbl("L")])]
    assert run(body, [KEY]) == [("branch", "a conditional branch depends on a secret")]
    assert run(body, [NONCE_LEN]) == []


def test_a_spill_slot_overwritten_with_a_public_value_is_public():
    slot = Mem(SP, Frame("slot", 0))
    body = [MInst("mov", [R(12), slot]),              # the key spilled
            MInst("mov", [R(13), slot]),              # the slot reused for the nonce word
            MInst("mov", [slot, R(14)]),
            MInst("tst", [R(14)]), MInst("jz", [Lbl("L")]), MInst("label", [Lbl("L")])]
    assert run(body, [KEY, NONCE_LEN]) == []
    assert run(body[:1] + body[2:], [KEY, NONCE_LEN]) == [("branch", "a conditional branch depends on a secret")]


def test_a_scratch_area_holds_public_data_before_a_secret_is_stored_in_it():
    area = Mem(SP, Frame("local", "tmp", 0))
    public_first = [MInst("mov", [R(13), area]), MInst("mov", [area, R(14)]), MInst("tst", [R(14)]),
                    MInst("jz", [Lbl("L")]), MInst("label", [Lbl("L")]), MInst("mov", [R(12), area])]
    assert run(public_first, [KEY, NONCE_LEN]) == []
    secret_first = [MInst("mov", [R(12), area])] + public_first
    assert run(secret_first, [KEY, NONCE_LEN]) == [("branch", "a conditional branch depends on a secret")]


def test_a_store_through_an_unknown_pointer_is_refused():
    body = [MInst("mov", [Imm(0x2400), R(13)]), MInst("mov", [R(12), Mem(13, 0)])]
    assert run(body, [KEY]) == [("untracked", "a store through a pointer the analysis cannot follow")]


def test_a_register_minus_itself_holds_only_the_carry():
    """`subc r12, r12` (carry_masks' C - 1) and `xor r12, r12` do not depend on what r12 held: a
    mask from a public comparison's carry is public even where r12 held the key before."""
    public_carry = [MInst("cmp", [Imm(16), R(13)]), MInst("subc", [R(12), R(12)]),
                    MInst("tst", [R(12)]), MInst("jz", [Lbl("L")]), MInst("label", [Lbl("L")])]
    assert run(public_carry, [KEY, NONCE_LEN]) == []
    cleared = [MInst("xor", [R(12), R(12)]), MInst("tst", [R(12)]), MInst("jz", [Lbl("L")]),
               MInst("label", [Lbl("L")])]
    assert run(cleared, [KEY]) == []
    # the carry of a secret comparison still makes it secret; another register's difference too
    secret_carry = [MInst("cmp", [Imm(16), R(12)])] + public_carry[1:]
    assert run(secret_carry, [KEY, NONCE_LEN]) == [("branch", "a conditional branch depends on a secret")]
    other = [MInst("subc", [R(13), R(12)])] + public_carry[2:]
    assert run(other, [KEY, NONCE_LEN]) == [("branch", "a conditional branch depends on a secret")]


def test_an_exit_test_the_selector_made_public_reads_no_secret():
    """A loop counted by a marker bit in a shifted secret byte (select_base.sentinel_counter):
    its `cmp #2, v; jc` leaves after the same number of turns whatever the byte holds, and the
    selector marks it `public`; unmarked, the same test on the key is a secret loop exit."""
    def loop(public):
        return [MInst("bis", [Imm(256), R(12)]), MInst("label", [Lbl("top")]), MInst("rra", [R(12)]),
                MInst("cmp", [Imm(2), R(12)], public=public), MInst("jc", [Lbl("top")], public=public)]
    assert run(loop(True), [KEY]) == []
    assert run(loop(False), [KEY]) == [("loop", "a loop exit depends on a secret")]


# --- frame areas a word at a time (ARMv6-M: its stores say their width) -----------------------

def arm_run(insts: list[MInst], params: list[Param]):
    from aedsl.backends.armv6m.target import make_target as arm_target
    chip = chips.load("stm32f030")
    mf = MFunction("f", insts=insts + [MInst("ret")], incoming=[R(j) for j in range(len(params))])
    for i in mf.insts:
        i.loc = i.loc or LOC
    unit = KeptFunction("f", mf, arm_target(chip), Entry("f", "f", params, []))
    return [(f.kind, f.detail.split(":")[0]) for f in analyse([unit], chip)]


ARM_SP = 13
ARM_KEY, ARM_NONCE_LEN = Param("key", "word", 32), Param("nonce", "word", 32)
BRANCH = [("branch", "a conditional branch depends on a secret")]


def word(k: int) -> Mem:
    return Mem(ARM_SP, Frame("local", "tmp", 4 * k))


def branch_on(reg: int) -> list[MInst]:
    return [MInst("tst", [R(reg), R(reg)]), MInst("beq", [Lbl("L")]), MInst("label", [Lbl("L")])]


def test_a_frame_area_word_is_its_own_value():
    """A call's wide argument (secret) in one word of an area that a byte buffer's partial block
    uses too (public) leaves the other words public; a whole-word store replaces a word, a byte
    store only joins into it."""
    secret_then_public = [MInst("str", [R(0), word(1)]), MInst("str", [R(1), word(0)]),
                          MInst("ldr", [R(2), word(0)])]
    assert arm_run(secret_then_public + branch_on(2), [ARM_KEY, ARM_NONCE_LEN]) == []
    assert arm_run(secret_then_public[:2] + [MInst("ldr", [R(2), word(1)])] + branch_on(2),
                   [ARM_KEY, ARM_NONCE_LEN]) == BRANCH
    overwritten = [MInst("str", [R(0), word(0)]), MInst("str", [R(1), word(0)]), MInst("ldr", [R(2), word(0)])]
    assert arm_run(overwritten + branch_on(2), [ARM_KEY, ARM_NONCE_LEN]) == []
    q = R(3)
    byte_over = [MInst("str", [R(0), word(0)]), MInst("addsp", [q, word(0)]), MInst("strb", [R(1), Mem(3, 0)]),
                 MInst("ldr", [R(2), word(0)])]
    assert arm_run(byte_over + branch_on(2), [ARM_KEY, ARM_NONCE_LEN]) == BRANCH


def test_a_pointer_into_a_frame_area_keeps_its_offset_through_copies_only():
    """`add rd, sp, #area` then a copy: a load at [rd, #4] reads word 1 alone. An index register
    (`strb rt, [rn, rm]`) or arithmetic on the pointer leaves the offset unknown: every word."""
    setup = [MInst("str", [R(0), word(1)]), MInst("str", [R(1), word(0)]),     # key in word 1
             MInst("addsp", [R(3), word(0)]), MInst("mov", [R(3), R(4)])]
    assert arm_run(setup + [MInst("ldr", [R(2), Mem(4, 0)])] + branch_on(2), [ARM_KEY, ARM_NONCE_LEN]) == []
    assert arm_run(setup + [MInst("ldr", [R(2), Mem(4, 4)])] + branch_on(2), [ARM_KEY, ARM_NONCE_LEN]) == BRANCH
    moved = setup + [MInst("adds8", [R(4), Imm(0)]), MInst("ldr", [R(2), Mem(4, 0)])]
    assert arm_run(moved + branch_on(2), [ARM_KEY, ARM_NONCE_LEN]) == BRANCH
    indexed = [MInst("str", [R(1), word(0)]), MInst("addsp", [R(3), word(0)]), MInst("mov", [Imm(1), R(5)]),
               MInst("strbr", [R(0), R(3), R(5)]), MInst("ldr", [R(2), word(0)])]
    assert arm_run(indexed + branch_on(2), [ARM_KEY, ARM_NONCE_LEN]) == BRANCH
