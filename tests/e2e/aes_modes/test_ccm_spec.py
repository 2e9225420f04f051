"""The CCM spec against pycryptodome on random lengths 0..600 bytes, soft AES and the
accelerator model; forged tags must be rejected."""
import random

import pytest
from Crypto.Cipher import AES

from aedsl.engines.interp import interp_engine

from tests.paths import SPECS

SCHEMES = SPECS / "schemes"
CONFIGS = [("soft", 128), ("soft", 192), ("soft", 256), ("accel", 128)]


def run_differential(spec, mode, aes, key_bits, nonce_lens, tag_lens, seed, count=12):
    e = interp_engine(SCHEMES / spec, {"key_bits": key_bits, "aes": aes})
    rng = random.Random(seed)
    for _ in range(count):
        key = rng.randbytes(key_bits // 8)
        nonce = rng.randbytes(rng.choice(nonce_lens))
        ad = rng.randbytes(rng.randint(0, 600) if rng.random() < 0.5 else rng.randint(0, 33))
        msg = rng.randbytes(rng.randint(0, 600))
        tag_len = rng.choice(tag_lens)
        assert e.supports(len(key), len(nonce), tag_len)
        ref = AES.new(key, mode, nonce=nonce, mac_len=tag_len)
        ref.update(ad)
        ct, tag = ref.encrypt_and_digest(msg)
        assert e.encrypt(key, nonce, ad, msg, tag_len) == ct + tag
        assert e.decrypt(key, nonce, ad, ct, tag) == msg
        forged = bytearray(tag)
        forged[rng.randrange(tag_len)] ^= 1 << rng.randrange(8)
        assert e.decrypt(key, nonce, ad, ct, bytes(forged)) is None


@pytest.mark.parametrize("aes,key_bits", CONFIGS)
def test_ccm_against_pycryptodome(aes, key_bits):
    run_differential("ccm.ae", AES.MODE_CCM, aes, key_bits, range(7, 14), [4, 6, 8, 10, 12, 14, 16], key_bits)


def test_domains():
    ccm = interp_engine(SCHEMES / "ccm.ae", {"key_bits": "256"})
    assert ccm.supports(32, 13, 8) and not ccm.supports(32, 14, 8) and not ccm.supports(32, 12, 5)


def test_accelerator_key_lengths():
    """`aes=accel` with a 256-bit key binds the AES256 module's spec (accel_aes256): the interpreter
    runs it (its model is the AES spec at that key length); the CC430's AES128 module refuses it
    at code generation (tests/e2e/aes_modes/test_accel_fr5969.py)."""
    ccm = interp_engine(SCHEMES / "ccm.ae", {"aes": "accel", "key_bits": "256"})
    assert ccm.supports(32, 13, 8) and not ccm.supports(16, 13, 8)
    key, nonce, ad, msg = bytes(range(32)), bytes(13), b"ad", b"message"
    want = AES.new(key, AES.MODE_CCM, nonce=nonce, mac_len=8)
    want.update(ad)
    assert ccm.encrypt(key, nonce, ad, msg, 8) == b"".join(want.encrypt_and_digest(msg))
