"""ChaCha20, Poly1305 and the RFC 8439 AEAD specs through the interpreter: the RFC's examples,
Wycheproof, Crypto++, and random cases against `cryptography` (refengines)."""
import random

import pytest
from cryptography.hazmat.primitives.poly1305 import Poly1305

from aedsl.engines import reference as refengines
from aedsl.engines.interp import interp_engine
from aedsl.vectors import load
from aedsl.vectors.runner import run_aead

from .stream_helpers import SPECS, differential, program

SCHEME = SPECS / "schemes/chacha20_poly1305.ae"


def le(b: bytes) -> int:
    return int.from_bytes(b, "little")


def test_chacha20_block_rfc8439_2_3_2():
    key, nonce = bytes(range(32)), bytes.fromhex("000000090000004a00000000")
    out = program("primitives/chacha20.ae").call("block", [le(key), 1, le(nonce)])[0]
    assert out.to_bytes(64, "little").hex() == (
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e")


@pytest.mark.parametrize("unroll", ["1", "full"])
def test_chacha20_stream_against_pycryptodome(unroll):
    p = program("primitives/chacha20.ae", unroll=unroll)
    rng = random.Random(8439)
    for n in (0, 1, 63, 64, 65, 127, 128, 129, 600):
        key, nonce, counter = rng.randbytes(32), rng.randbytes(12), rng.randrange(1 << 20)
        msg, out = rng.randbytes(n), [0] * n
        p.call("xor_stream", [le(key), counter, le(nonce), list(msg), out])
        assert bytes(out) == refengines.chacha20_xor(key, nonce, counter, msg)


def test_poly1305_rfc8439_2_5_2():
    key = bytes.fromhex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
    tag = program("primitives/poly1305.ae").call("mac", [le(key), list(b"Cryptographic Forum Research Group")])[0]
    assert tag.to_bytes(16, "little").hex() == "a8061dc1305136c6c22b8baf0c0127a9"


def test_poly1305_final_reduction_edges():
    """RFC 8439 Appendix A.3 #5-#6 style: r = 2 and all-ones blocks leave h just above p, so the
    final conditional subtraction of p (and only it) decides the tag."""
    p = program("primitives/poly1305.ae")
    cases = [(2, 0, b"\xff" * 16), (2, (1 << 128) - 1, b"\x02" + bytes(15)), (1, 0, b"\xff" * 16),
             (4, 0, b"\xff" * 16), (2, 0, b"\xff" * 32), (3, 5, b"\xff" * 16 + b"\xfb" + b"\xfe" * 15)]
    for r, s, msg in cases:
        key = r.to_bytes(16, "little") + s.to_bytes(16, "little")
        tag = p.call("mac", [le(key), list(msg)])[0]
        assert tag.to_bytes(16, "little") == Poly1305.generate_tag(key, msg), (r, s, msg.hex())
    # A.3 #5 by hand: h = 2 * (2^129 - 1) = p + 3.
    assert p.call("mac", [2, list(b"\xff" * 16)])[0] == 3


@pytest.mark.parametrize("unroll", ["1", "full"])
def test_poly1305_against_cryptography(unroll):
    """Random keys and lengths, plus all-ones keys and messages that push every limb to its bound."""
    p = program("primitives/poly1305.ae", unroll=unroll)
    rng = random.Random(1305)
    for case in range(120):
        key = bytes([0xFF]) * 32 if case % 4 == 0 else rng.randbytes(32)
        n = rng.randint(0, 200)
        msg = bytes([0xFF]) * n if case % 3 == 0 else rng.randbytes(n)
        tag = p.call("mac", [le(key), list(msg)])[0]
        assert tag.to_bytes(16, "little") == Poly1305.generate_tag(key, msg), (key.hex(), msg.hex())


def test_rfc8439_aead_examples():
    r = run_aead(interp_engine(SCHEME), load("rfc8439"))
    assert (r.passed, r.failed, r.skipped) == (2, 0, 0), str(r)


def test_wycheproof_chacha20_poly1305():
    """325 vectors; the 9 with a nonce other than 12 bytes (invalid for RFC 8439) are skipped."""
    r = run_aead(interp_engine(SCHEME), load("wycheproof:chacha20_poly1305"))
    assert (r.passed, r.failed, r.skipped) == (316, 0, 9), str(r)
    assert all("32/" in reason and "/12/" not in reason for reason in r.skip_reasons)


def test_cryptopp_chacha20_poly1305():
    r = run_aead(interp_engine(SCHEME), load("cryptopp:chacha20poly1305"))
    assert (r.passed, r.failed, r.skipped) == (578, 0, 0), str(r)


@pytest.mark.parametrize("unroll", ["1", "full"])
def test_aead_against_cryptography(unroll):
    e = interp_engine(SCHEME, {"unroll": unroll})
    assert e.supports(32, 12, 16) and not e.supports(32, 8, 16) and not e.supports(32, 12, 12)
    partial = differential(e, refengines.ChaCha20Poly1305(), random.Random(int(unroll == "1")),
                           40 if unroll == "1" else 10, 32, [12], [16])
    assert partial >= 5
