"""The call policy in size mode (`-k opt=size`): a callee with several call sites becomes one
subroutine whenever its inlined copies are bigger than one body plus the calls, work regardless;
so what encryption and decryption share is one body (CTR's keystream loop, CCM's MAC header).
Per-block helpers (little work, no loop over the input: table fusion needs MixColumns inlined),
and the accelerator's block function (inlined, its latency is filled by the caller's work), stay
inlined."""

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir.passes import call_policy, inline

from tests.paths import ROOT


def decisions(spec, knobs, size):
    return call_policy.decide(load_module(ROOT / "specs/schemes" / spec, knobs), size=size)


def test_shared_loops_are_one_body_in_size_mode_only():
    for spec, name in (("ctr.ae", "xor_stream"), ("ccm.ae", "mac_header")):
        assert not decisions(spec, {"aes": "accel"}, False)[name]["keep"]
        d = decisions(spec, {"aes": "accel"}, True)[name]
        assert d["keep"] and d["sites"] == 2


def test_accelerator_block_and_small_helpers_stay_inlined():
    d = decisions("ccm.ae", {"aes": "accel"}, True)
    assert d["E.encrypt_block"]["sites"] >= 4 and not d["E.encrypt_block"]["keep"]
    assert d["inc"]["sites"] >= 2 and not d["inc"]["keep"]          # in the block loop: stays inlined


def test_software_block_cipher_is_one_subroutine():
    d = decisions("ccm.ae", {"aes": "soft"}, True)
    assert d["E.encrypt_block"]["sites"] >= 2 and d["E.encrypt_block"]["keep"]
    assert d["E.mix_column"]["sites"] >= 2 and not d["E.mix_column"]["keep"]      # fused into T-tables


def test_inline_pass_reads_the_opt_knob():
    m = load_module(ROOT / "specs/schemes/ctr.ae", {"aes": "accel"})
    speed = {f.name for f in inline.run(m, {}).functions}
    size = {f.name for f in inline.run(m, {"opt": "size"}).functions}
    assert "xor_stream" not in speed and "xor_stream" in size
    assert {k.name: k for k in inline.KNOBS}["opt"].default == "speed"


def test_without_table_fusion_big_helpers_are_subroutines_too():
    """MSP430's size mode has no table fusion (S-box only): MixColumns (called from every round
    copy) is one subroutine there; a loop up to a scalar bound (OCB3's get_l) stays inlined."""
    m = load_module(ROOT / "specs/schemes/ocb3.ae", {"aes": "soft"})
    d = call_policy.decide(m, size=True, fusion=False)
    assert d["E.mix_column"]["keep"] and not d["get_l"]["keep"]
    assert not call_policy.decide(m, size=True, fusion=True)["E.mix_column"]["keep"]


def test_shared_body_is_one_subroutine_and_smaller():
    """`body=shared` (what size mode picks for CCM, GCM, OCB3, EAX): encrypt_with and decrypt_with are
    thin callers of one `crypt`, kept as a call in size mode, and the unit's code is smaller than
    the split bodies' (CCM with the accelerator on cc430f6137: 5 490 -> 4 154 B of ROM)."""
    for spec in ("ccm.ae", "gcm.ae", "ocb3.ae", "eax.ae"):
        d = decisions(spec, {"aes": "accel", "body": "shared"}, True)
        assert d["crypt"]["keep"] and d["crypt"]["sites"] == 2, spec
    from aedsl.driver import compile_spec
    code = {b: sum(compile_spec(ROOT / "specs/schemes/ccm.ae", "cc430f6137",
                                {"aes": "accel", "opt": "size", "body": b}).function_bytes.values())
            for b in ("split", "shared")}
    assert code["shared"] < 0.8 * code["split"], code


@pytest.mark.needs("stm32f030")
@pytest.mark.slow      # a whole scheme compiled; the full suite runs it
def test_chacha20_poly1305_size_mode_within_cifra():
    """Size mode on stm32f030 (seed 001's workload: 256 B message, 16 B AD, key setup included):
    ChaCha20 with its state in memory and its quarter rounds a loop over RFC 8439's index table,
    the keystream XORed a byte at a time (`unroll=looped`), and encryption and decryption one
    `crypt` (`body=shared`): 3 426 -> 2 404 B of ROM, at most Cifra's 2 688, and 54 036 -> 74 590
    cycles, at most half Cifra's 163 980."""
    from aedsl import bench
    recs = bench.bench_spec(ROOT / "specs/schemes/chacha20_poly1305.ae", "stm32f030", {"opt": "size"},
                            sizes=("256",), ad_len=16, key_setup="include", seed001=False)
    enc = next(r for r in recs if r.op == "encrypt")
    assert enc.knobs.get("unroll") == "looped" and enc.knobs.get("body") == "shared"
    assert enc.rom_bytes <= 2688 and max(r.cycles for r in recs) <= 163980 // 2


# Seed 001's Cifra on STM32F030 (encryption + decryption kept, -Os; issue 13): ROM and cycles.
CIFRA = {"ccm.ae": (2645, 200048), "eax.ae": (3071, 210087), "gcm.ae": (2885, 327313)}   # aedsl/papers.py
CIFRA_GCM_STACK_MAX = 700           # issue 13: Cifra's GCM takes 688 B


@pytest.mark.needs("stm32f030")
@pytest.mark.slow      # whole schemes compiled and measured; the full suite runs it
@pytest.mark.parametrize("spec", sorted(CIFRA))
def test_aes_modes_size_mode_within_cifra(spec):
    """Size mode on stm32f030 (256 B message, 16 B AD, key setup included): AES-128-CCM, -EAX
    and -GCM with the S-box alone and MixColumns on packed columns (aes_mix=words, no T-table), one
    `crypt` for both directions: at most Cifra's size, at most half its cycles. GCM's GHASH
    without tables (ghash=bitwise: 2 780 B, stack 692 B where Shoup's tables took 3 228 B and
    1 260 B), within 700 B of stack."""
    from aedsl import bench
    recs = bench.bench_spec(ROOT / "specs/schemes" / spec, "stm32f030", {"opt": "size"},
                            sizes=("256",), ad_len=16, key_setup="include", seed001=False)
    rom, cycles = CIFRA[spec]
    enc = next(r for r in recs if r.op == "encrypt")
    assert enc.knobs.get("aes_mix") == "words" and enc.knobs.get("body") == "shared"
    assert all(r.rom_bytes <= rom for r in recs), [r.rom_bytes for r in recs]
    assert max(r.cycles for r in recs) <= cycles / 2, [r.cycles for r in recs]
    if spec == "gcm.ae":
        assert enc.knobs.get("ghash") == "bitwise"
        assert max(r.stack_bytes for r in recs) <= CIFRA_GCM_STACK_MAX, [r.stack_bytes for r in recs]
