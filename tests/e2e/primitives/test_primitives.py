"""SPECK (all ten paper vectors) and AES (FIPS-197 C.1-C.3) through the interpreter, both ways."""
import re

import pytest

from aedsl.engines.interp import interp_engine
from aedsl.resources import shared_vectors_dir

from tests.paths import ROOT
SPECK = ROOT / "specs/primitives/speck.ae"
AES = ROOT / "specs/primitives/aes.ae"
SPECK_VECTORS = shared_vectors_dir() / "speck" / "speck_paper_test_vectors.txt"


def speck_vectors():
    text = SPECK_VECTORS.read_text()
    out = []
    for section in re.split(r"^\[", text, flags=re.M)[1:]:
        name = section.split("]")[0]
        d = dict(line.split(" = ") for line in section.splitlines()[1:] if " = " in line)
        out.append(pytest.param(d, id=name))
    return out


@pytest.mark.parametrize("unroll", ["1", "full"])
@pytest.mark.parametrize("v", speck_vectors())
def test_speck_paper_vectors(v, unroll):
    n, m = int(v["WordBits"]), int(v["KeyWords"])
    e = interp_engine(SPECK, {"block_bits": 2 * n, "key_bits": n * m, "unroll": unroll})
    key, pt, ct = (bytes.fromhex(v[k]) for k in ("KeyBytes", "PTBytes", "CTBytes"))
    assert e.supports(len(key))
    assert e.encrypt_block(key, pt) == ct
    assert e.decrypt_block(key, ct) == pt


FIPS197 = [  # Appendix C.1-C.3
    (128, "000102030405060708090a0b0c0d0e0f", "69c4e0d86a7b0430d8cdb78070b4c55a"),
    (192, "000102030405060708090a0b0c0d0e0f1011121314151617", "dda97ca4864cdfe06eaf70a0ec0d7191"),
    (256, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
     "8ea2b7ca516745bfeafc49904b496089"),
]


@pytest.mark.parametrize("unroll", ["1", "full"])
@pytest.mark.parametrize("key_bits,key,ct", FIPS197)
def test_aes_fips197(key_bits, key, ct, unroll):
    e = interp_engine(AES, {"key_bits": key_bits, "unroll": unroll})
    pt = bytes.fromhex("00112233445566778899aabbccddeeff")
    assert e.block_bytes == 16 and e.supports(key_bits // 8) and not e.supports(key_bits // 8 + 1)
    assert e.encrypt_block(bytes.fromhex(key), pt).hex() == ct
    assert e.decrypt_block(bytes.fromhex(key), bytes.fromhex(ct)) == pt


def test_aes_random_against_pycryptodome():
    from Crypto.Cipher import AES as RefAES
    import random
    rng = random.Random(1)
    for key_bits in (128, 192, 256):
        e = interp_engine(AES, {"key_bits": key_bits})
        for _ in range(10):
            key, block = rng.randbytes(key_bits // 8), rng.randbytes(16)
            ref = RefAES.new(key, RefAES.MODE_ECB)
            assert e.encrypt_block(key, block) == ref.encrypt(block)
            assert e.decrypt_block(key, block) == ref.decrypt(block)


def test_accelerator_spec_matches_aes():
    e = interp_engine(ROOT / "specs/primitives/accel_aes128.ae", {})
    key = bytes.fromhex(FIPS197[0][1])
    assert e.encrypt_block(key, bytes.fromhex("00112233445566778899aabbccddeeff")).hex() == FIPS197[0][2]
    assert e.decrypt_block(key, bytes.fromhex(FIPS197[0][2])).hex() == "00112233445566778899aabbccddeeff"
