"""CMAC and EAX specs through the interpreter: the EAX paper and Wycheproof vectors for every key
size and the accelerator model, CMAC and EAX against pycryptodome on random inputs."""
import random

import pytest
from Crypto.Cipher import AES
from Crypto.Hash import CMAC

from aedsl.engines import reference as refengines
from aedsl.engines.interp import interp_engine
from aedsl.vectors import load
from aedsl.vectors.runner import run_aead

from tests.tiers import tiered
from .stream_helpers import SPECS, differential, program

SCHEME = SPECS / "schemes/eax.ae"
CONFIGS = [("soft", 128), ("soft", 192), ("soft", 256), ("accel", 128)]
# Wycheproof aes_eax_test.json v0.9: vectors per key size (240 in all).
WYCHEPROOF_EAX = {128: 92, 192: 74, 256: 74}


@pytest.mark.parametrize("aes,key_bits", CONFIGS)
def test_cmac_against_pycryptodome(aes, key_bits):
    p = program("primitives/cmac.ae", key_bits=key_bits, aes=aes)
    rng = random.Random(key_bits)
    for n in (0, 1, 15, 16, 17, 32, 33, 64, rng.randint(0, 200)):
        key, msg = rng.randbytes(key_bits // 8), rng.randbytes(n)
        ks = [0] * p.module.function("key_schedule").params[1].length
        p.call("key_schedule", [int.from_bytes(key, "big"), ks])
        k1, k2 = p.call("subkeys", [ks])
        tag = p.call("mac", [ks, k1, k2, list(msg)])[0]
        assert tag.to_bytes(16, "big") == CMAC.new(key, msg, ciphermod=AES).digest()
        # OMAC^t (EAX) is CMAC of the block [t] followed by the message.
        tag = p.call("omac", [ks, k1, k2, 2, list(msg)])[0]
        assert tag.to_bytes(16, "big") == CMAC.new(key, bytes(15) + b"\x02" + msg, ciphermod=AES).digest()


@pytest.mark.parametrize("aes", ["soft", "accel"])
def test_eax_paper(aes):
    r = run_aead(interp_engine(SCHEME, {"aes": aes}), load("eax-paper"))
    assert (r.passed, r.failed, r.skipped) == (12, 0, 0), str(r)


@pytest.mark.parametrize("aes", tiered(["soft", "accel"], {"soft"}, single=True))
def test_eax_shared_body(aes):
    """`body=shared` (size mode's shape): encryption and decryption as one `crypt` with a
    direction flag, OMAC^2 over the ciphertext read before (decrypting) or after (encrypting) CTR
    writes it, the tag compared a byte at a time."""
    e = interp_engine(SCHEME, {"aes": aes, "body": "shared"})
    r = run_aead(e, load("eax-paper"))
    assert (r.passed, r.failed, r.skipped) == (12, 0, 0), str(r)
    r = run_aead(e, load("wycheproof:aes_eax"))
    assert r.failed == 0 and r.passed == WYCHEPROOF_EAX[128], str(r)


@pytest.mark.parametrize("aes,key_bits", CONFIGS)
def test_wycheproof_aes_eax(aes, key_bits):
    r = run_aead(interp_engine(SCHEME, {"aes": aes, "key_bits": key_bits}), load("wycheproof:aes_eax"))
    assert r.failed == 0, str(r)
    assert r.passed == WYCHEPROOF_EAX[key_bits] and r.total == 240
    # Only the other key sizes are skipped ("key/nonce/tag = K/N/T bytes not supported ...").
    assert all(not reason.split()[2].startswith(f"{key_bits // 8}/") for reason in r.skip_reasons)


@pytest.mark.parametrize("aes,key_bits", tiered(CONFIGS, {("soft", 128), ("accel", 128)}))
def test_eax_against_reference(aes, key_bits):
    e = interp_engine(SCHEME, {"aes": aes, "key_bits": key_bits})
    assert e.supports(key_bits // 8, 0, 1) and not e.supports(key_bits // 8, 12, 17)
    count = 40 if aes == "soft" else 12
    partial = differential(e, refengines.AesEax(), random.Random(key_bits), count, key_bits // 8,
                           [0, 1, 12, 16, 17, 40], list(range(1, 17)))
    assert partial >= count // 4
