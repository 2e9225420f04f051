"""The `aes_tables` strategies (seed 003's AES variants via the IR's table_fusion pass) x `unroll`
in the simulator: FIPS-197 Appendix C plus the CAVP ECB MMT file and a random block against
pycryptodome. Sampled to keep the runtime modest: every strategy rolled (key size rotating over
128/192/256), two strategies fully unrolled, the 16-bit T-tables also on the original CPU."""
import pytest

from aedsl import refengines, vectors
from aedsl.backends.sim_engine import sim_engine
from aedsl.vectors import runner

from .conftest import needs_tools

SPEC = "specs/primitives/aes.ae"
CASES = [
    ("cc430f6137", "sbox", "1", 128),
    ("cc430f6137", "sbox2", "1", 192),
    ("cc430f6137", "t16x4", "1", 256),
    ("cc430f6137", "t32x4", "1", 128),
    ("cc430f6137", "t32x1", "1", 192),
    ("cc430f6137", "t16x4", "full", 128),
    ("cc430f6137", "sbox2", "full", 256),
    ("msp430f1611", "t16x4", "1", 128),
]


@needs_tools
@pytest.mark.parametrize("chip,tables,unroll,key_bits", CASES)
def test_aes_table_variant(chip, tables, unroll, key_bits, rng):
    eng = sim_engine(SPEC, {"key_bits": key_bits, "aes_tables": tables, "unroll": unroll}, chip)
    vecs = [v for v in vectors.load("fips197") if len(v.key) * 8 == key_bits]
    vecs += list(vectors.load(f"cavp:aes:ECBMMT{key_bits}"))
    rep = runner.run(eng, vecs)
    assert rep.failed == 0 and rep.passed >= 10, str(rep)
    ref = refengines.AesBlock()
    key, blk = rng.randbytes(key_bits // 8), rng.randbytes(16)
    assert eng.encrypt_block(key, blk) == ref.encrypt_block(key, blk)
    assert eng.decrypt_block(key, blk) == ref.decrypt_block(key, blk)


def test_t16_tables_are_four_u16_tables():
    from aedsl.backends.common.driver import compile_spec
    unit = compile_spec(SPEC, "cc430f6137", {"key_bits": 128, "aes_tables": "t16x4"})
    enc = unit.asm.split("\naes_encrypt_block:\n")[1].split(".size")[0]
    used = {t for t in ("aes_tf0", "aes_tf1", "aes_tf2", "aes_tf3") if f"{t}(" in enc}
    assert len(used) == 4 and "256 x u16 (512 bytes)" in unit.asm
    assert "@r" in enc and "+," in enc          # round keys walked with @Rn+
