"""`aedsl check | ir | compile` on bad specs and bad options: one located line (a spec error keeps
its caret) and exit 2, nothing written, never a traceback."""
from __future__ import annotations

import pytest

from .conftest import SPECS, one_line_error, run

CHIP = "cc430f6137"
SPECK = SPECS / "primitives" / "speck.ae"
AES = SPECS / "primitives" / "aes.ae"


def spec_error(err: str, path, line: int | None = None) -> str:
    """A rendered SpecError: `path:line:col: error: ...`, then the source line and a caret."""
    assert "Traceback" not in err
    head = err.strip().splitlines()[0]
    assert head.startswith(f"{path}:"), err
    if line is not None:
        assert head.startswith(f"{path}:{line}:"), err
    assert ": error: " in head
    return head


def _verbs(spec, out):
    return [["check", spec], ["ir", spec], ["compile", spec, "--chip", CHIP, "-o", out]]


@pytest.mark.parametrize("verb", ["check", "ir", "compile", "kat", "bench"])
def test_non_utf8_spec_is_located(verb, tmp_path):
    spec = tmp_path / "latin1.ae"
    spec.write_bytes(b"spec latin1\n// caf\xe9\nfn f(x: u16) -> u16 {\n    return x\n}\n")
    argv = {"check": ["check", spec], "ir": ["ir", spec],
            "compile": ["compile", spec, "--chip", CHIP, "-o", tmp_path / "out"],
            "kat": ["kat", spec, "--engine", "interp", "--vectors", "fips197"],
            "bench": ["bench", spec, "--chip", CHIP]}[verb]
    rc, _, err = run(*argv)
    assert rc == 2
    head = spec_error(err, spec, 2)
    assert head.startswith(f"{spec}:2:7:") and "not UTF-8" in head and "0xe9" in head
    assert err.strip().splitlines()[-1].strip() == "^"


@pytest.mark.parametrize("text", ["", "\n\n", "// nothing\n", "spec k\nknob n: {1, 2} = 1\nconst c = 3\n"])
def test_spec_without_functions_is_refused(text, tmp_path):
    spec = tmp_path / "empty.ae"
    spec.write_text(text)
    for argv in _verbs(spec, tmp_path / "out"):
        rc, _, err = run(*argv)
        assert rc == 2, argv
        assert "defines no functions" in spec_error(err, spec, 1)
    assert not (tmp_path / "out").exists()


RECURSIVE = """spec rec
fn f(x: u16) -> u16 {
    return g(x) ^ 1
}
fn g(x: u16) -> u16 {
    return f(x)
}
"""


def test_recursion_is_located_in_check_and_compile(tmp_path):
    spec = tmp_path / "rec.ae"
    spec.write_text(RECURSIVE)
    for argv in _verbs(spec, tmp_path / "out"):
        rc, _, err = run(*argv)
        assert rc == 2, argv
        head = spec_error(err, spec, 6)
        assert "recursive call (f -> g -> f)" in head
    assert not (tmp_path / "out").exists()


def test_direct_recursion(tmp_path):
    spec = tmp_path / "self.ae"
    spec.write_text("spec s\nfn f(x: u16) -> u16 {\n    return f(x)\n}\n")
    rc, _, err = run("check", spec)
    assert rc == 2 and "(f -> f)" in spec_error(err, spec, 3)


KNOB_COMPARED = """spec kc
knob aes: {soft, accel} = soft
knob key_bits: {128, 256} = 128
fn f(x: u16) -> u16 {
    if key_bits == accel {
        return x ^ 1
    }
    return x
}
"""


@pytest.mark.parametrize("cond, shown", [
    ("key_bits == accel", "compared with accel"),
    ("accel != key_bits", "compared with accel"),
    ("aes == 128", "compared with 128"),
    ("key_bits == 100", "compared with 100"),
])
def test_knob_compared_with_a_value_it_cannot_take(cond, shown, tmp_path):
    spec = tmp_path / "kc.ae"
    spec.write_text(KNOB_COMPARED.replace("key_bits == accel", cond))
    for argv in _verbs(spec, tmp_path / "out") + [["check", spec, "-k", "aes=accel"]]:
        rc, _, err = run(*argv)
        assert rc == 2, argv
        assert shown in spec_error(err, spec, 5)


def test_knob_compared_with_its_own_values_is_fine(tmp_path):
    spec = tmp_path / "ok.ae"
    spec.write_text(KNOB_COMPARED.replace("key_bits == accel", "(aes == accel) & (key_bits == 256)"))
    assert run("check", spec)[0] == 0
    assert run("check", spec, "-k", "aes=accel")[0] == 0


@pytest.mark.parametrize("argv, fragments", [
    (["ir", AES, "--after", "table_fusion", "-P", "table_fusion=bogus"], ["table_fusion='bogus'", "none, byte, full, rotate"]),
    (["ir", AES, "--after", "table_fusion", "-P", "nope=1"], ["unknown pass knob 'nope'"]),
    (["ir", AES, "--after", "unroll", "-P", "unroll_limit=0"], ["unroll_limit", ">= 1"]),
    (["ir", AES, "--after", "nowhere"], ["--after 'nowhere'", "no such pass"]),
    (["ir", AES, "-P", "inline=none"], ["--after"]),
    (["ir", AES, "--word-bits", "8", "--after", "legalize"], ["--word-bits"]),
])
def test_ir_pass_options_are_checked(argv, fragments):
    rc, out, err = run(*argv)
    assert rc == 2 and out == ""
    one_line_error(err, *fragments)


@pytest.mark.parametrize("knob", ["noequals", "=1", "key_bits=", "key_bits=128,key_bits=256"])
@pytest.mark.parametrize("verb", ["check", "ir", "compile", "kat", "bench"])
def test_malformed_knob_setting_is_exit_2_on_every_verb(verb, knob, tmp_path):
    knobs = ["-k", "key_bits=128", "-k", "key_bits=256"] if "," in knob else ["-k", knob]
    argv = {"check": ["check", SPECK], "ir": ["ir", SPECK],
            "compile": ["compile", SPECK, "--chip", CHIP, "-o", tmp_path],
            "kat": ["kat", SPECK, "--engine", "interp", "--vectors", "speck-paper"],
            "bench": ["bench", SPECK, "--chip", CHIP]}[verb]
    rc, _, err = run(*argv, *knobs)
    assert rc == 2
    one_line_error(err, "knob")


def test_pass_knob_value_is_checked_by_compile(tmp_path):
    rc, _, err = run("compile", SPECK, "--chip", CHIP, "-k", "inline=sometimes", "-o", tmp_path)
    assert rc == 2
    one_line_error(err, "inline='sometimes'", "auto, all, none, entries")


def test_compile_output_that_is_a_file_is_refused_before_compiling(tmp_path, monkeypatch):
    import aedsl.driver
    compiled = []
    monkeypatch.setattr(aedsl.driver, "compile_spec", lambda *a, **k: compiled.append(a))
    target = tmp_path / "taken"
    target.write_text("x")
    rc, _, err = run("compile", SPECK, "--chip", CHIP, "-o", target)
    assert rc == 2 and compiled == []
    one_line_error(err, f"-o {target}", "not a folder")
    rc, _, err = run("compile", SPECK, "--chip", CHIP, "-o", target / "sub" / "dir")
    assert rc == 2 and compiled == []
    one_line_error(err, "cannot make the folder", "not a folder")
    assert target.read_text() == "x"


def test_compile_into_a_new_nested_folder_works(tmp_path):
    out = tmp_path / "a" / "b"
    rc, stdout, err = run("compile", SPECK, "--chip", CHIP, "-o", out)
    assert rc == 0, err
    assert (out / "speck.S").exists() or any(out.glob("*.S"))


def test_unknown_chip_is_one_line(tmp_path):
    rc, _, err = run("compile", SPECK, "--chip", "z80", "-o", tmp_path)
    assert rc == 2
    one_line_error(err, "unknown chip 'z80'", "cc430f6137")
