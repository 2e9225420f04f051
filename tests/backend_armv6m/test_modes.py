"""AEAD schemes with software AES (or ChaCha20) compiled whole for the STM32F030 and run in the
ARMv6-M simulator: deterministic samples of the official vectors, plus random differential tests
against pycryptodome. EAX and OCB3 are checked on the 64 KB-flash variant (see conftest)."""
import itertools

import pytest
from Crypto.Cipher import AES, ChaCha20_Poly1305

from aedsl import vectors
from aedsl.vectors import runner

from .conftest import aead_engine, needs_tools

CASES = [("gcm", "wycheproof:aes_gcm", 40, "stm32f030"), ("ccm", "wycheproof:aes_ccm", 40, "stm32f030"),
         ("chacha20_poly1305", "rfc8439", 10, "stm32f030"),
         ("chacha20_poly1305", "wycheproof:chacha20_poly1305", 40, "stm32f030"),
         ("eax", "eax-paper", 10, "64k"), ("ocb3", "rfc7253", 20, "64k")]


@needs_tools
@pytest.mark.parametrize("scheme,source,n,chip", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_official_vector_sample(scheme, source, n, chip):
    eng = aead_engine(f"specs/schemes/{scheme}.ae", chip)
    vecs = [v for v in vectors.load(source) if eng.supports(*v.params)]
    sample = list(itertools.islice(vecs, n))
    rep = runner.run(eng, sample)
    assert rep.failed == 0 and rep.passed == len(sample) >= 2, str(rep)


@needs_tools
def test_gcm_random_differential(rng):
    eng = aead_engine("specs/schemes/gcm.ae")
    for mlen, alen in [(0, 0), (1, 16), (17, 3), (64, 0), (33, 20)]:
        key, nonce, ad, msg = rng.randbytes(16), rng.randbytes(12), rng.randbytes(alen), rng.randbytes(mlen)
        ct, tag = AES.new(key, AES.MODE_GCM, nonce=nonce).update(ad).encrypt_and_digest(msg)
        assert eng.encrypt(key, nonce, ad, msg, 16) == ct + tag
        assert eng.decrypt(key, nonce, ad, ct, tag) == msg
        bad = bytes([tag[0] ^ 1]) + tag[1:]
        assert eng.decrypt(key, nonce, ad, ct, bad) is None


@needs_tools
def test_ccm_random_differential(rng):
    eng = aead_engine("specs/schemes/ccm.ae")
    for mlen, alen in [(0, 5), (16, 16), (31, 0)]:
        key, nonce, ad, msg = rng.randbytes(16), rng.randbytes(13), rng.randbytes(alen), rng.randbytes(mlen)
        ct, tag = AES.new(key, AES.MODE_CCM, nonce=nonce, mac_len=16).update(ad).encrypt_and_digest(msg)
        assert eng.encrypt(key, nonce, ad, msg, 16) == ct + tag
        assert eng.decrypt(key, nonce, ad, ct, tag) == msg


@needs_tools
def test_chacha20_poly1305_random_differential(rng):
    eng = aead_engine("specs/schemes/chacha20_poly1305.ae")
    for mlen, alen in [(0, 0), (15, 12), (64, 1), (100, 33)]:
        key, nonce, ad, msg = rng.randbytes(32), rng.randbytes(12), rng.randbytes(alen), rng.randbytes(mlen)
        c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        c.update(ad)
        ct, tag = c.encrypt_and_digest(msg)
        assert eng.encrypt(key, nonce, ad, msg, 16) == ct + tag
        assert eng.decrypt(key, nonce, ad, ct, tag) == msg


@needs_tools
def test_eax_ocb3_random_differential(rng):
    eax, ocb = aead_engine("specs/schemes/eax.ae", "64k"), aead_engine("specs/schemes/ocb3.ae", "64k")
    for mlen, alen in [(0, 3), (16, 0), (37, 20)]:
        key, ad, msg = rng.randbytes(16), rng.randbytes(alen), rng.randbytes(mlen)
        n16, n12 = rng.randbytes(16), rng.randbytes(12)
        ct, tag = AES.new(key, AES.MODE_EAX, nonce=n16).update(ad).encrypt_and_digest(msg)
        assert eax.encrypt(key, n16, ad, msg, 16) == ct + tag
        ct, tag = AES.new(key, AES.MODE_OCB, nonce=n12).update(ad).encrypt_and_digest(msg)
        assert ocb.encrypt(key, n12, ad, msg, 16) == ct + tag
        assert ocb.decrypt(key, n12, ad, ct, tag) == msg
