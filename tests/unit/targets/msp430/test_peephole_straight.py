"""peephole.autoincrement_straight: fully unrolled code reading its round keys at 0(p), 2(p), ...
reads @p+ (2 cycles and one word each instead of 3 and two). SPECK-128/128 unroll=full went from
121.3 to 113.4 cycles/byte, AES-128 t16x4 unroll=full from 127.2 to 121.8. The rewrite must not
touch reads that a loop repeats (ChaCha20-Poly1305's vectors in test_mpy_mul caught that)."""
import re

from aedsl.driver import compile_spec


def _body(asm, fn):
    return asm.split(f"\n{fn}:\n")[1].split(".size")[0]


def test_unrolled_round_keys_are_read_with_autoincrement():
    asm = compile_spec("specs/primitives/speck.ae", "cc430f6137",
                       {"block_bits": 128, "key_bits": 128, "unroll": "full"}).asm
    enc = _body(asm, "speck_encrypt_block")
    incs = re.findall(r"@r\d+\+", enc)
    assert len(incs) == 32 * 4          # 32 rounds, one 64-bit round key (4 words) each
    # decryption reads the keys backwards: no autoincrement there
    assert not re.findall(r"@r\d+\+", _body(asm, "speck_decrypt_block"))


def test_rolled_loops_keep_their_indexed_reads():
    """With unroll=1 the keys are walked by the loop's own pointer (autoincrement with its add);
    the straight-line rewrite must leave the loop alone: the same code as before it existed."""
    asm = compile_spec("specs/primitives/speck.ae", "cc430f6137",
                       {"block_bits": 128, "key_bits": 128, "unroll": "1"}).asm
    enc = _body(asm, "speck_encrypt_block")
    assert len(re.findall(r"@r\d+\+", enc)) == 4
