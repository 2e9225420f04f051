"""The `aes_tables` strategies (seed 003's AES variants via the IR's table_fusion pass) x `unroll`
in the simulator: FIPS-197 Appendix C plus the CAVP ECB MMT file and a random block against
pycryptodome. Sampled to keep the runtime modest: every strategy with the round loop (key size
rotating over 128/192/256) and looped (seed 003's 8-BIT-LOOPED shape: loops inside the round), three
strategies fully unrolled (the S-box-only one at 128 and 256 bits: it must fit cc430f6137's 32 KB),
the 16-bit T-tables and the S-box also on the original CPU. tools/verify_all.py runs every
combination on cc430f6137 (docs/VERIFICATION.md)."""
import pytest

from aedsl import vectors
from aedsl.engines import reference as refengines
from aedsl.engines.sim import sim_engine
from aedsl.vectors import runner

from tests.tiers import tiered

RNG_SEED = 0xAED5

SPEC = "specs/primitives/aes.ae"
CASES = [
    ("cc430f6137", "sbox", "1", 128),
    ("cc430f6137", "sbox2", "1", 192),
    ("cc430f6137", "t16x4", "1", 256),
    ("cc430f6137", "t32x4", "1", 128),
    ("cc430f6137", "t32x1", "1", 192),
    ("cc430f6137", "t16x4", "full", 128),
    ("cc430f6137", "sbox2", "full", 256),
    ("cc430f6137", "sbox", "full", 128),
    ("cc430f6137", "sbox", "full", 256),
    ("cc430f6137", "sbox", "looped", 256),
    ("cc430f6137", "sbox2", "looped", 128),
    ("cc430f6137", "t16x4", "looped", 192),
    ("cc430f6137", "t32x4", "looped", 256),
    ("cc430f6137", "t32x1", "looped", 128),
    ("msp430f1611", "t16x4", "1", 128),
    ("msp430f1611", "sbox", "looped", 128),
]


# The fast tier: every table strategy and every unroll once, both chips; the full suite runs all.
# (unroll=full by its cheapest build, the S-box one: 4 s against t16x4's 11 s from an empty cache)
FAST = {("cc430f6137", "sbox", "1", 128), ("cc430f6137", "t16x4", "1", 256), ("cc430f6137", "t32x1", "1", 192),
        ("cc430f6137", "sbox", "full", 128), ("cc430f6137", "sbox2", "looped", 128),
        ("cc430f6137", "t32x4", "looped", 256), ("msp430f1611", "sbox", "looped", 128)}


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("chip,tables,unroll,key_bits", tiered(CASES, FAST))
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
    from aedsl.driver import compile_spec
    unit = compile_spec(SPEC, "cc430f6137", {"key_bits": 128, "aes_tables": "t16x4"})
    enc = unit.asm.split("\naes_encrypt_block:\n")[1].split(".size")[0]
    used = {t for t in ("aes_tf0", "aes_tf1", "aes_tf2", "aes_tf3") if f"{t}(" in enc}
    assert len(used) == 4 and "256 x u16 (512 bytes)" in unit.asm
    assert "@r" in enc and "+," in enc          # round keys walked with @Rn+


@pytest.mark.slow      # two AES variants compiled and run; the table variants above stay fast
def test_sbox_strategy_implies_the_plain_inverse_cipher():
    """Without table fusion there are no inverse T-tables, so aes_tables=sbox makes the plain
    inverse cipher the default (backend IMPLIED_SPEC_KNOBS); an explicit -k still wins."""
    from aedsl.driver import compile_spec
    assert compile_spec(SPEC, "cc430f6137", {"aes_tables": "sbox"}).knobs["inv_cipher"] == "plain"
    assert compile_spec(SPEC, "cc430f6137", {}).knobs["inv_cipher"] == "plain"
    assert compile_spec(SPEC, "cc430f6137", {"aes_tables": "t16x4"}).knobs["inv_cipher"] == "equivalent"
    forced = compile_spec(SPEC, "cc430f6137", {"aes_tables": "sbox", "inv_cipher": "equivalent"})
    assert forced.knobs["inv_cipher"] == "equivalent"


def test_xtime_selects_to_byte_shift_and_sign_smear():
    """xtime(a) = (a << 1) ^ ((0 - (a >> 7)) & 0x1b) becomes rla.b (shift and byte mask in one)
    plus sxt/swpb (bit 7 smeared over the byte), not a shift pair and a subtraction."""
    from aedsl.driver import compile_spec
    enc = compile_spec(SPEC, "cc430f6137", {"aes_tables": "sbox"}).asm.split("\naes_encrypt_block:\n")[1]
    enc = enc.split(".size")[0]
    assert enc.count("rla.b") >= 4 and enc.count("sxt") >= 4
    assert "rrum" not in enc and "\tsub\tr" not in enc          # (`sub #n, sp` is the frame)
