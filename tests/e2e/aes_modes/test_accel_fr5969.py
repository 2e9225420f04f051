"""CCM, GCM, EAX and OCB3 with the MSP430FR5969's AES256 module (`aes=accel`) at 128-, 192- and
256-bit keys, compiled for msp430fr5969 and run in the simulator on official vectors; CCM and EAX
also with `aes_chain=software` (no AESAXDIN). A read of AESADOUT or a write to the module while
it is BUSY, or an AESAXDIN write with no state to XOR into, is a SimError, so a passing run also
shows the removed waits and the chained starts were sound.

OCB3 has no official vectors with 192- or 256-bit keys in the vector packages; RFC 7253 Appendix
A's iterated check covers them: 128 messages of lengths 0..127 (each encrypted three ways) and one
over their concatenation, whose tag the RFC lists for every key length and tag length. That last
AD (22 KB) does not fit the FR5969's 8 KB benchmark hole below its FRAM, so the check runs on a
copy of the chip file (given by path) whose FRAM starts at 0xA000: the same module and core."""
import itertools

import pytest

from aedsl import vectors
from aedsl.engines.sim import sim_engine
from aedsl.vectors import runner

from tests.tiers import tiered

CHIP = "msp430fr5969"
KEYS = (128, 192, 256)
CASES = [(scheme, source, bits, chain) for bits in KEYS
         for scheme, source in (("ccm", f"cavp:ccm:VADT{bits}"), ("gcm", "wycheproof:aes_gcm"),
                                ("eax", "wycheproof:aes_eax"))
         for chain in ("xor_in", "software") if chain == "xor_in" or scheme != "gcm"]
CASES += [("ocb3", "rfc7253", 128, "xor_in")]
FAST = {("ccm", "cavp:ccm:VADT256", 256, "xor_in")}


def engine(scheme, bits, chain="xor_in"):
    return sim_engine(f"specs/schemes/{scheme}.ae", {"aes": "accel", "key_bits": bits, "aes_chain": chain}, CHIP)


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("scheme,source,bits,chain", tiered(CASES, FAST),
                         ids=[f"{c[0]}-{c[2]}-{c[3]}" for c in CASES])
def test_official_vectors(scheme, source, bits, chain):
    eng = engine(scheme, bits, chain)
    vecs = [v for v in vectors.load(source) if len(v.key) == bits // 8
            and eng.supports(len(v.key), len(v.nonce), len(v.tag))]
    sample = list(itertools.islice(vecs, 40))
    rep = runner.run(eng, sample)
    assert rep.failed == 0, str(rep)
    assert rep.passed == len(sample) >= 10


# RFC 7253 Appendix A: AEAD_AES_<KEYLEN>_OCB_TAGLEN128, the output of the iterated check.
RFC7253_ITERATED = {128: "67E944D23256C5E0B6C61FA22FDF1EA2", 192: "F673F2C3E7174AAE7BAE986CA9F29E17",
                    256: "D90EB8E9C977C88B79DD793D7FFA161C"}


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("bits", tiered(KEYS, set(), single=True))
def test_ocb3_rfc7253_iterated(bits, tmp_path):
    from aedsl import chips
    text = chips.path_of(CHIP).read_text()
    assert "flash = { origin = 0x4400, length = 0xFC00 }" in text
    chip_file = tmp_path / "fr5969_high_fram.toml"
    chip_file.write_text(text.replace("flash = { origin = 0x4400, length = 0xFC00 }",
                                      "flash = { origin = 0xA000, length = 0xA000 }"))
    eng = sim_engine("specs/schemes/ocb3.ae", {"aes": "accel", "key_bits": bits}, str(chip_file))
    key = bytes(bits // 8 - 1) + bytes([128])            # zeros(KEYLEN-8) || num2str(TAGLEN, 8)
    c = b""
    for i in range(128):
        s = bytes(i)
        c += eng.encrypt(key, (3 * i + 1).to_bytes(12, "big"), s, s, 16)
        c += eng.encrypt(key, (3 * i + 2).to_bytes(12, "big"), b"", s, 16)
        c += eng.encrypt(key, (3 * i + 3).to_bytes(12, "big"), s, b"", 16)
    out = eng.encrypt(key, (385).to_bytes(12, "big"), c, b"", 16)
    assert out.hex().upper() == RFC7253_ITERATED[bits]


def test_aesaxdin_is_written_only_with_xor_in():
    """CCM's header CBC-MAC chains through AESAXDIN (0x09CC) by default, not with aes_chain=software."""
    from aedsl.driver import compile_spec
    for chain in ("xor_in", "software"):
        unit = compile_spec("specs/schemes/ccm.ae", CHIP, {"aes": "accel", "aes_chain": chain})
        assert ("&0x09cc" in unit.asm) == (chain == "xor_in")


@pytest.mark.needs("msp430")
@pytest.mark.slow
def test_aesaxdin_chaining_gains():
    """With 64 bytes of AD, CCM encryption takes fewer cycles chained than with the XOR in software."""
    from aedsl.bench import bench_spec
    cyc = {}
    for chain in ("xor_in", "software"):
        rec = [r for r in bench_spec("specs/schemes/ccm.ae", CHIP, {"aes": "accel", "aes_chain": chain},
                                     sizes=("16",), ad_len=64) if r.op == "encrypt"][0]
        cyc[chain] = rec.cycles
    assert cyc["xor_in"] < cyc["software"]


def test_aes128_module_refuses_longer_keys():
    from aedsl.codegen.select_base import SelectError
    from aedsl.driver import compile_spec
    with pytest.raises(SelectError, match="AES-256: the cc430f6137 AES module takes 128-bit keys only"):
        compile_spec("specs/schemes/ccm.ae", "cc430f6137", {"aes": "accel", "key_bits": 256})
