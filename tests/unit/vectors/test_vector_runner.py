"""The runner must see every kind of wrong answer: a flipped ciphertext or tag bit, an accepted
forgery, an engine that raises; and it must count skips with their reason."""
from __future__ import annotations

import dataclasses

import pytest

from aedsl import vectors
from aedsl.engines import reference as refengines
from aedsl.vectors import runner


def _flip(b: bytes, i: int = 0) -> bytes:
    return b[:i] + bytes([b[i] ^ 1]) + b[i + 1:]


@pytest.fixture(scope="module")
def gcm():
    return vectors.load("wycheproof:aes_gcm")


def test_flipped_ciphertext_bit_is_one_failure(gcm):
    i = next(i for i, v in enumerate(gcm) if v.valid and v.ct)
    bad = list(gcm)
    bad[i] = dataclasses.replace(gcm[i], ct=_flip(gcm[i].ct))
    rep = runner.run_aead(refengines.AesGcm(), bad)
    assert (rep.passed, rep.failed, rep.skipped) == (309, 1, 6)
    assert rep.failures[0].vector_id == gcm[i].id
    assert "encrypt gave" in rep.failures[0].what and "decrypt gave None" in rep.failures[0].what
    assert str(rep).splitlines()[-1] == "309 passed, 1 failed, 6 skipped"


def test_flipped_tag_bit_is_one_failure(gcm):
    i = next(i for i, v in enumerate(gcm) if v.valid)
    bad = [dataclasses.replace(gcm[i], tag=_flip(gcm[i].tag, 15))]
    assert runner.run_aead(refengines.AesGcm(), bad).summary() == "0 passed, 1 failed"


class _AcceptsEverything(refengines.AesGcm):
    """A broken engine: its decryption never checks the tag."""
    name = "no-verify"

    def decrypt(self, key, nonce, ad, ct, tag):
        from Crypto.Cipher import AES
        return AES.new(key, AES.MODE_GCM, nonce=nonce, mac_len=len(tag)).decrypt(ct)


def test_accepted_forgery_is_a_failure(gcm):
    rep = runner.run_aead(_AcceptsEverything(), gcm)
    invalid_supported = sum(1 for v in gcm if not v.valid and len(v.nonce) > 0)
    assert rep.failed == invalid_supported == 81
    assert "invalid tag accepted" in rep.failures[0].what


class _Raises(refengines.AesGcm):
    name = "raises"

    def encrypt(self, *a):
        raise RuntimeError("boom")


def test_engine_exception_is_a_failure_not_a_crash(gcm):
    valid = [v for v in gcm if v.valid][:5]
    rep = runner.run_aead(_Raises(), valid)
    assert rep.summary() == "0 passed, 5 failed"
    assert rep.failures[0].what == "raised RuntimeError: boom"


def test_skip_reasons_are_counted():
    rep = runner.run_aead(refengines.ChaCha20Poly1305(), vectors.load("cryptopp:xchacha20poly1305"))
    assert rep.summary() == "0 passed, 0 failed, 594 skipped"
    assert dict(rep.skip_reasons) == {"key/nonce/tag = 32/24/16 bytes not supported by chacha20-poly1305": 594}


def test_failures_kept_are_bounded(gcm):
    rep = runner.run_aead(_AcceptsEverything(), gcm, keep=3)
    assert len(rep.failures) == 3 and rep.failed == 81
    assert "... and 78 more failures" in str(rep)


def test_block_runner_sees_a_flipped_bit():
    vecs = vectors.load("cavp:aes:ECBMMT128")
    bad = list(vecs)
    bad[7] = dataclasses.replace(vecs[7], ct=_flip(vecs[7].ct, len(vecs[7].ct) - 1))
    rep = runner.run_block(refengines.AesBlock(), bad)
    assert rep.summary() == "19 passed, 1 failed"
    assert rep.failures[0].what.startswith(f"block {len(vecs[7].ct) // 16 - 1}: encrypt gave")


def test_block_family_dispatch_and_skips():
    paper = vectors.load("speck-paper")
    assert runner.run_block(refengines.Speck(64), paper).summary() == "2 passed, 0 failed, 8 skipped"
    assert runner.run(refengines.get("speck"), paper).summary() == "10 passed, 0 failed"


def test_wrong_record_kind_is_an_error():
    with pytest.raises(TypeError):
        runner.run_aead(refengines.AesGcm(), vectors.load("fips197"))
