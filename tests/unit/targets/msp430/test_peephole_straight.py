"""peephole.autoincrement_straight: fully unrolled code reading its round keys at 0(p), 2(p), ...
reads @p+ (2 cycles and one word each instead of 3 and two). SPECK-128/128 unroll=full went from
121.3 to 113.4 cycles/byte, AES-128 t16x4 unroll=full from 127.2 to 121.8. The rewrite must not
touch reads that a loop repeats (ChaCha20-Poly1305's vectors in test_mpy_mul caught that). Later
references to p based on it are moved down by what the reads added (Ascon-p6 on msp430f1611:
1 148 -> 1 108 B, 3 401 -> 3 381 cycles)."""
import re

from aedsl import chips
from aedsl.backends.msp430.peephole import autoincrement_straight, autoincrement_tail
from aedsl.backends.msp430.target import make_target
from aedsl.codegen.mir import Inc, Ind, Lbl, Mem, MInst, R
from aedsl.driver import compile_spec

from tests.mir import mfunction, text


def _body(asm, fn):
    return asm.split(f"\n{fn}:\n")[1].split(".size")[0]


def test_unrolled_round_keys_are_read_with_autoincrement():
    asm = compile_spec("specs/primitives/speck.ae", "cc430f6137",
                       {"block_bits": 128, "key_bits": 128, "unroll": "full"}).asm
    enc = _body(asm, "speck_encrypt_block")
    incs = re.findall(r"@r\d+\+", enc)
    assert len(incs) == 32 * 4          # 32 rounds, one 64-bit round key (4 words) each
    # decryption reads the keys backwards: only its last round key, round key 0 at 0(p) ..
    # 6(p) and the pointer's last reads, reads with autoincrement (autoincrement_tail)
    assert len(re.findall(r"@r\d+\+", _body(asm, "speck_decrypt_block"))) == 4


def test_rolled_loops_keep_their_indexed_reads():
    """With unroll=1 the keys are walked by the loop's own pointer (autoincrement with its add);
    the straight-line rewrite must leave the loop alone: the same code as before it existed."""
    asm = compile_spec("specs/primitives/speck.ae", "cc430f6137",
                       {"block_bits": 128, "key_bits": 128, "unroll": "1"}).asm
    enc = _body(asm, "speck_encrypt_block")
    assert len(re.findall(r"@r\d+\+", enc)) == 4


P, A, B, C = 64, 65, 66, 67          # virtual registers: the pointer, three values


def _state_in_and_out(*after):
    """p = r12; three words read at 0(p), 2(p), 4(p); a loop; the words stored back."""
    return mfunction(
        MInst("mov", [R(12), R(P)]),
        MInst("mov", [Ind(P), R(A)]), MInst("mov", [Mem(P, 2), R(B)]), MInst("mov", [Mem(P, 4), R(C)]),
        MInst("label", [Lbl("top")]), MInst("xor", [R(A), R(B)]), MInst("jnz", [Lbl("top")]),
        *after)


def test_a_state_read_at_entry_and_stored_at_exit_reads_with_autoincrement():
    """The reads become @p+; the stores after them, based on p, move their displacements down
    by the 6 bytes p has moved (SPECK's and Ascon's states, read word by word at entry)."""
    f = _state_in_and_out(MInst("mov", [R(A), Mem(P, 0)]), MInst("mov", [R(B), Mem(P, 2)]),
                          MInst("mov", [R(C), Mem(P, 4)]))
    assert autoincrement_straight(f) == 3
    assert text(f) == text(mfunction(
        MInst("mov", [R(12), R(P)]),
        MInst("mov", [Inc(P), R(A)]), MInst("mov", [Inc(P), R(B)]), MInst("mov", [Inc(P), R(C)]),
        MInst("label", [Lbl("top")]), MInst("xor", [R(A), R(B)]), MInst("jnz", [Lbl("top")]),
        MInst("mov", [R(A), Mem(P, -6)]), MInst("mov", [R(B), Mem(P, -4)]),
        MInst("mov", [R(C), Mem(P, -2)])))


def test_a_later_use_of_the_pointer_itself_keeps_the_indexed_reads():
    f = _state_in_and_out(MInst("mov", [R(A), Mem(P, 0)]), MInst("mov", [R(P), R(B)]))
    before = text(f)
    assert autoincrement_straight(f) == 0 and text(f) == before


def test_reads_out_of_order_or_after_a_label_are_left_alone():
    f = mfunction(MInst("mov", [R(12), R(P)]), MInst("mov", [Mem(P, 2), R(A)]),
                  MInst("mov", [Ind(P), R(B)]), MInst("mov", [Mem(P, 4), R(C)]))
    g = mfunction(MInst("mov", [R(12), R(P)]), MInst("label", [Lbl("top")]),
                  MInst("mov", [Ind(P), R(A)]), MInst("mov", [Mem(P, 2), R(B)]),
                  MInst("jnz", [Lbl("top")]))
    for h in (f, g):
        before = text(h)
        assert autoincrement_straight(h) == 0 and text(h) == before


def test_ascon_permutation_reads_its_state_with_autoincrement():
    """specs/primitives/ascon_p.ae's permute reads the 20 words of its state at entry (its
    results are checked against the vectors through every Ascon and ISAP scheme)."""
    asm = compile_spec("specs/primitives/ascon_p.ae", "msp430f1611", {}).asm
    assert len(re.findall(r"@r\d+\+", _body(asm, "ascon_p_permute"))) == 20


T = make_target(chips.load("msp430f1611"))


def test_a_state_copied_out_at_the_end_reads_with_autoincrement():
    """After allocation: r13's last references read 0(r13), 2(r13), 4(r13) in order and r13 dies
    after them (a shift register's words copied to the result), so they read @r13+; a read
    before the run at another displacement stays (Grain's clock16: 7 of its 8 words each)."""
    f = mfunction(MInst("mov", [Mem(13, -2), Mem(14, 0)]), MInst("mov", [Ind(13), Mem(14, 2)]),
                  MInst("mov", [Mem(13, 2), Mem(14, 4)]), MInst("xor", [Mem(13, 4), R(15)]),
                  MInst("mov", [R(15), Mem(14, 6)]), MInst("ret", []))
    assert autoincrement_tail(f, T) == 3
    assert text(f)[:4] == [f"mov {Mem(13, -2)!r}, {Mem(14, 0)!r}", f"mov {Inc(13)!r}, {Mem(14, 2)!r}",
                           f"mov {Inc(13)!r}, {Mem(14, 4)!r}", f"xor {Inc(13)!r}, R(reg=15)"]


def test_a_pointer_used_after_its_reads_or_read_out_of_order_keeps_them():
    live_after = mfunction(MInst("mov", [Ind(13), Mem(14, 0)]), MInst("mov", [Mem(13, 2), Mem(14, 2)]),
                           MInst("mov", [R(13), Mem(14, 4)]), MInst("ret", []))
    backwards = mfunction(MInst("mov", [Mem(13, 2), Mem(14, 0)]), MInst("mov", [Ind(13), Mem(14, 2)]),
                          MInst("ret", []))
    # a loop: the reads run again with the pointer they were given
    looped = mfunction(MInst("label", [Lbl("top")]), MInst("xor", [Ind(13), R(12)]),
                       MInst("xor", [Mem(13, 2), R(12)]), MInst("jnz", [Lbl("top")]),
                       MInst("mov", [R(13), Mem(14, 0)]), MInst("ret", []))
    for f in (live_after, backwards, looped):
        before = text(f)
        assert autoincrement_tail(f, T) == 0
        assert text(f) == before


def test_a_last_read_into_the_pointer_itself_reads_at_it():
    """The block's last word read into the pointer's own register (`mov 6(r13), r13`, the
    allocator's choice once r13 dies there: Ascon-128's message words on msp430f1611) follows the
    run: the reads before it read @r13+ and it reads @r13. Not when it is not the run's next
    word, or the run is a single read."""
    f = mfunction(MInst("mov", [Ind(13), R(6)]), MInst("mov", [Mem(13, 2), R(7)]),
                  MInst("mov", [Mem(13, 4), R(10)]), MInst("mov", [Mem(13, 6), R(13)]),
                  MInst("xor", [R(13), R(6)]), MInst("ret", []))
    assert autoincrement_tail(f, T) == 3
    assert text(f)[:4] == [f"mov {Inc(13)!r}, R(reg=6)", f"mov {Inc(13)!r}, R(reg=7)",
                           f"mov {Inc(13)!r}, R(reg=10)", f"mov {Ind(13)!r}, R(reg=13)"]
    gap = mfunction(MInst("mov", [Ind(13), R(6)]), MInst("mov", [Mem(13, 2), R(7)]),
                    MInst("mov", [Mem(13, 8), R(13)]), MInst("xor", [R(13), R(6)]), MInst("ret", []))
    single = mfunction(MInst("mov", [Ind(13), R(6)]), MInst("mov", [Mem(13, 2), R(13)]),
                       MInst("xor", [R(13), R(6)]), MInst("ret", []))
    for g in (gap, single):
        before = text(g)
        assert autoincrement_tail(g, T) == 0
        assert text(g) == before
