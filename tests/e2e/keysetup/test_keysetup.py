"""The key-setup stage of the scheme entry points (docs/LANGUAGE.md, "Entry-point conventions").

For every scheme, the interpreter engine that runs `key_setup` once per key and then
`encrypt_with`/`decrypt_with` must give exactly what `encrypt`/`decrypt` give (and what the
reference library gives), while running key_setup only once per key across many messages."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from aedsl.engines import reference as refengines
from aedsl.frontend.diagnostics import SpecError
from aedsl.engines import accel_model
from aedsl.engines.interp import interp_engine, key_setup_of
from aedsl.ir.interp import InterpError

from tests.paths import SPECS

SCHEMES = SPECS / "schemes"


class _AesCtr:
    """ctr.ae as an AEAD with an empty tag: the nonce is the initial counter block."""

    def encrypt(self, key, nonce, ad, msg, tag_len):
        return refengines.aes_ctr(key, nonce, msg)


# scheme, knobs, key length, nonce lengths, tag lengths, reference engine
CASES = [
    ("ctr", {}, 16, [16], [0], _AesCtr()),
    ("ctr", {"aes": "accel"}, 16, [16], [0], _AesCtr()),
    ("ccm", {}, 16, [7, 12, 13], [4, 10, 16], refengines.AesCcm()),
    ("ccm", {"key_bits": 256}, 32, [8, 13], [8, 16], refengines.AesCcm()),
    ("ccm", {"aes": "accel"}, 16, [12], [16], refengines.AesCcm()),
    ("gcm", {}, 16, [12, 1, 20], [16, 12], refengines.AesGcm()),
    ("gcm", {"ghash": "ld4", "key_bits": 192}, 24, [12, 16], [16, 4], refengines.AesGcm()),
    ("gcm", {"aes": "accel", "ghash": "ld4", "ghash_word": 32}, 16, [12], [16], refengines.AesGcm()),
    ("ocb3", {}, 16, [12, 1, 15], [16, 8], refengines.AesOcb3()),
    ("ocb3", {"l_cached": 1, "key_bits": 256}, 32, [12], [16, 12], refengines.AesOcb3()),
    ("ocb3", {"aes": "accel", "l_cached": 2}, 16, [12], [16], refengines.AesOcb3()),
    ("eax", {}, 16, [0, 12, 16, 17], [16, 1], refengines.AesEax()),
    ("eax", {"key_bits": 192}, 24, [12], [16, 5], refengines.AesEax()),
    ("eax", {"aes": "accel"}, 16, [16], [16], refengines.AesEax()),
    ("chacha20_poly1305", {}, 32, [12], [16], refengines.ChaCha20Poly1305()),
]


def _id(case):
    scheme, knobs = case[0], case[1]
    return scheme + "".join(f"-{k}={v}" for k, v in knobs.items())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_key_setup_gives_what_encrypt_gives(case):
    scheme, knobs, key_len, nonce_lens, tag_lens, ref = case
    staged = interp_engine(SCHEMES / f"{scheme}.ae", knobs)
    direct = interp_engine(SCHEMES / f"{scheme}.ae", knobs, use_key_setup=False)
    assert staged.key_setup is not None and direct.key_setup is None
    rng = random.Random(_id(case))
    keys = [rng.randbytes(key_len) for _ in range(2)]
    # Lengths chosen to cover the empty buffer, a partial block and several (also partial) blocks.
    lengths = [0, 1, 16, 23, 40, 67]
    for i, msg_len in enumerate(lengths):
        key = keys[i % 2]
        nonce = rng.randbytes(nonce_lens[i % len(nonce_lens)])
        tag_len = tag_lens[i % len(tag_lens)]
        ad = rng.randbytes(lengths[(i + 3) % len(lengths)])
        msg = rng.randbytes(msg_len)
        expected = direct.encrypt(key, nonce, ad, msg, tag_len)
        assert expected == ref.encrypt(key, nonce, ad, msg, tag_len)
        assert staged.encrypt(key, nonce, ad, msg, tag_len) == expected
        ct, tag = expected[:msg_len], expected[msg_len:]
        assert staged.decrypt(key, nonce, ad, ct, tag) == msg == direct.decrypt(key, nonce, ad, ct, tag)
        if tag_len:
            forged = bytes([tag[0] ^ 0x80]) + tag[1:]
            assert staged.decrypt(key, nonce, ad, ct, forged) is None
            assert direct.decrypt(key, nonce, ad, ct, forged) is None
    # Every encryption and decryption under two alternating keys: key_setup ran once per key.
    assert staged.key_setups == 2 and direct.key_setups == 0


def test_cache_evicts_the_least_recently_used_key():
    e = interp_engine(SCHEMES / "ctr.ae", {})
    e.cached_keys = 2
    a, b, c = bytes(16), bytes([1] * 16), bytes([2] * 16)
    out = {k: e.encrypt(k, bytes(16), b"", b"x" * 20, 0) for k in (a, b)}
    assert e.key_setups == 2
    assert e.encrypt(a, bytes(16), b"", b"x" * 20, 0) == out[a] and e.key_setups == 2
    e.encrypt(c, bytes(16), b"", b"", 0)                     # evicts b, the least recently used
    assert e.key_setups == 3
    assert e.encrypt(a, bytes(16), b"", b"x" * 20, 0) == out[a] and e.key_setups == 3
    assert e.encrypt(b, bytes(16), b"", b"x" * 20, 0) == out[b] and e.key_setups == 4


# Accelerator calls (one per block-cipher call) in key_setup and in one encrypt_with of a 16-byte
# message with a 12-byte nonce and 16 bytes of AD. Key setup: seed 000 Table 1 (CCM 0, GCM 1,
# OCB3 1 block cipher call; the accelerator's "key schedule" is a copy), EAX's subkeys + E_K([t]).
ACCEL_CALLS = [
    ("ctr", {}, 0, 1),
    ("ccm", {}, 0, 6),           # B0, the AD block, Ctr_0, the last MAC block, CTR + MAC of the block
    ("gcm", {}, 1, 2),           # H; then E_K(J0) and the block
    ("ocb3", {"l_cached": 8}, 1, 4),   # L_*; then Ktop, the block, the tag, HASH's AD block
    ("eax", {}, 4, 4),           # L, E_K([0]), E_K([1]), E_K([2]); then one per OMAC and CTR
]


@pytest.mark.parametrize("scheme,knobs,in_setup,per_message", ACCEL_CALLS, ids=[c[0] for c in ACCEL_CALLS])
def test_key_dependent_work_moves_to_key_setup(monkeypatch, scheme, knobs, in_setup, per_message):
    calls = []
    real = accel_model.run
    monkeypatch.setattr(accel_model, "run", lambda op, args: calls.append(op) or real(op, args))
    e = interp_engine(SCHEMES / f"{scheme}.ae", {"aes": "accel", **knobs})
    nonce = bytes(16) if scheme == "ctr" else bytes(range(12))
    tag_len = 0 if scheme == "ctr" else 16
    e.encrypt(bytes(16), nonce, bytes(16), bytes(16), tag_len)
    assert len(calls) == in_setup + per_message
    calls.clear()
    e.encrypt(bytes(16), nonce, bytes(16), bytes(16), tag_len)
    assert len(calls) == per_message and e.key_setups == 1


def test_state_shapes_for_a_backend():
    gcm = interp_engine(SCHEMES / "gcm.ae", {"ghash": "ld4", "ghash_word": 16})
    assert gcm.key_setup.shapes() == [("ks", 32, 44), ("tab", 144, 32)]
    ocb = interp_engine(SCHEMES / "ocb3.ae", {"aes": "accel", "l_cached": 5})
    assert ocb.key_setup.shapes() == [("ks", 128, 1), ("l", 128, 7)]
    eax = interp_engine(SCHEMES / "eax.ae", {"key_bits": 256})
    assert eax.key_setup.shapes() == [("ks", 32, 60), ("o", 128, 5)]
    assert interp_engine(SCHEMES / "chacha20_poly1305.ae").key_setup.shapes() == [("kc", 256, 1)]


def _scheme(tmp_path, body: str) -> Path:
    path = tmp_path / "toy.ae"
    path.write_text("spec toy\n" + body + """
fn encrypt(key: bytes, nonce: bytes, ad: bytes, msg: bytes, ct: bytes, tag: bytes) {
    var s: u8[2]
    key_setup(key, s)
    encrypt_with(s, nonce, ad, msg, ct, tag)
}
fn decrypt(key: bytes, nonce: bytes, ad: bytes, ct: bytes, tag: bytes, msg: bytes) -> bit {
    var s: u8[2]
    key_setup(key, s)
    return decrypt_with(s, nonce, ad, ct, tag, msg)
}
""")
    return path


SETUP = "fn key_setup(key: bytes, s: u8[2]) {\n    s[0] = load_be(key, 0, 1)\n}\n"
DECRYPT_WITH = ("fn decrypt_with(s: u8[2], nonce: bytes, ad: bytes, ct: bytes, tag: bytes, msg: bytes)"
                " -> bit {\n    return 1\n}\n")


def test_encrypt_with_may_not_write_the_state(tmp_path):
    path = _scheme(tmp_path, SETUP + DECRYPT_WITH + """
fn encrypt_with(s: u8[2], nonce: bytes, ad: bytes, msg: bytes, ct: bytes, tag: bytes) {
    s[1] = s[0] + 1
}
""")
    e = interp_engine(path)
    with pytest.raises(InterpError, match="encrypt_with wrote the key state"):
        e.encrypt(b"\x07", b"", b"", b"", 0)
    assert interp_engine(path, use_key_setup=False).encrypt(b"\x07", b"", b"", b"", 0) == b""


# encrypt/decrypt that do not call the stages, so only the convention check can object.
STANDALONE = """
fn encrypt(key: bytes, nonce: bytes, ad: bytes, msg: bytes, ct: bytes, tag: bytes) {
}
fn decrypt(key: bytes, nonce: bytes, ad: bytes, ct: bytes, tag: bytes, msg: bytes) -> bit {
    return 1
}
"""


def test_a_half_or_mismatched_key_setup_is_an_error(tmp_path):
    mismatched = tmp_path / "mismatched.ae"
    mismatched.write_text("spec mismatched\n" + SETUP + DECRYPT_WITH + STANDALONE + """
fn encrypt_with(s: u8[3], nonce: bytes, ad: bytes, msg: bytes, ct: bytes, tag: bytes) {
}
""")
    with pytest.raises(SpecError, match=r"encrypt_with must take key_setup's state \(u8\[2\]\)"):
        interp_engine(mismatched)
    with pytest.raises(SpecError):                  # the check does not depend on using the stage
        interp_engine(mismatched, use_key_setup=False)
    half = tmp_path / "half.ae"
    half.write_text("spec half\n" + SETUP + DECRYPT_WITH + STANDALONE)
    with pytest.raises(SpecError, match="must also define encrypt_with"):
        interp_engine(half)
    without = tmp_path / "without.ae"                 # no stage at all: encrypt/decrypt as before
    without.write_text("spec without\n" + STANDALONE)
    assert interp_engine(without).key_setup is None


# Grain-128AEADv2 has no key-only work: §2.2 loads the key into the NFSR and the nonce (IV) into
# the LFSR, and the first clock already mixes them (h and g read both registers); the key's later
# re-introduction is into that mixed state. A stage would only copy the key, so the spec has none.
NO_KEY_ONLY_WORK = {"grain128aeadv2.ae": "key (NFSR) and nonce (LFSR) mix from the first initialization clock"}


def test_every_scheme_has_the_key_setup_stage():
    from aedsl.frontend.elaborate import load_module
    missing = {path.name for path in sorted(SCHEMES.glob("*.ae"))
               if key_setup_of(load_module(path, {}), str(path)) is None}
    assert missing == set(NO_KEY_ONLY_WORK)


# The LWC schemes whose stage does real work (no reference library: the direct engine and the KAT
# file are the reference). scheme, key, nonce, tag bytes, LWC KAT source.
LWC_STAGED = [("romulus_n", 16, 16, 16, "lwc:romulus-n"), ("elephant_dumbo", 16, 12, 8, "lwc:elephant-dumbo"),
              ("isap_a_128a", 16, 16, 16, "lwc:isap-a-128a")]


@pytest.mark.usefixtures("shared_vectors")
@pytest.mark.parametrize("scheme,key_len,nonce_len,tag_len,source", LWC_STAGED, ids=[c[0] for c in LWC_STAGED])
def test_lwc_key_setup_gives_what_encrypt_gives(scheme, key_len, nonce_len, tag_len, source):
    from aedsl import vectors
    from aedsl.vectors.runner import run_aead
    staged = interp_engine(SCHEMES / f"{scheme}.ae")
    direct = interp_engine(SCHEMES / f"{scheme}.ae", use_key_setup=False)
    assert staged.key_setup is not None and direct.key_setup is None
    rng = random.Random(scheme)
    keys = [rng.randbytes(key_len) for _ in range(2)]
    for i, (alen, mlen) in enumerate([(0, 0), (1, 17), (33, 40), (20, 0), (0, 67)]):
        key, nonce = keys[i % 2], rng.randbytes(nonce_len)
        ad, msg = rng.randbytes(alen), rng.randbytes(mlen)
        expected = direct.encrypt(key, nonce, ad, msg, tag_len)
        assert staged.encrypt(key, nonce, ad, msg, tag_len) == expected
        ct, tag = expected[:mlen], expected[mlen:]
        assert staged.decrypt(key, nonce, ad, ct, tag) == msg
        assert staged.decrypt(key, nonce, ad, ct, bytes([tag[0] ^ 1]) + tag[1:]) is None
    assert staged.key_setups == 2
    sample = vectors.load(source)[::97]           # every message length class, through the stage
    report = run_aead(staged, sample)
    assert report.passed == len(sample) and report.failed == 0, str(report)
