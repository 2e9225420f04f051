"""GCM, CCM and OCB3 specs against pycryptodome (aedsl.engines.reference) on random keys, nonces, tag
lengths and message/AD lengths 0..600 bytes, for every AES key size and the accelerator model
(30 seeded cases per mode and configuration). Each case also checks that decryption rejects a
flipped tag bit, a flipped ciphertext bit and a flipped AD bit."""
import random

import pytest
from Crypto.Cipher import AES

from .aes_modes_support import RFC7253_ITERATED, mode_engine, rfc7253_iterated
from aedsl.engines import reference as refengines

CASES = 30
# (aes, key_bits, extra knobs): the non-default knobs ride along so each variant meets random data.
GCM_CONFIGS = [("soft", 128, {"ghash": "bitwise"}), ("soft", 192, {"ghash": "ld4", "ghash_word": 8}),
               ("soft", 256, {"ghash": "ld4", "ghash_word": 32}), ("accel", 128, {"ghash": "ld4"})]
CCM_CONFIGS = [("soft", 128, {}), ("soft", 192, {}), ("soft", 256, {}), ("accel", 128, {})]
OCB3_CONFIGS = [("soft", 128, {"l_cached": 8}), ("soft", 192, {"l_cached": 1}),
                ("soft", 256, {"l_cached": 28}), ("accel", 128, {"l_cached": 2})]

MODES = {  # scheme: (reference engine, nonce lengths, tag lengths, configurations)
    "gcm": ("aes-gcm", [12] * 4 + [1, 8, 16, 60, 128], [4, 8, 12, 13, 14, 15, 16], GCM_CONFIGS),
    "ccm": ("aes-ccm", list(range(7, 14)), [4, 6, 8, 10, 12, 14, 16], CCM_CONFIGS),
    "ocb3": ("aes-ocb3", [12] * 4 + list(range(1, 16)), list(range(8, 17)), OCB3_CONFIGS),
}


def length(rng):
    """0..600 bytes, with block boundaries and short lengths drawn more often than uniform."""
    r = rng.random()
    if r < 0.5:
        return rng.randint(0, 600)
    if r < 0.75:
        return rng.randint(0, 40)
    return min(600, max(0, 16 * rng.randint(0, 37) + rng.choice((-1, 0, 0, 1))))


def flip(data: bytes, rng) -> bytes:
    out = bytearray(data)
    out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def params():
    for scheme, (_, _, _, configs) in MODES.items():
        for aes, key_bits, knobs in configs:
            # fast tier: one configuration per mode
            fast = (aes, key_bits) == (("soft", 128) if scheme == "gcm" else ("accel", 128))
            yield pytest.param(scheme, aes, key_bits, knobs, id=f"{scheme}-{aes}-{key_bits}",
                               marks=() if fast else pytest.mark.slow)


@pytest.mark.parametrize("scheme,aes,key_bits,knobs", list(params()))
def test_against_pycryptodome(scheme, aes, key_bits, knobs):
    ref_name, nonce_lens, tag_lens, _ = MODES[scheme]
    ref = refengines.get(ref_name)
    eng = mode_engine(scheme, key_bits=key_bits, aes=aes, **knobs)
    rng = random.Random(f"{scheme}/{aes}/{key_bits}")
    for case in range(CASES):
        key = rng.randbytes(key_bits // 8)
        nonce = rng.randbytes(rng.choice(nonce_lens))
        ad, msg = rng.randbytes(length(rng)), rng.randbytes(length(rng))
        tag_len = rng.choice(tag_lens)
        assert eng.supports(len(key), len(nonce), tag_len) and ref.supports(len(key), len(nonce), tag_len)
        what = f"case {case}: nonce {len(nonce)}, ad {len(ad)}, msg {len(msg)}, tag {tag_len}"
        expected = ref.encrypt(key, nonce, ad, msg, tag_len)
        assert eng.encrypt(key, nonce, ad, msg, tag_len) == expected, what
        ct, tag = expected[:len(msg)], expected[len(msg):]
        assert eng.decrypt(key, nonce, ad, ct, tag) == msg, what
        assert eng.decrypt(key, nonce, ad, ct, flip(tag, rng)) is None, what
        if ct:
            assert eng.decrypt(key, nonce, ad, flip(ct, rng), tag) is None, what
        if ad:
            assert eng.decrypt(key, nonce, flip(ad, rng), ct, tag) is None, what


def test_rfc7253_iterated_constants():
    """The RFC 7253 Appendix A outputs used in test_aes_modes_vectors.py, recomputed with
    pycryptodome, so a typo in the table cannot pass for a spec bug (or hide one)."""
    for (key_bits, tag_bits), expected in RFC7253_ITERATED.items():
        def encrypt(key, nonce, ad, msg):
            c = AES.new(key, AES.MODE_OCB, nonce=nonce, mac_len=tag_bits // 8)
            c.update(ad)
            ct, tag = c.encrypt_and_digest(msg)
            return ct + tag
        assert rfc7253_iterated(encrypt, key_bits, tag_bits).hex().upper() == expected
