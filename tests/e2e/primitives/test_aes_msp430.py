"""AES-128/192/256 (software, specs/primitives/aes.ae) on both MSP430 CPUs in the simulator:
FIPS-197 Appendix C, the CAVP ECB MMT and GFSbox files, and random tests against pycryptodome."""
import pytest

from aedsl import vectors
from aedsl.engines import reference as refengines
from aedsl.engines.sim import sim_engine
from aedsl.vectors import runner

CHIPS = ("cc430f6137", "msp430f1611")
RNG_SEED = 0xAED5

SPEC = "specs/primitives/aes.ae"


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("key_bits", [128, 192, 256])
def test_aes_official_vectors(chip, key_bits, rng):
    eng = sim_engine(SPEC, {"key_bits": key_bits}, chip)
    vecs = [v for v in vectors.load("fips197") if len(v.key) * 8 == key_bits]
    vecs += list(vectors.load(f"cavp:aes:ECBMMT{key_bits}"))
    vecs += list(vectors.load(f"cavp:aes:ECBGFSbox{key_bits}"))
    rep = runner.run(eng, vecs)
    assert rep.failed == 0 and rep.passed >= 10, str(rep)
    ref = refengines.AesBlock()
    key, blk = rng.randbytes(key_bits // 8), rng.randbytes(16)
    assert eng.encrypt_block(key, blk) == ref.encrypt_block(key, blk)
    assert eng.decrypt_block(key, blk) == ref.decrypt_block(key, blk)
