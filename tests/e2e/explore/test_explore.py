"""`aedsl explore` end to end: small sweeps in the fast tier (a block cipher with its rerun from the
cache, an AEAD scheme with a variant that cannot compile, CTR on RFC 3686, usage errors), the issue's AES sweep on
the MSP430F5528 and a dask LocalCluster in the slow one."""
import csv
import json

import pytest

from aedsl import cli
from aedsl.explore import cache as cache_mod

from tests.paths import SPECS

SPECK = str(SPECS / "primitives/speck.ae")
AES = str(SPECS / "primitives/aes.ae")
CCM = str(SPECS / "schemes/ccm.ae")


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """Results go to a fresh cache folder (the ELF build cache and the simulator cores stay):
    the cache root the command's own Cache() asks for is moved, so its default path is the one
    run."""
    monkeypatch.setattr(cache_mod, "cache_root", lambda: tmp_path / "cache-root")
    return tmp_path


def explore(capsys, *argv):
    code = cli.main(["explore", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.needs("msp430")
def test_block_cipher_sweep_and_its_rerun_from_the_cache(capsys, own_cache):
    out_csv, out_png = own_cache / "speck.csv", own_cache / "speck.png"
    argv = (SPECK, "--chip", "msp430f5528", "--sweep", "unroll=1,full", "-k", "block_bits=64", "-k", "key_bits=128",
            "--csv", str(out_csv), "--plot", str(out_png), "--jobs", "1")
    code, out, _ = explore(capsys, *argv)
    assert code == 0, out
    assert "2 variants, 2 measured, 0 failed (0 from the cache)" in out
    rows = read_csv(out_csv)
    assert [r["unroll"] for r in rows] == ["1", "full"]
    assert list(rows[0])[-6:] == ["dec_cpb", "key_schedule_cycles", "enc_nj_per_block", "enc_nj_per_byte",
                                  "pareto", "reason"]
    for r in rows:
        assert r["block_bits"] == "64" and r["verified"].endswith("passed") and "speck-paper" in r["verified"]
        assert int(r["rom_bytes"]) > 100 and float(r["enc_cpb"]) > 50 and float(r["dec_cpb"]) > 50 and not r["reason"]
        # modelled energy (aedsl.energy): the F5528's 290 uA/MHz at 3.0 V is 870 pJ per cycle; one
        # 8-byte block (SPECK-64) costs 8 x cycles/byte cycles
        assert float(r["enc_nj_per_byte"]) == pytest.approx(float(r["enc_cpb"]) * 0.87, rel=2e-3)
        assert float(r["enc_nj_per_block"]) == pytest.approx(8 * float(r["enc_nj_per_byte"]), rel=2e-3)
    # unrolling costs ROM and saves cycles: both variants are on the front
    assert int(rows[1]["rom_bytes"]) > int(rows[0]["rom_bytes"]) and float(rows[1]["enc_cpb"]) < float(rows[0]["enc_cpb"])
    assert [r["pareto"] for r in rows] == ["yes", "yes"]
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    first = out_csv.read_text()
    code, out, _ = explore(capsys, *argv)
    assert code == 0 and "(2 from the cache)" in out
    assert out_csv.read_text() == first
    # --no-cache measures again, and gets the same numbers
    code, out, _ = explore(capsys, *argv, "--no-cache")
    assert "(0 from the cache)" in out and out_csv.read_text() == first


@pytest.mark.needs("msp430")
def test_aead_sweep_lists_a_variant_that_cannot_compile(capsys, own_cache):
    code, out, _ = explore(capsys, CCM, "--chip", "msp430f1611", "--sweep", "aes=accel,soft", "--sizes", "16",
                           "--json", "--jobs", "1")
    assert code == 0
    doc = json.loads(out)
    accel, soft = doc["variants"]
    assert not accel["ok"] and accel["reason"].startswith("cannot compile:") and "accelerator" in accel["reason"]
    assert soft["ok"] and soft["pareto"] and soft["verified"].startswith("wycheproof:aes_ccm: 8 passed")
    assert list(soft["metrics"]) == ["enc_cpb_16", "dec_cpb_16", "key_setup_cycles", "enc_nj_16", "enc_nj_per_byte_16"]
    m = soft["metrics"]           # the F1611's 500 uA/MHz at 3.0 V: 1500 pJ per cycle
    assert m["enc_nj_per_byte_16"] == pytest.approx(m["enc_cpb_16"] * 1.5, rel=1e-6)
    assert m["enc_nj_16"] == pytest.approx(16 * m["enc_nj_per_byte_16"], rel=1e-6)
    assert doc["metric"] == "enc_cpb_16" and doc["papers"] == []     # seed 000 measured the CC430, not this chip


@pytest.mark.needs("msp430")
def test_ctr_variants_are_verified_on_rfc_3686(capsys, own_cache):
    """CTR has no tag: its variants run RFC 3686's vectors of their key size (a named source)."""
    code, out, _ = explore(capsys, str(SPECS / "schemes/ctr.ae"), "--chip", "cc430f6137", "-k", "aes=accel",
                           "--sweep", "schedule=none,delay_slot", "--sizes", "16", "--json", "--jobs", "1")
    assert code == 0, out
    variants = json.loads(out)["variants"]
    assert [v["knobs"]["schedule"] for v in variants] == ["none", "delay_slot"]
    assert all(v["ok"] and v["verified"] == "rfc3686:aes128: 3 passed" for v in variants), variants


@pytest.mark.needs("msp430")
def test_a_tagless_scheme_without_a_source_is_checked_by_the_interpreter(capsys, own_cache, monkeypatch):
    from aedsl.vectors import by_spec
    monkeypatch.setitem(by_spec.SPEC_SOURCES, "ctr", ())
    code, out, _ = explore(capsys, str(SPECS / "schemes/ctr.ae"), "--chip", "cc430f6137", "-k", "aes=accel",
                           "--sweep", "schedule=delay_slot", "--sizes", "16", "--json", "--jobs", "1")
    assert code == 0, out
    (v,) = json.loads(out)["variants"]
    assert v["ok"] and v["verified"] == "interpreter: 3 passed", v


@pytest.mark.needs("msp430")
def test_opt_is_sweepable_and_size_mode_is_smaller(capsys, own_cache):
    """`-k opt=speed|size` on the ROM-vs-cycles plot: both variants verified, size mode smaller."""
    code, out, _ = explore(capsys, CCM, "--chip", "cc430f6137", "-k", "aes=accel", "--sweep", "opt=speed,size",
                           "--sizes", "16", "--json", "--jobs", "1")
    assert code == 0, out
    doc = json.loads(out)
    speed, size = doc["variants"]
    assert speed["knobs"]["opt"] == "speed" and size["knobs"]["opt"] == "size"
    assert speed["ok"] and size["ok"] and "passed" in speed["verified"] and "passed" in size["verified"]
    assert size["verified"].startswith("wycheproof:aes_ccm: 8 passed")
    assert size["rom_bytes"] < speed["rom_bytes"]


def test_usage_errors_exit_2_before_any_work(capsys, own_cache):
    for argv, message in (((SPECK, "--chip", "msp430f5528"), "at least one --sweep"),
                          ((SPECK, "--chip", "msp430f5528", "--sweep", "unrol=1,full"), "unknown knob 'unrol'"),
                          ((SPECK, "--chip", "msp430f5528", "--sweep", "unroll=1,twice"), "twice"),
                          ((SPECK, "--chip", "msp430f5528", "--sweep", "unroll=1", "--plot", "x.svg"), "PNG"),
                          ((SPECK, "--chip", "msp430f5528", "--sweep", "unroll=1", "--jobs", "2", "--dask", "x"),
                           "exclude each other"),
                          (("nosuch.ae", "--chip", "msp430f5528", "--sweep", "unroll=1"), "nosuch.ae")):
        code, out, err = explore(capsys, *argv)
        assert code == 2 and message in err and "Traceback" not in err, (argv, err)
    assert not (own_cache / "cache-root").exists()


@pytest.mark.slow
@pytest.mark.needs("msp430")
def test_the_issue_aes_sweep_with_seed_003_beside_it(capsys, own_cache):
    """Every aes_tables x unroll on the MSP430F5528 (15 variants, two workers), seed 003's AES
    figures drawn beside ours; the rerun comes from the cache."""
    out_csv, out_png = own_cache / "aes.csv", own_cache / "aes.png"
    argv = (AES, "--chip", "msp430f5528", "--sweep", "aes_tables=sbox,sbox2,t16x4,t32x4,t32x1",
            "--sweep", "unroll=looped,1,full", "--csv", str(out_csv), "--plot", str(out_png), "--jobs", "2")
    code, out, _ = explore(capsys, *argv)
    assert code == 0 and "15 variants, 15 measured" in out
    for label in ("16-BIT-4T-ASM (record): 132.0", "16-BIT-4T in C: 152.0", "8-BIT-2SBOX: 194.0"):
        assert f"seed 003 (Section 5) AES-128 {label} cycles/byte, ROM not stated" in out
    rows = read_csv(out_csv)
    assert len(rows) == 15 and all(r["verified"].endswith("passed") for r in rows)
    best = min(rows, key=lambda r: float(r["enc_cpb"]))
    assert best["pareto"] == "yes" and best["aes_tables"] == "t16x4"
    smallest = min(rows, key=lambda r: int(r["rom_bytes"]))
    assert smallest["pareto"] == "yes" and (smallest["aes_tables"], smallest["unroll"]) == ("sbox", "looped")
    assert out_png.stat().st_size > 10_000
    assert cli.main(["explore", *argv]) == 0
    assert "(15 from the cache)" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.needs("msp430")
def test_dask_local_cluster_runs_the_same_tasks(capsys, own_cache):
    import distributed                   # the test extra installs dask[distributed]
    argv = (SPECK, "--chip", "msp430f1611", "--sweep", "unroll=1,full", "-k", "block_bits=32", "-k", "key_bits=64",
            "--json", "--no-cache")
    code, out, _ = explore(capsys, *argv, "--jobs", "1")
    local = json.loads(out)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as lc:
        code, out, _ = explore(capsys, *argv, "--dask", lc.scheduler_address)
    assert code == 0
    assert json.loads(out)["variants"] == local["variants"]
