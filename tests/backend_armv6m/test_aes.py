"""AES-128/192/256 generated for the STM32F030 (T-tables by table fusion) and run in the ARMv6-M
simulator: FIPS-197 and a CAVP ECB sample, plus random differential tests against pycryptodome."""
import itertools

import pytest
from Crypto.Cipher import AES

from aedsl import vectors
from aedsl.backends.sim_engine import sim_engine
from aedsl.vectors import runner

from .conftest import CHIP, needs_tools

SPEC = "specs/primitives/aes.ae"
CAVP = ("ECBGFSbox", "ECBKeySbox", "ECBVarTxt", "ECBMMT")


@needs_tools
@pytest.mark.parametrize("key_bits", [128, 192, 256])
def test_aes_official_vectors(key_bits):
    eng = sim_engine(SPEC, {"key_bits": key_bits}, CHIP)
    vecs = [v for v in vectors.load("fips197") if len(v.key) * 8 == key_bits]
    for name in CAVP:
        vecs += list(itertools.islice(vectors.load(f"cavp:aes:{name}{key_bits}"), 6))
    rep = runner.run(eng, vecs)
    assert rep.failed == 0 and rep.passed == len(vecs) >= 20, str(rep)


@needs_tools
@pytest.mark.parametrize("key_bits", [128, 256])
def test_aes_random_differential(key_bits, rng):
    eng = sim_engine(SPEC, {"key_bits": key_bits}, CHIP)
    for _ in range(5):
        key, blk = rng.randbytes(key_bits // 8), rng.randbytes(16)
        ct = eng.encrypt_block(key, blk)
        assert ct == AES.new(key, AES.MODE_ECB).encrypt(blk)
        assert eng.decrypt_block(key, ct) == blk


# Cycle budgets (regression guards): AES-128 encryption measured 2034 cycles per block when pinned
# (goal: 1.5 x 1140 = 1710), key expansion 1611; AES-256 encryption 2842.
BUDGETS = {128: (2100, 1700), 256: (2950, 2800)}


@needs_tools
@pytest.mark.parametrize("key_bits", list(BUDGETS))
def test_aes_cycle_budget(key_bits, rng):
    eng = sim_engine(SPEC, {"key_bits": key_bits}, CHIP)
    eng.encrypt_block(rng.randbytes(key_bits // 8), rng.randbytes(16))
    enc, ks = BUDGETS[key_bits]
    assert 0 < eng.last.cycles <= enc
    assert 0 < eng.last_key_schedule.cycles <= ks
    # constant time in the data: the same count for another key and block
    first = eng.last.cycles
    eng.encrypt_block(rng.randbytes(key_bits // 8), rng.randbytes(16))
    assert eng.last.cycles == first
