"""Helpers of the AES-mode spec tests (GHASH, GCM, CCM, OCB3 through the interpreter); the tests of
this package import it relatively.

`AEDSL_FULL_VECTORS=1` runs the full CAVP GCM files and every RFC 7253 iterated case instead of
the default deterministic samples (see test_aes_modes_vectors.py)."""
from __future__ import annotations

import os

from aedsl import vectors
from aedsl.engines.interp import interp_engine
from aedsl.vectors.runner import run_aead

from tests.paths import SPECS
FULL = os.environ.get("AEDSL_FULL_VECTORS", "") not in ("", "0")

_engines: dict = {}


def mode_engine(scheme: str, **knobs):
    """The interpreter engine of specs/schemes/<scheme>.ae with `knobs`, built once per session."""
    key = (scheme, tuple(sorted((k, str(v)) for k, v in knobs.items())))
    if key not in _engines:
        _engines[key] = interp_engine(SPECS / "schemes" / f"{scheme}.ae", {k: str(v) for k, v in knobs.items()})
    return _engines[key]


def run_by_key_size(scheme: str, vecs: list, **knobs):
    """Run `vecs` with one engine per AES key size in them; returns the merged counts and failures."""
    passed = failed = skipped = 0
    failures: list[str] = []
    for key_len in sorted({len(v.key) for v in vecs}):
        if key_len not in (16, 24, 32):  # no AES key: the spec cannot be instantiated for it
            skipped += sum(len(v.key) == key_len for v in vecs)
            continue
        eng = mode_engine(scheme, key_bits=8 * key_len, **knobs)
        rep = run_aead(eng, [v for v in vecs if len(v.key) == key_len])
        passed, failed, skipped = passed + rep.passed, failed + rep.failed, skipped + rep.skipped
        failures += [str(f) for f in rep.failures]
    return passed, failed, skipped, failures


_vectors: dict = {}


def load_vectors(name, **options) -> list:
    """vectors.load, cached for the session (the CAVP GCM files take a moment to parse)."""
    key = (str(name), tuple(sorted(options.items())))
    if key not in _vectors:
        _vectors[key] = vectors.load(name, **options)
    return _vectors[key]


# RFC 7253 Appendix A: the iterated test's outputs (cross-checked against pycryptodome in
# test_aes_modes_differential.py::test_rfc7253_iterated_constants).
RFC7253_ITERATED = {
    (128, 128): "67E944D23256C5E0B6C61FA22FDF1EA2", (192, 128): "F673F2C3E7174AAE7BAE986CA9F29E17",
    (256, 128): "D90EB8E9C977C88B79DD793D7FFA161C", (128, 96): "77A3D8E73589158D25D01209",
    (192, 96): "05D56EAD2752C86BE6932C5E", (256, 96): "5458359AC23B0CBA9E6330DD",
    (128, 64): "192C9B7BD90BA06A", (192, 64): "0066BC6E0EF34E24", (256, 64): "7D4EA5D445501CBE",
}


def rfc7253_iterated(encrypt, key_bits, tag_bits):
    """RFC 7253 Appendix A: C = concatenated encryptions for i = 0..127, then OCB-ENCRYPT(K, N, C, "")."""
    key = bytes(key_bits // 8 - 1) + bytes([tag_bits])
    out = b""
    for i in range(128):
        s = bytes(i)
        out += encrypt(key, (3 * i + 1).to_bytes(12, "big"), s, s)
        out += encrypt(key, (3 * i + 2).to_bytes(12, "big"), b"", s)
        out += encrypt(key, (3 * i + 3).to_bytes(12, "big"), s, b"")
    return encrypt(key, (385).to_bytes(12, "big"), out, b"")
