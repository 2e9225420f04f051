"""NORX32-4-1 (specs/schemes/norx32_4_1.ae over specs/primitives/norx_f.ae) through the
interpreter: the 256 outputs of the designers' kat.h (as the derived LWC-format file), decryption
inverting encryption across several 48-byte blocks, and the rejection of forgeries."""
import random

import pytest

from aedsl import vectors
from aedsl.engines.interp import interp_engine
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.vectors.runner import run_aead

from tests.paths import SPECS

NORX = SPECS / "schemes" / "norx32_4_1.ae"


def _vectors():
    vecs = vectors.load("lwc:norx32-4-1")
    assert len(vecs) == 256
    return vecs


@pytest.mark.usefixtures("shared_vectors")
@pytest.mark.parametrize("unroll", ["1", "full"])
def test_norx32_4_1_all_derived_kat_vectors(unroll):
    report = run_aead(interp_engine(NORX, {"unroll": unroll}), _vectors())
    assert report.passed == 256 and report.failed == 0, str(report)


@pytest.mark.usefixtures("shared_vectors")
def test_kat_covers_multi_block_header_and_payload():
    # vector i has a header and a payload of i bytes: up to five full 48-byte blocks and every
    # partial length, including the whole-block case (an extra, padding-only block)
    lengths = {len(v.msg) for v in _vectors()}
    assert {0, 47, 48, 49, 96, 255} <= lengths


def test_norx32_4_1_decrypt_inverts_and_rejects():
    engine = interp_engine(NORX)
    rng = random.Random(3241)
    for alen, mlen in [(0, 0), (0, 1), (48, 0), (1, 48), (97, 143), (300, 300)]:
        k, n = rng.randbytes(16), rng.randbytes(16)
        ad, msg = rng.randbytes(alen), rng.randbytes(mlen)
        out = engine.encrypt(k, n, ad, msg, 16)
        ct, tag = out[:mlen], out[mlen:]
        assert engine.decrypt(k, n, ad, ct, tag) == msg
        assert engine.decrypt(k, n, ad, ct, bytes([tag[0] ^ 0x40]) + tag[1:]) is None
        if mlen:
            assert engine.decrypt(k, n, ad, ct[:-1] + bytes([ct[-1] ^ 1]), tag) is None


def test_whole_blocks_is_exactly_len_div_48():
    """The spec counts blocks with a multiplication (no 32-bit division by 48 on MSP430 yet)."""
    f = compile_module(load_module(NORX, {})).function("whole_blocks")
    rng = random.Random(48)
    xs = list(range(0, 2000)) + [(1 << 32) - d for d in range(1, 200)] + [rng.getrandbits(32) for _ in range(5000)]
    assert [f(x)[0] for x in xs] == [x // 48 for x in xs]
