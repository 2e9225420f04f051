"""`aedsl kat` end to end with reference engines."""
from __future__ import annotations

import sys

from aedsl import cli
from aedsl.vectors import sources


def _run(capsys, *argv):
    rc = cli.main(["kat", *argv])
    out, err = capsys.readouterr()
    return rc, out.strip().splitlines(), err


def test_kat_named_source_with_its_reference_engine(capsys):
    rc, lines, _ = _run(capsys, "--vectors", "cavp:ccm:DVPT128", "--engine", "ref")
    assert (rc, lines[-1]) == (0, "240 passed, 0 failed")


def test_kat_file_path_with_explicit_engine_and_skips(capsys):
    path = str(sources.get("wycheproof:aes_gcm").path)
    rc, lines, _ = _run(capsys, "--vectors", path, "--engine", "ref:aes-gcm")
    assert (rc, lines[-1]) == (0, "310 passed, 0 failed, 6 skipped")
    assert "skipped 2: key/nonce/tag = 16/0/16 bytes not supported by aes-gcm" in lines


def test_kat_wrong_engine_fails_with_exit_1(capsys):
    rc, lines, _ = _run(capsys, "--vectors", "eax-paper", "--engine", "ref:aes-gcm", "--max-failures", "2")
    assert rc == 1
    assert lines[-1] == "1 passed, 11 failed"  # only the NotVerify case is (rightly) rejected
    assert lines[0].startswith("FAIL AES/EAX #1 (") and "cryptopp_eax.txt:9)" in lines[0]
    assert lines[2] == "... and 9 more failures"


def test_kat_mutated_file_reports_one_failure(capsys, tmp_path):
    text = sources.get("rfc7253").path.read_text()
    # COUNT = 1 ciphertext: flip the last hex digit of its tag
    old = "6820B3657B6F615A5725BDA0D3B4EB3A257C9AF1F8F03009"
    assert old in text
    bad = tmp_path / "ocb_bad.txt"
    bad.write_text(text.replace(old, old[:-1] + "8"))
    rc, lines, _ = _run(capsys, "--vectors", str(bad), "--engine", "ref:aes-ocb3")
    assert (rc, lines[-1]) == (1, "15 passed, 1 failed")
    assert "Count=1" in lines[0]


def test_kat_gcm_sampling_option(capsys):
    rc, lines, _ = _run(capsys, "--vectors", "cavp:gcm:decrypt256", "--engine", "ref", "--per-section", "1")
    assert (rc, lines[-1]) == (0, "525 passed, 0 failed")


def test_kat_interp_without_dsl_is_a_clear_error(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "aedsl.engines.interp", None)  # makes the import fail
    rc, _, err = _run(capsys, "spec.ae", "--vectors", "rfc7253", "--engine", "interp", "-k", "unroll=2")
    assert rc == 2 and "engine interp is not available" in err


def test_kat_interp_receives_spec_and_knobs(capsys, monkeypatch):
    import types

    from aedsl.engines import reference as refengines
    seen = {}

    def interp_engine(spec, knobs):
        seen.update(spec=spec, knobs=knobs)
        return refengines.AesOcb3()

    monkeypatch.setitem(sys.modules, "aedsl.engines.interp", types.SimpleNamespace(interp_engine=interp_engine))
    rc, lines, _ = _run(capsys, "ocb3.ae", "-k", "unroll=4", "-k", "tables=ttable",
                        "--vectors", "rfc7253", "--engine", "interp")
    assert (rc, lines[-1]) == (0, "16 passed, 0 failed")
    assert seen == {"spec": "ocb3.ae", "knobs": {"unroll": "4", "tables": "ttable"}}


def test_kat_bad_arguments(capsys):
    assert _run(capsys, "--vectors", "no-such-source", "--engine", "ref:aes")[0] == 2
    assert _run(capsys, "--vectors", "rfc7253", "--engine", "sim:msp430")[0] == 2
    assert _run(capsys, "--vectors", "rfc7253", "--engine", "ref:aes-gcm", "-k", "noequals")[0] == 2
    rc, _, err = _run(capsys, "--vectors", "fips197", "--engine", "ref:speck64")
    assert rc == 1 and "no vector ran" in err


def test_kat_list(capsys):
    rc, lines, _ = _run(capsys, "--list")
    assert rc == 0 and len(lines) == len(sources.SOURCES)
    assert any(line.startswith("cavp:gcm:decrypt128 ") for line in lines)


def test_kat_default_engine_follows_the_arguments(capsys, monkeypatch):
    """--chip means the simulator, a spec alone the interpreter, neither the reference library;
    --chip with another engine is a usage error (it would silently test nothing of ours)."""
    from aedsl.commands import kat
    from aedsl.commands.options import UsageError
    seen = []

    def fake(name, spec, knobs, chip, source=None):
        seen.append((name, spec, chip))
        raise UsageError("stop here")
    monkeypatch.setattr(kat, "make_engine", fake)
    _run(capsys, "s.ae", "--chip", "cc430f6137", "--vectors", "rfc7253")
    _run(capsys, "s.ae", "--vectors", "rfc7253")
    _run(capsys, "--vectors", "rfc7253")
    assert seen == [("sim", "s.ae", "cc430f6137"), ("interp", "s.ae", None), ("ref", None, None)]
    rc, _, err = _run(capsys, "s.ae", "--chip", "cc430f6137", "--engine", "interp", "--vectors", "rfc7253")
    assert rc == 2 and "--chip is for the sim engine" in err
