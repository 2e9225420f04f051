"""Every subcommand turns a bad spec or knob into a caret diagnostic and exit code 2, not a traceback."""
import pytest

from aedsl.cli import main

GCM = "specs/schemes/gcm.ae"


@pytest.mark.parametrize("argv", [
    ["kat", GCM, "-k", "aes=fast", "--engine", "interp", "--vectors", "rfc7253"],
    ["ir", GCM, "-k", "aes=fast"],
    ["ir", GCM, "-k", "nope=1"],
    ["compile", GCM, "--chip", "cc430f6137", "-k", "key_bits=100", "-o", "OUT"],
])
def test_bad_knob_exits_2_with_caret(argv, capsys, tmp_path):
    argv = [str(tmp_path) if a == "OUT" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    first, source, caret = err.strip().splitlines()[-3:]
    assert first.startswith("specs/schemes/gcm.ae:") and ": error: " in first
    assert caret.strip() == "^"


def test_spec_knob_named_like_a_pass_knob_is_refused(capsys, tmp_path):
    # `-k inline=...` must not be able to mean two things (a ghash knob once shadowed word_bits)
    spec = tmp_path / "clash.ae"
    spec.write_text("spec clash\nknob inline: {a, b} = a\nfn f(x: u16) -> u16 {\n    return x ^ 1\n}\n")
    assert main(["compile", str(spec), "--chip", "cc430f6137", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "inline" in err and "share a name with a pass or backend knob" in err
