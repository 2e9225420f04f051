"""Ascon specs through the interpreter: the permutation (specs/primitives/ascon_p.ae) against the
`ascon` package's, Ascon-128 v1.2 (specs/schemes/ascon128.ae) on all 1089 LWC KAT vectors and on
random cases against the package, Ascon-AEAD128 of SP 800-232 (specs/schemes/ascon_aead128.ae) on
its 1089 KAT vectors and on random cases against a small model of the standard's mode written
here over the package's permutation (the package predates SP 800-232 and has no Ascon-AEAD128)."""
import random

import pytest
from ascon import _ascon as pyascon

from aedsl import vectors
from aedsl.engines import reference as refengines
from aedsl.engines.interp import interp_engine
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.vectors.runner import run_aead

from tests.paths import SPECS
ASCON128 = SPECS / "schemes" / "ascon128.ae"
ASCON_AEAD128 = SPECS / "schemes" / "ascon_aead128.ae"


def _lwc(name):
    vecs = vectors.load(f"lwc:{name}")
    assert len(vecs) == 1089
    return vecs


def test_permutation_matches_the_package_for_1_to_12_rounds():
    """Both forms: in place on the state (`permute`) and on the five words as values
    (`permute_words`, ISAP's re-keying)."""
    module = compile_module(load_module(SPECS / "primitives" / "ascon_p.ae", {}))
    permute, permute_words = module.function("permute"), module.function("permute_words")
    rng = random.Random(320)
    for rounds in range(1, 13):
        for _ in range(3):
            s = [rng.getrandbits(64) for _ in range(5)]
            want = list(s)
            pyascon.ascon_permutation(want, rounds)
            assert list(permute_words(*s, rounds)) == want, rounds
            permute(s, rounds)
            assert s == want, rounds


@pytest.mark.usefixtures("shared_vectors")
def test_ascon128_all_lwc_vectors():
    report = run_aead(interp_engine(ASCON128), _lwc("ascon128"))
    assert report.passed == 1089 and report.failed == 0, str(report)


@pytest.mark.usefixtures("shared_vectors")
def test_ascon_aead128_all_lwc_vectors():
    report = run_aead(interp_engine(ASCON_AEAD128), _lwc("ascon-aead128-sp800-232"))
    assert report.passed == 1089 and report.failed == 0, str(report)


def _random_cases(engine, ref_encrypt, seed: int, count: int, max_len: int = 300) -> int:
    """`count` random (key, nonce, AD, message) with lengths 0..max_len: the same ct || tag as
    the reference, decryption inverts, a flipped tag bit or ciphertext bit is rejected.
    Returns how many cases had a message that is not a whole number of 16-byte blocks."""
    rng = random.Random(seed)
    partial = 0
    for _ in range(count):
        key, nonce = rng.randbytes(16), rng.randbytes(16)
        ad, msg = rng.randbytes(rng.randint(0, max_len)), rng.randbytes(rng.randint(0, max_len))
        out = ref_encrypt(key, nonce, ad, msg)
        assert engine.encrypt(key, nonce, ad, msg, 16) == out, (len(ad), len(msg))
        ct, tag = out[:len(msg)], out[len(msg):]
        assert engine.decrypt(key, nonce, ad, ct, tag) == msg
        bad_tag = bytearray(tag)
        bad_tag[rng.randrange(16)] ^= 1 << rng.randrange(8)
        assert engine.decrypt(key, nonce, ad, ct, bytes(bad_tag)) is None
        if ct:
            bad_ct = bytearray(ct)
            bad_ct[rng.randrange(len(ct))] ^= 1 << rng.randrange(8)
            assert engine.decrypt(key, nonce, ad, bytes(bad_ct), tag) is None
        partial += bool(len(msg) % 16)
    return partial


def _ascon128_ref(key, nonce, ad, msg):
    return refengines.get("ascon128").encrypt(key, nonce, ad, msg, 16)


def test_ascon128_against_the_package():
    assert _random_cases(interp_engine(ASCON128), _ascon128_ref, 128, 25) > 0


@pytest.mark.slow
def test_ascon128_against_the_package_many():
    _random_cases(interp_engine(ASCON128), _ascon128_ref, 1280, 400)


# A model of SP 800-232 §4.1 Ascon-AEAD128 (Algorithm 3) over the package's permutation: words
# little-endian, IV 0x00001000808c0001, rate 128 bits, p[8] per block, padding byte 0x01, the
# domain-separation bit at the top of S4, the key into S2, S3 before the final p[12].
def _le(b: bytes) -> int:
    return int.from_bytes(b, "little")


def _aead128_ref(key, nonce, ad, msg):
    k0, k1 = _le(key[:8]), _le(key[8:])
    s = [0x00001000808C0001, k0, k1, _le(nonce[:8]), _le(nonce[8:])]
    pyascon.ascon_permutation(s, 12)
    s[3] ^= k0
    s[4] ^= k1

    def blocks(data):                       # the 16-byte blocks of pad(data, 128)
        padded = data + b"\x01" + bytes(15 - len(data) % 16)
        return [padded[i:i + 16] for i in range(0, len(padded), 16)]

    if ad:
        for blk in blocks(ad):
            s[0] ^= _le(blk[:8])
            s[1] ^= _le(blk[8:])
            pyascon.ascon_permutation(s, 8)
    s[4] ^= 1 << 63
    ct = b""
    pblocks = blocks(msg)
    for i, blk in enumerate(pblocks):
        s[0] ^= _le(blk[:8])
        s[1] ^= _le(blk[8:])
        ct += s[0].to_bytes(8, "little") + s[1].to_bytes(8, "little")
        if i + 1 < len(pblocks):
            pyascon.ascon_permutation(s, 8)
    s[2] ^= k0
    s[3] ^= k1
    pyascon.ascon_permutation(s, 12)
    tag = (s[3] ^ k0).to_bytes(8, "little") + (s[4] ^ k1).to_bytes(8, "little")
    return ct[:len(msg)] + tag


@pytest.mark.usefixtures("shared_vectors")
def test_the_sp800_232_model_agrees_with_the_kat_file():
    for v in _lwc("ascon-aead128-sp800-232")[::97]:
        assert _aead128_ref(v.key, v.nonce, v.ad, v.msg) == v.ct + v.tag, v.id


def test_ascon_aead128_against_the_model():
    assert _random_cases(interp_engine(ASCON_AEAD128), _aead128_ref, 232, 25) > 0


@pytest.mark.slow
def test_ascon_aead128_against_the_model_many():
    _random_cases(interp_engine(ASCON_AEAD128), _aead128_ref, 2320, 400)
