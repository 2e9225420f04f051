"""Generated GCM (default ghash=shoup4) against pycryptodome on random inputs in the simulators:
partial blocks, empty message or AD, nonces other than 96 bits (J0 goes through GHASH), truncated
tags, and a flipped tag bit that decryption must reject."""
import pytest
from Crypto.Cipher import AES

from aedsl.engines.sim import sim_engine

from .configs import CONFIGS, config_id, config_params

RNG_SEED = 0x6C3

GCM = "specs/schemes/gcm.ae"
CASES = [(0, 0, 12, 16), (1, 16, 12, 16), (17, 3, 12, 12), (64, 0, 16, 16), (33, 20, 1, 8),
         (100, 45, 60, 4), (256, 16, 12, 16)]       # (message, AD, nonce, tag) bytes


@pytest.mark.parametrize("chip,knobs", config_params(), ids=[config_id(c) for c in CONFIGS])
def test_random_differential(chip, knobs, rng, require_tools):
    require_tools(chip)
    eng = sim_engine(GCM, knobs, chip)
    key_len = int(knobs.get("key_bits", 128)) // 8
    for mlen, alen, nlen, tlen in CASES:
        key, nonce = rng.randbytes(key_len), rng.randbytes(nlen)
        ad, msg = rng.randbytes(alen), rng.randbytes(mlen)
        ct, tag = AES.new(key, AES.MODE_GCM, nonce=nonce, mac_len=tlen).update(ad).encrypt_and_digest(msg)
        assert eng.encrypt(key, nonce, ad, msg, tlen) == ct + tag, (chip, mlen, alen, nlen, tlen)
        assert eng.decrypt(key, nonce, ad, ct, tag) == msg
        bad = tag[:-1] + bytes([tag[-1] ^ 0x80])
        assert eng.decrypt(key, nonce, ad, ct, bad) is None
