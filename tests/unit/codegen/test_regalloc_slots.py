"""Where the register allocator keeps a spilled value (codegen/regalloc.py): the two ends of a
copy that are both spilled and do not interfere share one slot, so the copy (a memory-to-memory
move) disappears (loop-carried 128-bit values: OCB3's offset and checksum); on MSP430 a value
loaded from an incoming stack argument lives in that argument's word, and a value loaded from
a word through a pointer that nothing changes while it lives is read from the word itself: no
slot, no copy in, no store."""
import pytest

from aedsl import bench, chips
from aedsl.codegen.regalloc import _share_slots
from aedsl.engines.sim import compiled


def test_copy_related_spills_share_a_slot_unless_they_interfere():
    adj = {1: {3}, 2: set(), 3: {1}, 4: set()}
    groups = _share_slots([1, 2, 3, 4], [(1, 2), (2, 3), (5, 4)], {}, adj)
    # 1-2 merge; 3 interferes with 1 (a member of that group), so it keeps its own slot;
    # 4's partner was not spilled
    assert sorted(sorted(g) for g in groups) == [[1, 2], [3], [4]]


def test_aliases_are_followed():
    groups = _share_slots([10, 20], [(11, 21)], {11: 10, 21: 20}, {10: set(), 20: set()})
    assert [sorted(g) for g in groups] == [[10, 20]]


@pytest.mark.needs("msp430")
def test_ocb3_accel_cycle_budget():
    """OCB3 with the accelerator, 4 KB message, key setup excluded: 38 cycles/byte in seed 000;
    42.7 before slot sharing removed the loop-carried copies, 34.7 after (budget +2 %)."""
    chip = chips.load("cc430f6137")
    unit, _ = compiled("specs/schemes/ocb3.ae", "cc430f6137", {"aes": "accel"})
    b = bench.AeadBench(unit, chip)
    r = b.encrypt(bench._data(4096, 9), b"", True)
    cycles = r[0].cycles if isinstance(r, tuple) else r.cycles
    assert cycles / 4096 <= 34.7 * 1.02


def _msp430_fn(insts):
    from aedsl.codegen.mir import MFunction
    fn = MFunction("f")
    fn.insts = insts
    fn.next_vreg = 200
    return fn


def test_a_spilled_value_built_by_read_modify_write_steps_is_built_in_a_register():
    """`mov a, v; swpb v; bis b, v` with v spilled: 4 + 4 + 4 cycles on the slot, 1 + 1 + 1 + a
    4-cycle store in a temporary (regalloc._split_chains); the temporary is never spilled."""
    from aedsl.backends.msp430.target import make_target
    from aedsl.codegen.mir import MInst, R
    from aedsl.codegen.regalloc import _split_chains
    t = make_target(chips.load("msp430f1611"))
    a, b, v = 100, 101, 102
    fn = _msp430_fn([MInst("mov", [R(a), R(v)]), MInst("comment", ["x"]), MInst("swpb", [R(v)]),
                     MInst("bis", [R(b), R(v)]), MInst("xor", [R(v), R(a)])])
    _split_chains(fn, t, {v: 0}, {})
    tmp = fn.insts[0].ops[1]
    assert [i.mn for i in fn.insts] == ["mov", "comment", "swpb", "bis", "mov", "xor"]
    assert tmp != R(v) and tmp.reg in fn.no_spill
    assert fn.insts[2].ops == [tmp] and fn.insts[3].ops == [R(b), tmp]
    assert fn.insts[4].ops == [tmp, t.spill_operand(0)]
    assert fn.insts[5].ops == [R(v), R(a)]           # a later use still reads the slot


def test_a_single_step_or_a_step_that_only_reads_stays_on_the_slot():
    from aedsl.backends.msp430.target import make_target
    from aedsl.codegen.mir import MInst, R
    from aedsl.codegen.regalloc import _split_chains
    t = make_target(chips.load("msp430f1611"))
    a, v = 100, 102
    insts = [MInst("mov", [R(a), R(v)]), MInst("xor", [R(v), R(a)]), MInst("swpb", [R(v)])]
    fn = _msp430_fn(list(insts))
    _split_chains(fn, t, {v: 0}, {})
    assert fn.insts == insts and not fn.no_spill


def _spilling(first: list, free: int, last: tuple = ()):
    """MSP430 machine IR needing one register more than the `free` ones it has: v (defined by
    `first`) read once, and `free` values each read three times, so v is the one the allocator
    spills. The results are stored through r14; `last` ends the function."""
    from aedsl.codegen.mir import Imm, Mem, MInst, R
    vals = list(range(101, 101 + free))
    insts = list(first)
    insts += [MInst("mov", [Imm(k), R(x)]) for k, x in enumerate(vals)]
    insts += [MInst("xor", [R(x), R(x)]) for x in vals for _ in range(2)]
    insts += [MInst("xor", [R(100), R(vals[0])])]
    insts += [MInst("mov", [R(x), Mem(14, 2 * k)]) for k, x in enumerate(vals)]
    insts += [*last, MInst("ret", [])]
    fn = _msp430_fn(insts)
    return fn


def test_a_value_loaded_from_a_stack_argument_is_spilled_to_that_argument():
    """No slot and no copy at entry: the function's frame does not grow, and the use reads
    the caller's argument word (a cipher's fifth and later arguments, the out-pointers)."""
    from aedsl.backends.msp430.target import make_target
    from aedsl.codegen.mir import Frame, Mem, MInst, R
    from aedsl.codegen.regalloc import allocate
    t = make_target(chips.load("msp430f1611"))
    arg = Mem(1, Frame("arg", 0))
    fn = _spilling([MInst("mov", [arg, R(100)])], 11)
    alloc = allocate(fn, t)
    assert alloc.n_slots == 0
    assert not any(i.mn == "mov" and i.ops[0] == arg for i in fn.insts)
    assert [i.ops[0] for i in fn.insts if i.mn == "xor" and isinstance(i.ops[0], Mem)] == [arg]
    # read twice, the argument word is not the function's to overwrite: a slot as before
    fn = _spilling([MInst("mov", [arg, R(100)]), MInst("mov", [arg, Mem(14, 30)])], 11)
    assert allocate(fn, t).n_slots == 1


def test_a_value_loaded_through_a_pointer_is_read_from_its_word():
    from aedsl.backends.msp430.target import make_target
    from aedsl.codegen.mir import Mem, MInst, R
    from aedsl.codegen.regalloc import allocate
    t = make_target(chips.load("msp430f1611"))
    word = Mem(13, 6)
    # r13 and r14 hold pointers to the end
    fn = _spilling([MInst("mov", [word, R(100)])], 10, (MInst("mov", [R(14), Mem(13, 0)]),))
    assert allocate(fn, t).n_slots == 0
    assert not any(i.mn == "mov" and i.ops[0] == word for i in fn.insts)
    assert [i.ops[0] for i in fn.insts if i.mn == "xor" and isinstance(i.ops[0], Mem)] == [word]


def test_a_word_changed_while_its_value_lives_is_no_home():
    """A store through another pointer (it may reach the word), to the word itself, a move of
    the pointer or a label (a loop may come back) before the last use: a stack slot."""
    from aedsl.backends.msp430.target import make_target
    from aedsl.codegen.mir import Imm, Lbl, Mem, MInst, R
    from aedsl.codegen.regalloc import _Homes
    t = make_target(chips.load("msp430f1611"))
    word = Mem(13, 6)

    def home(*between):
        fn = _msp430_fn([MInst("mov", [word, R(100)]), *between, MInst("xor", [R(100), R(12)])])
        return _Homes(fn, t).word_home([100])

    assert home() == word
    assert home(MInst("mov", [R(15), Mem(13, 8)])) == word       # the next word: no obstacle
    for between in (MInst("mov", [R(15), Mem(14, 0)]), MInst("mov", [R(15), Mem(13, 6)]),
                    MInst("mov", [R(15), Mem(13, 7)]), MInst("add", [Imm(2), R(13)]),
                    MInst("label", [Lbl("top")])):
        assert home(between) is None, between
    # a value defined twice is not the word's
    fn = _msp430_fn([MInst("mov", [word, R(100)]), MInst("inc", [R(100)]), MInst("xor", [R(100), R(12)])])
    assert _Homes(fn, t).word_home([100]) is None


@pytest.mark.needs("msp430")
def test_grain_pre_output_cycle_budget():
    """Grain-128AEADv2's 16 pre-output bits (seed 002 Table 2's POGen, 584 cycles there) on
    msp430f1611: 696 cycles before the state's words were read through registers
    (codegen/reloads.py) and the stack argument and the state copy-out took no copies, 627
    after; 615 once taps a word multiple apart shared their funnel shifts
    (ir/passes/concat_ops.py); 554 with the registers in rings (the spec's par <= 16 form: the
    new word written twice instead of seven moved down). Budget +2 %."""
    r = bench.bench_function("specs/schemes/grain128aeadv2.ae", "msp430f1611", {}, "clock16")[0]
    assert r.cycles <= 554 * 1.02


@pytest.mark.needs("msp430")
@pytest.mark.slow      # a whole scheme compiled; the full suite runs it
def test_loop_carried_copies_merged_where_that_spills_less():
    """Grain-128AEADv2's AUGen as a loop (`-k unroll=1`) on msp430f1611: eight words of
    accumulator and register, the two byte shift registers and the mask fill r4-r15 exactly
    with one temporary. Briggs's conservative coalescing keeps the loop-carried copies apart
    (every one of their neighbours is of high degree), and optimistic colouring then left one
    accumulator word in a slot (read, xored and written back every turn); merging every copy
    whose ends do not interfere colours it in registers, and is taken since it spills less (the
    out-pointers, read once after the loop). 324 -> 270 cycles, 144 -> 132 B (seed 002: 287
    cycles, 144 B); budget +2 %."""
    from aedsl.driver import compile_spec
    asm = compile_spec("specs/schemes/grain128aeadv2.ae", "msp430f1611", {"unroll": 1}, entry="authenticate").asm
    loop = asm.split("_loop1:\n")[1].split("\tjc\t")[0]
    assert "(sp)" not in loop and "@sp" not in loop
    r = bench.bench_function("specs/schemes/grain128aeadv2.ae", "msp430f1611", {"unroll": "1"}, "authenticate")[0]
    assert r.cycles <= 270 * 1.02 and r.rom_bytes <= 216


def test_no_word_home_through_a_pointer_spilled_in_the_same_round():
    """A value loaded through a pointer may live in that word (`word_home`), but not when the
    pointer itself is spilled in the same round: the home's operands go in after the spilled
    registers' references were rewritten, and named a register that no longer held the pointer
    (here the load's destination became the out-pointer's word: `mov 6(r15), 6(r14)`; Grain-
    128AEADv2 with its registers in rings on msp430f1611 stored through a slot never written).
    Both go to slots; every slot the code reads is written, and nothing is written through r14
    but the results."""
    from aedsl.backends.msp430.target import make_target
    from aedsl.codegen.mir import Frame, Mem, MInst, R
    from aedsl.codegen.regalloc import allocate
    t = make_target(chips.load("msp430f1611"))
    p = 99
    fn = _spilling([MInst("mov", [R(13), R(p)]), MInst("mov", [Mem(p, 6), R(100)])], 11,
                   (MInst("mov", [R(14), Mem(p, 0)]),))
    assert allocate(fn, t).n_slots == 2
    read, written = set(), set()
    for inst in fn.insts:
        for j, op in enumerate(inst.ops):
            if isinstance(op, Mem) and isinstance(op.disp, Frame):
                (written if j == len(inst.ops) - 1 else read).add(op.disp.key)
            elif isinstance(op, Mem) and op.base == 14:
                assert j == 1 and isinstance(inst.ops[0], R), inst
    assert read <= written
