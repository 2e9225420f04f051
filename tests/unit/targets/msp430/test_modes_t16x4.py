"""AEAD modes with the 16-bit T-table AES (`aes_tables=t16x4`: word legalization at 16 bits, so
the mode's wide arithmetic reaches the selector as `addc`/`subb` carry chains), the MSP430 default
for schemes on chips with >= 32 KB of flash. Official vectors in the simulator on the CPUX
cc430f6137 and the original-CPU msp430f1611, plus a differential test of the carry chains
(full and narrow top words, carries kept in C and materialised) and of `umulh` (the high halves
of a legalized wide multiply) against the IR interpreter."""
import dataclasses
import itertools
import random

import pytest

from aedsl import chips, vectors
from aedsl.backends.msp430.backend import default_aes_tables
from aedsl.engines.sim import sim_engine
from aedsl.frontend.elaborate import load_module
from aedsl.engines.interp import interp_engine
from aedsl.vectors import runner

from tests.tiers import tiered

CHIPS = ("cc430f6137", "msp430f1611")

T16 = {"aes_tables": "t16x4"}
CASES = [("ccm", "wycheproof:aes_ccm", 40), ("ccm", "cavp:ccm:VADT128", 30),
         ("gcm", "wycheproof:aes_gcm", 40), ("ocb3", "rfc7253", None)]


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("scheme,source,limit", tiered(CASES, lambda c: c[0] == "ccm"), ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_official_vectors_t16x4(chip, scheme, source, limit):
    eng = sim_engine(f"specs/schemes/{scheme}.ae", T16, chip)
    vecs = [v for v in vectors.load(source) if eng.supports(len(v.key), len(v.nonce), len(v.tag))]
    sample = list(itertools.islice(vecs, limit)) if limit else vecs
    rep = runner.run(eng, sample)
    assert rep.failed == 0, str(rep)
    assert rep.passed == len(sample) >= 10


def test_default_is_t16x4_for_schemes_with_software_aes():
    ccm = load_module("specs/schemes/ccm.ae", {})
    for name in CHIPS:
        assert default_aes_tables(ccm, chips.load(name)) == "t16x4"
    cc430 = chips.load("cc430f6137")
    small = dataclasses.replace(cc430, flash=dataclasses.replace(cc430.flash, length=16 * 1024))
    assert default_aes_tables(ccm, small) is None
    # the block cipher alone keeps its S-box default; the accelerator and ChaCha have no S-box
    assert default_aes_tables(load_module("specs/primitives/aes.ae", {}), chips.load("cc430f6137")) is None
    assert default_aes_tables(load_module("specs/schemes/ccm.ae", {"aes": "accel"}), chips.load("cc430f6137")) is None
    assert default_aes_tables(load_module("specs/schemes/chacha20_poly1305.ae", {}), chips.load("cc430f6137")) is None


@pytest.mark.needs("msp430")
def test_default_variant_is_named_t16x4():
    eng = sim_engine("specs/schemes/ccm.ae", {}, "cc430f6137")
    assert "aes_tables-t16x4" in eng.name      # the stem: what was built, not only what was asked


# u40 = words of 16, 16, 8 bits (a narrow top word: its carry is bit 8, not C); u32 full words.
CARRY_SPEC = """spec carry16
domain key_len in {16}
domain nonce_len in {12}
domain tag_len in {16}

fn encrypt(key: bytes, nonce: bytes, ad: bytes, msg: bytes, ct: bytes, tag: bytes) {
    a = load_be(msg, 0, 5)
    b = load_be(msg, 5, 5)
    x = load_be(msg, 10, 4)
    y = load_be(msg, 14, 4)
    lt = if a < b then 1 else 0 as u8
    ge = if x >= y then 2 else 0 as u8
    store_be(ct, 0, cat(x - y, y - x, b - a, a))           // 18 bytes: len(msg)
    store_be(tag, 0, cat(a + b, a - b, x + y, (lt | ge) as u16))
}

fn decrypt(key: bytes, nonce: bytes, ad: bytes, ct: bytes, tag: bytes, msg: bytes) -> bit {
    return 1
}
"""


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("chip", CHIPS)
def test_carry_chains_match_the_interpreter(chip, tmp_path):
    path = tmp_path / "carry16.ae"
    path.write_text(CARRY_SPEC)
    sim = sim_engine(str(path), {"word_bits": "16"}, chip)
    ref = interp_engine(str(path), {})
    rng = random.Random(16)
    edge = [bytes(18), b"\xff" * 18, bytes(4) + b"\x01" + b"\xff" * 5 + bytes(3) + b"\x01" + b"\xff" * 4]
    for msg in edge + [rng.randbytes(18) for _ in range(12)]:
        args = (bytes(16), bytes(12), b"", msg, 16)
        assert sim.encrypt(*args) == ref.encrypt(*args), msg.hex()


# u32 x u32 and u24 x u24 (legalized: 16 x 16 partial products, low halves `mul`, high `umulh`)
MUL_SPEC = CARRY_SPEC.replace("spec carry16", "spec mul16").split("fn encrypt")[0] + """fn encrypt(key: bytes, nonce: bytes, ad: bytes, msg: bytes, ct: bytes, tag: bytes) {
    a = load_be(msg, 0, 4)
    b = load_be(msg, 4, 4)
    c = load_be(msg, 8, 3)
    d = load_be(msg, 11, 3)
    store_be(ct, 0, cat(a * b, c * d, (a * 0x10001) as u48, 0 as u32))
    store_be(tag, 0, cat(a * b, (c * d) as u32, a, b))
}

fn decrypt(key: bytes, nonce: bytes, ad: bytes, ct: bytes, tag: bytes, msg: bytes) -> bit {
    return 1
}
"""


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("chip", CHIPS)
def test_wide_multiply_matches_the_interpreter(chip, tmp_path):
    path = tmp_path / "mul16.ae"
    path.write_text(MUL_SPEC)
    sim = sim_engine(str(path), {"word_bits": "16"}, chip)
    ref = interp_engine(str(path), {})
    rng = random.Random(32)
    for msg in [b"\xff" * 18, bytes(18)] + [rng.randbytes(18) for _ in range(10)]:
        args = (bytes(16), bytes(12), b"", msg, 16)
        assert sim.encrypt(*args) == ref.encrypt(*args), msg.hex()


# A 256-entry byte table read by a function that is not a block cipher alone: the T-table
# default applies. `placed` only places the lookups (nothing for table fusion to make), `mixed`
# XORs each lookup into a word twice (fusion makes 16-bit tables).
FUSION_SPEC = """spec fusion_default
table s: u8[256] = [(i * 45 + 7) % 256 for i in 0..256]

fn placed(x: u32) -> u32 {
    return cat(s[x[31:24]], s[x[23:16]], s[x[15:8]], s[x[7:0]])
}

fn mixed(x: u16) -> u16 {
    a = s[x[15:8]] as u16
    b = s[x[7:0]] as u16
    return (a << 8) ^ a ^ (b << 1) ^ b
}
"""


@pytest.mark.parametrize("entry,fused", [("placed", False), ("mixed", True)])
def test_default_t16x4_is_kept_only_where_fusion_makes_tables(tmp_path, entry, fused):
    from aedsl.driver import compile_spec
    from aedsl.ir.passes.table_fusion import fused_tables
    spec = tmp_path / "fusion_default.ae"
    spec.write_text(FUSION_SPEC)
    chip = chips.load("msp430f1611")
    assert default_aes_tables(load_module(spec, {}), chip) == "t16x4"
    unit = compile_spec(spec, chip, {}, entry=entry, keep=True)
    assert bool(fused_tables(unit.module)) is fused
    # the T-table variant where its tables exist, else the S-box one (not legalized at 16 bits)
    assert ("aes_tables-t16x4" in unit.stem) is fused
    assert unit.module.knobs.get("aes_tables") == ("t16x4" if fused else None)
    # an explicit knob is always kept
    forced = compile_spec(spec, chip, {"aes_tables": "t16x4"}, entry=entry, keep=True)
    assert "aes_tables-t16x4" in forced.stem
