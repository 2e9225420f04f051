"""`aedsl bench`: record fields, and cycles equal to a direct harness measurement of the same call.
Small sizes only (the full benchmark is tools/benchmarks.py, outside the test suite)."""
import json

import pytest

from aedsl import aead_runtime as rt
from aedsl import bench, chips, cli
from aedsl.engines.sim import compiled, sim_engine
from aedsl.sim.harness import Buffer, Program

from tests.paths import ROOT


FIELDS = {"spec", "chip", "knobs", "op", "ad_len", "msg_len", "cycles", "cycles_per_byte", "rom_bytes", "ram_bytes",
          "stack_bytes"}
SPECK = str(ROOT / "specs/primitives/speck.ae")
CCM = str(ROOT / "specs/schemes/ccm.ae")


def run_cli(capsys, *argv):
    code = cli.main(["bench", *argv])
    out = capsys.readouterr().out
    return code, out


@pytest.mark.needs("msp430")
def test_block_cipher_records_match_the_harness(capsys):
    code, out = run_cli(capsys, SPECK, "--chip", "cc430f6137", "-k", "block_bits=64", "-k", "key_bits=128", "--json")
    assert code == 0
    recs = {r["op"]: r for r in json.loads(out)}
    assert set(recs) == {"key_schedule", "encrypt_block", "decrypt_block"}
    for r in recs.values():
        assert FIELDS <= set(r) and r["cycles"] > 0 and r["chip"] == "cc430f6137" and r["spec"] == "speck"
        assert str(r["knobs"]["block_bits"]) == "64"
    enc = recs["encrypt_block"]
    assert enc["msg_len"] == 8 and enc["cycles_per_byte"] == pytest.approx(enc["cycles"] / 8)
    # the same call made directly: SPECK's timing does not depend on the data
    eng = sim_engine(SPECK, {"block_bits": 64, "key_bits": 128}, "cc430f6137")
    eng.encrypt_block(bytes(16), bytes(8))
    assert eng.last.cycles == enc["cycles"]
    assert eng.last_key_schedule.cycles == recs["key_schedule"]["cycles"]
    unit, _ = compiled(SPECK, "cc430f6137", {"block_bits": 64, "key_bits": 128})
    assert enc["rom_bytes"] == sum(e.code_bytes for e in unit.entries.values())  # no tables in SPECK


@pytest.mark.needs("msp430")
def test_aead_records_match_the_harness_and_the_generated_code(capsys):
    code, out = run_cli(capsys, CCM, "--chip", "cc430f6137", "--sizes", "16,48", "--ad-len", "5", "--json",
                        "--key-setup", "include")
    assert code == 0
    recs = json.loads(out)
    assert [(r["op"], r["msg_len"]) for r in recs] == [("encrypt", 16), ("decrypt", 16), ("encrypt", 48), ("decrypt", 48)]
    for r in recs:
        assert FIELDS <= set(r) and r["ad_len"] == 5 and r["key_setup"] == "included" and r["via"] == "runtime API"
        assert r["cycles"] > 0 and r["cycles_per_byte"] == pytest.approx(r["cycles"] / r["msg_len"])
        assert r["rom_bytes"] > 1000 and r["ram_bytes"] == 0 and r["stack_bytes"] > 0
    # a direct call of the benchmark entry point with the same inputs
    chip = chips.load("cc430f6137")
    unit, _ = compiled(CCM, "cc430f6137", {})
    b = bench.AeadBench(unit, chip)
    msg, ad = bench._data(48, 4 + 48), bench._data(5, 3)
    r = b.program.call("aedsl_bench_encrypt", [Buffer(64, region="bench"), Buffer(msg, region="bench"), 48,
                                               Buffer(ad, region="bench"), 5, Buffer(b.nonce, region="bench"),
                                               Buffer(b.key, region="bench")])
    assert r.cycles == recs[2]["cycles"]
    # the runtime's cost on top of the generated function: positive and small, plus wiping the
    # key-setup state (a word-wise loop, < 6 cycles per byte)
    gen = sim_engine(CCM, {}, "cc430f6137")
    gen.encrypt(b.key, b.nonce, ad, msg, 16)
    state = rt.api_params(unit).state_bytes
    assert state >= 176                               # at least the AES-128 round keys
    assert 0 < recs[2]["cycles"] - gen.last.cycles < 400 + 6 * state
    # ROM counts the generated encrypt/decrypt, the tables and the API, not the bench wrappers
    sizes = Program(rt.build_with_runtime(unit, chip), chip).elf.symbol_sizes()
    gen_rom = sum(unit.function_bytes.values())      # the exported functions and their subroutines
    tables = sum(s["rom"] for n, s in sizes.items() if n.startswith("ccm_") and n not in unit.function_bytes)
    assert tables >= 256                              # at least the S-box (T-tables with aes_tables)
    # the runtime's API on top: crypto_aead_* and their helpers; not the staged API
    # (aedsl_aead_*: linked only by its own callers, aedsl/rom.py)
    assert gen_rom + tables < recs[0]["rom_bytes"] < gen_rom + tables + 1000
    staged = set(rt.STAGED_API)
    assert staged <= set(sizes)
    assert recs[0]["rom_bytes"] == sum(s["rom"] for n, s in sizes.items()
                                       if not n.startswith("aedsl_bench_") and n not in staged)


@pytest.mark.needs("msp430")
def test_ipi_is_the_weighted_mean(monkeypatch):
    calls = []

    class Fake:
        def __init__(self, cycles):
            self.cycles, self.stack_bytes, self.return_value = cycles, 10, 0

    class FakeBench:
        api = rt.ApiParams(16, 12, 16, False)
        rom_bytes, ram_bytes, regions_used = 1, 0, {"bench"}

        def __init__(self, unit, chip, max_steps):
            pass

        def encrypt(self, msg, ad, exclude):
            calls.append(len(msg))
            return Fake(10 * len(msg) + 1000), msg + bytes(16)

        def decrypt(self, ct, ad, exclude):
            return Fake(20 * (len(ct) - 16)), ct[:-16]

    monkeypatch.setattr(bench, "AeadBench", FakeBench)

    class U:
        spec_name, knobs, stem = "x", {}, "x"

    recs = bench._aead_records(U, chips.load("cc430f6137"), ("ipi",), 0, "include")
    assert calls == [44, 552, 576, 1500]
    enc = recs[0]
    want = 0.05 * (10 + 1000 / 44) + 0.15 * (10 + 1000 / 552) + 0.20 * (10 + 1000 / 576) + 0.60 * (10 + 1000 / 1500)
    assert enc.msg_len == "ipi" and enc.cycles_per_byte == pytest.approx(want)
    assert recs[1].cycles_per_byte == pytest.approx(20)


def test_bad_usage_exits_2(capsys):
    assert cli.main(["bench", SPECK, "--chip", "nosuchchip"]) == 2
    assert cli.main(["bench", SPECK, "--chip", "cc430f6137", "--sizes", "big"]) == 2


@pytest.mark.needs("stm32f030")
def test_seed001_workload_is_printed_once(capsys):
    """On an ARM chip seed 001's workload is on by default; asking for that very workload
    measures and prints each record once, labelled [seed001]."""
    spec = str(ROOT / "specs/schemes/chacha20_poly1305.ae")
    code, out = run_cli(capsys, spec, "--chip", "stm32f030", "--sizes", "256", "--ad-len", "16",
                        "--key-setup", "include")
    assert code == 0
    rows = [ln for ln in out.splitlines() if ln.startswith("chacha20_poly1305")]
    assert [ln.split()[3] for ln in rows] == ["encrypt", "decrypt"]
    assert all(ln.endswith("[seed001]") for ln in rows)
    # another workload still gets seed 001's beside it
    code, out = run_cli(capsys, spec, "--chip", "stm32f030", "--sizes", "64", "--json")
    recs = json.loads(out)
    assert [(r["msg_len"], r["workload"]) for r in recs if r["op"] in ("encrypt", "decrypt")] == \
        [(64, ""), (64, ""), (256, "seed001"), (256, "seed001")]


ASCON_P = str(ROOT / "specs/primitives/ascon_p.ae")
GRAIN = str(ROOT / "specs/schemes/grain128aeadv2.ae")


@pytest.mark.slow      # three compiles of Ascon-p and Grain (the usage-error test stays fast)
@pytest.mark.needs("msp430")
def test_one_function_alone(capsys):
    """--function: the spec compiled with that function and its callees only, called once; its
    scalar parameters from --arg. More Ascon-p rounds take more cycles in the same code."""
    code, out = run_cli(capsys, ASCON_P, "--chip", "msp430f1611", "--function", "permute", "--arg", "rounds=6", "--json")
    assert code == 0
    (six,) = json.loads(out)
    assert six["op"] == "permute" and six["cycles"] > 0 and six["rom_bytes"] > 0 and six["stack_bytes"] >= 0
    (twelve,) = bench.bench_function(ASCON_P, "msp430f1611", {}, "permute", {"rounds": 12})
    assert twelve.cycles > 1.5 * six["cycles"] and twelve.rom_bytes == six["rom_bytes"]
    # a function inside a scheme: Grain's 16-clock keystream step, without the AEAD around it
    (pogen,) = bench.bench_function(GRAIN, "msp430f1611", {}, "clock16")
    full = compiled(GRAIN, "msp430f1611", {})[0]
    assert 0 < pogen.rom_bytes < sum(full.function_bytes.values())


def test_function_usage_errors(capsys):
    assert cli.main(["bench", ASCON_P, "--chip", "msp430f1611", "--arg", "rounds=6"]) == 2
    assert cli.main(["bench", ASCON_P, "--chip", "msp430f1611", "--function", "permute", "--arg", "rounds"]) == 2
    assert cli.main(["bench", ASCON_P, "--chip", "msp430f1611", "--function", "nosuch"]) == 2
    assert cli.main(["bench", ASCON_P, "--chip", "msp430f1611", "--function", "permute", "--arg", "nosuch=1"]) == 2
