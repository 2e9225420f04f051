"""generated/ is the compiler's output, byte for byte: every committed .S/.h pair is regenerated
from the spec and knobs its header names (chip = its directory) and compared. When the compiler
changes on purpose, run `.venv/bin/python tools/regen_generated.py` and commit generated/."""
import importlib.util

import pytest

from aedsl.backends.registry import by_name
from aedsl.driver import compile_spec

from tests.paths import ROOT
from tests.tiers import tiered

spec = importlib.util.spec_from_file_location("regen_generated", ROOT / "tools" / "regen_generated.py")
regen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(regen)

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
    hint = "; regenerate with tools/regen_generated.py"
    assert unit.asm == text, f"{asm_file.relative_to(ROOT)} differs from the compiler's output{hint}"
    assert unit.header == asm_file.with_suffix(".h").read_text(), f"{asm_file.with_suffix('.h').name} differs{hint}"
