"""`aedsl kat` and `aedsl bench` on vector files of the wrong shape, vectors of the wrong kind
and bad option values: one line and exit 2, never a traceback or a silent default."""
from __future__ import annotations

import json

import pytest

from .conftest import SPECS, one_line_error, run

CHIP = "cc430f6137"
AES = SPECS / "primitives" / "aes.ae"
SPECK = SPECS / "primitives" / "speck.ae"


@pytest.mark.parametrize("doc", [
    [1, 2, 3],
    {"key": 12},
    {"testGroups": 5},
    {"testGroups": [{"tests": [{"tcId": 1}]}]},
    {"testGroups": [{"tests": [{"tcId": 1, "key": 7, "iv": "", "aad": "", "msg": "", "ct": "", "tag": "",
                                "result": "valid"}]}]},
    "just a string",
])
def test_vectors_json_of_the_wrong_shape(doc, tmp_path):
    path = tmp_path / "vectors.json"
    path.write_text(json.dumps(doc))
    rc, _, err = run("kat", AES, "--engine", "interp", "--vectors", path)
    assert rc == 2
    one_line_error(err, str(path))


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00garbage", b""])
def test_vectors_file_that_is_not_json(content, tmp_path):
    path = tmp_path / "vectors.json"
    path.write_bytes(content)
    rc, _, err = run("kat", "--engine", "ref:aes-gcm", "--vectors", path)
    assert rc == 2
    one_line_error(err, str(path))


def test_aead_vectors_to_a_block_cipher_spec():
    rc, _, err = run("kat", AES, "--vectors", "wycheproof:aes_ccm")
    assert rc == 2
    one_line_error(err, "block cipher engine", "AeadVector")


def test_block_vectors_to_an_aead_engine():
    rc, _, err = run("kat", "--engine", "ref:aes-gcm", "--vectors", "fips197")
    assert rc == 2
    one_line_error(err, "AEAD engine", "BlockVector")


@pytest.mark.parametrize("args, fragment", [
    (["--chip", ""], "unknown chip ''"),
    (["--chip", "z80"], "unknown chip 'z80'"),
    (["--per-section", "-1"], "--per-section"),
    (["--per-section", "0"], "--per-section"),
    (["--tag-len", "0"], "--tag-len"),
    (["--max-failures", "-3"], "--max-failures"),
    (["--engine", "ref:nope"], "no reference engine 'nope'"),
    (["--engine", "warp"], "unknown engine 'warp'"),
])
def test_kat_option_values(args, fragment):
    rc, _, err = run("kat", "--vectors", "cavp:gcm:encrypt128", *args)
    assert rc == 2
    one_line_error(err, fragment)


def test_kat_missing_vector_file(tmp_path):
    rc, _, err = run("kat", "--engine", "ref:aes-gcm", "--vectors", tmp_path / "none.json")
    assert rc == 2
    one_line_error(err, "none.json")


@pytest.mark.parametrize("args, fragment", [
    (["--sweep", "0"], "--sweep"),
    (["--sweep", "-1"], "--sweep"),
    (["--sizes", ""], "--sizes"),
    (["--sizes", " , "], "--sizes"),
    (["--sizes", "16,,32"], "--sizes"),
    (["--sizes", "99999999"], "--sizes"),
    (["--ad-len", "-1"], "--ad-len"),
    (["--chip", ""], "unknown chip"),
])
def test_bench_option_values(args, fragment, monkeypatch):
    import aedsl.bench
    ran = []
    monkeypatch.setattr(aedsl.bench, "bench_spec", lambda *a, **k: ran.append(a) or [])
    argv = ["bench", SPECK, "--chip", CHIP, *args] if "--chip" not in args else ["bench", SPECK, *args]
    rc, _, err = run(*argv)
    assert rc == 2 and ran == []
    one_line_error(err, fragment)


def test_bench_spec_that_is_not_a_cipher(tmp_path):
    spec = tmp_path / "plain.ae"
    spec.write_text("spec plain\nfn twice(x: u16) -> u16 {\n    return x + x\n}\n")
    rc, _, err = run("bench", spec, "--chip", CHIP)
    assert rc == 2
    one_line_error(err, str(spec), "neither a block cipher nor an AEAD scheme")


def test_no_command_and_bad_option_are_one_line():
    for argv in ([], ["frobnicate"], ["check"], ["sim", "x.elf"]):
        rc, _, err = run(*argv)
        assert rc == 2
        one_line_error(err, "aedsl", "--help")
    rc, out, _ = run("--help")
    assert rc == 0 and "usage" in out
