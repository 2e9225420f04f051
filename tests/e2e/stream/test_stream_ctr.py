"""AES-CTR spec (a scheme with an empty tag) through the interpreter: the RFC 3686 vectors of
cryptography_vectors and random cases against pycryptodome, counter wrap-around included.
(SP 800-38A F.5 is in no vector file here; RFC 3686 uses the same whole-block counter.)"""
import random

import pytest

from aedsl.engines import reference as refengines
from aedsl.engines.interp import interp_engine
from aedsl.vectors.nist_blocks import read_blocks
from aedsl.vectors.sources import package_dir

from .stream_helpers import SPECS

SCHEME = SPECS / "schemes/ctr.ae"
CONFIGS = [("soft", 128), ("soft", 192), ("soft", 256), ("accel", 128)]


@pytest.mark.parametrize("aes,key_bits", CONFIGS)
def test_rfc3686_vectors(aes, key_bits):
    path = package_dir("cryptography_vectors") / f"ciphers/AES/CTR/aes-{key_bits}-ctr.txt"
    e = interp_engine(SCHEME, {"aes": aes, "key_bits": key_bits})
    checked = 0
    for b in read_blocks(path):
        key, iv = bytes.fromhex(b.fields["key"]), bytes.fromhex(b.fields["iv"])
        pt, ct = bytes.fromhex(b.fields["plaintext"]), bytes.fromhex(b.fields["ciphertext"])
        assert e.encrypt(key, iv, b"", pt, 0) == ct
        assert e.decrypt(key, iv, b"", ct, b"") == pt
        checked += 1
    assert checked == 3


@pytest.mark.parametrize("aes,key_bits", CONFIGS)
def test_ctr_against_pycryptodome(aes, key_bits):
    e = interp_engine(SCHEME, {"aes": aes, "key_bits": key_bits})
    assert e.supports(key_bits // 8, 16, 0) and not e.supports(key_bits // 8, 12, 0)
    assert not e.supports(key_bits // 8, 16, 16)
    rng = random.Random(key_bits + (aes == "accel"))
    count = 40 if aes == "soft" else 12
    for case in range(count):
        key = rng.randbytes(key_bits // 8)
        # Every fourth case starts 1..3 blocks before 2^128 so the counter wraps mod 2^128.
        t1 = (b"\xff" * 15 + bytes([256 - rng.randint(1, 3)])) if case % 4 == 0 else rng.randbytes(16)
        msg = rng.randbytes(rng.randint(0, 600))
        ct = refengines.aes_ctr(key, t1, msg)
        assert e.encrypt(key, t1, b"", msg, 0) == ct
        assert e.decrypt(key, t1, b"", ct, b"") == msg
