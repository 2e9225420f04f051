"""generated/ is the compiler's output, byte for byte: every committed .S/.h pair is regenerated
from the spec and knobs its header names (chip = its directory) and compared. When the compiler
changes on purpose, run `aedsl generate` and commit generated/. `aedsl generate --check` itself is
tested here too: on a few variants in the fast tier, on all of them in the slow one (the same run CI
makes)."""
import pytest

from aedsl import cli
from aedsl.backends.registry import by_name
from aedsl.commands import generate as regen
from aedsl.driver import compile_spec

from tests.paths import ROOT
from tests.tiers import tiered

FILES = sorted((ROOT / "generated").glob("*/*/*.S"))
# The fast tier regenerates the first file of each chip; the slow tier every file.
FAST = {min(f for f in FILES if f.parent == d) for d in {f.parent for f in FILES}}


def test_generated_is_not_empty():
    targets = {f.parent.parent.name for f in FILES}
    assert "msp430" in targets and len(FILES) >= 6


@pytest.mark.parametrize("asm_file", tiered(FILES, FAST, single=True), ids=[f"{f.parent.name}/{f.stem}" for f in FILES])
def test_regenerates_identically(asm_file):
    target, chip = asm_file.parent.parent.name, asm_file.parent.name
    assert by_name(target).name == target        # generated/<target>/<chip>/
    text = asm_file.read_text()
    spec_name, knobs = regen.header_info(text)
    unit = compile_spec(regen.spec_path(spec_name), chip, knobs)
    assert unit.stem == asm_file.stem
    hint = "; regenerate with `aedsl generate`"
    assert unit.asm == text, f"{asm_file.relative_to(ROOT)} differs from the compiler's output{hint}"
    assert unit.header == asm_file.with_suffix(".h").read_text(), f"{asm_file.with_suffix('.h').name} differs{hint}"


@pytest.mark.needs("msp430", "armv6m")
@pytest.mark.parametrize("argv", tiered([("--chip", "msp430f1611", "--spec", "speck", "--spec", "ccm"),
                                         ("--jobs", "2")], lambda a: "--chip" in a, single=True),
                         ids=["two-specs-one-chip", "all"])
def test_generate_check_passes(capsys, argv):
    assert cli.main(["generate", "--check", "--out", str(ROOT / "generated"), *argv]) == 0
    out = capsys.readouterr().out
    assert "DIFFERS" not in out and "stale" not in out and out.count("check ") >= 3


def test_generate_check_reports_a_difference(tmp_path, capsys):
    """A changed file and a missing one each make --check exit 1 and are named."""
    d = tmp_path / "msp430" / "msp430f1611"
    assert cli.main(["generate", "--out", str(tmp_path), "--chip", "msp430f1611", "--spec", "speck"]) == 0
    files = sorted(d.glob("*.S"))
    assert len(files) == 2 and all(f.stem.startswith("speck_block_bits-") for f in files)
    assert cli.main(["generate", "--check", "--out", str(tmp_path), "--chip", "msp430f1611", "--spec", "speck"]) == 0
    files[0].write_text(files[0].read_text() + "; edited\n")
    files[1].with_suffix(".h").unlink()
    capsys.readouterr()
    assert cli.main(["generate", "--check", "--out", str(tmp_path), "--chip", "msp430f1611", "--spec", "speck"]) == 1
    out = capsys.readouterr().out
    assert f"DIFFERS {files[0]}" in out and f"DIFFERS {files[1].with_suffix('.h')}" in out


def test_generate_usage_errors(tmp_path, capsys):
    assert cli.main(["generate", "--check", "--out", str(tmp_path / "none")]) == 2
    assert cli.main(["generate", "--out", str(tmp_path), "--spec", "nosuchspec"]) == 2
    err = capsys.readouterr().err
    assert "is not a folder" in err and "no spec nosuchspec" in err
