"""specs/primitives/ghash.ae: both multiplication strategies (SP 800-38D Algorithm 1; seed 000's
López-Dahab 4-bit comb with two tables, for 8-, 16- and 32-bit words) against a Python model of
GF(2^128) multiplication written here from SP 800-38D 6.3, and against GHASH values pycryptodome
implies (the GCM tag of an empty message)."""
import random

import pytest
from Crypto.Cipher import AES

from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from .aes_modes_support import SPECS

GHASH = SPECS / "primitives" / "ghash.ae"
VARIANTS = [("bitwise", 16), ("ld4", 8), ("ld4", 16), ("ld4", 32)]


def gf_mul(x: int, y: int) -> int:
    """X * Y in GCM's bit order, by the textbook route: reflect to ordinary polynomials, multiply,
    reduce by x^128 + x^7 + x^2 + x + 1, reflect back (deliberately unlike the spec's loop)."""
    def reflect(v):
        return int(f"{v:0128b}"[::-1], 2)
    a, b = reflect(x), reflect(y)
    p = 0
    for i in range(128):
        if (b >> i) & 1:
            p ^= a << i
    for d in range(254, 127, -1):
        if (p >> d) & 1:
            p ^= ((1 << 128) | 0x87) << (d - 128)
    return reflect(p)


def program(multiply, word_bits):
    module = load_module(GHASH, {"multiply": multiply, "step_bits": str(word_bits)})
    return module, compile_module(module)


def key_table(module, prog, h):
    tab = [0] * module.function("init").params[1].length
    prog.call("init", [h, tab])
    return tab


@pytest.mark.parametrize("multiply,word_bits", VARIANTS)
def test_mul_h_matches_field_model(multiply, word_bits):
    module, prog = program(multiply, word_bits)
    rng = random.Random(word_bits * 7 + len(multiply))
    cases = [(1 << 127, rng.getrandbits(128)), (rng.getrandbits(128), 1 << 127), (0, rng.getrandbits(128)),
             ((1 << 128) - 1, (1 << 128) - 1), (1, 1)]  # 1<<127 is the field's one; 1 is x^127
    cases += [(rng.getrandbits(128), rng.getrandbits(128)) for _ in range(60)]
    for a, h in cases:
        tab = key_table(module, prog, h)
        assert prog.call("mul_h", [a, tab])[0] == gf_mul(a, h), (multiply, word_bits, hex(a), hex(h))


def test_ld4_table_size_follows_the_seed():
    """Seed 000: each of the 2 x 16 lines holds 132+ bits in whole 16-bit words (9 words)."""
    module, _ = program("ld4", 16)
    tab = module.function("init").params[1]
    assert (tab.length, tab.elem_width) == (32, 144)


@pytest.mark.parametrize("multiply,word_bits", VARIANTS)
def test_absorb_gives_gcm_tags(multiply, word_bits):
    """With an empty message, GCM's tag is E_K(J0) ^ GHASH_H(A || 0* || [len(A)]_64 || 0^64)."""
    module, prog = program(multiply, word_bits)
    rng = random.Random(99)
    for ad_len in (0, 1, 15, 16, 17, 64, 131):
        key, nonce, ad = rng.randbytes(16), rng.randbytes(12), rng.randbytes(ad_len)
        ecb = AES.new(key, AES.MODE_ECB)
        h = int.from_bytes(ecb.encrypt(bytes(16)), "big")
        s0 = int.from_bytes(ecb.encrypt(nonce + b"\0\0\0\1"), "big")
        tab = key_table(module, prog, h)
        y = prog.call("absorb", [tab, 0, list(ad)])[0]
        y = prog.call("mul_h", [y ^ (8 * ad_len << 64), tab])[0]
        gcm = AES.new(key, AES.MODE_GCM, nonce=nonce)
        gcm.update(ad)
        assert (y ^ s0).to_bytes(16, "big") == gcm.digest(), (multiply, word_bits, ad_len)
