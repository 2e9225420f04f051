"""One spec file, two targets: the same specs compile for the MSP430 (CC430F6137) and the
ARMv6-M (STM32F030) with no target-specific code in the spec, and the output is deterministic."""
import re
from pathlib import Path

import pytest

from aedsl.driver import compile_spec

SPECS = [("specs/primitives/speck.ae", {"block_bits": 64, "key_bits": 128}), ("specs/primitives/aes.ae", {}),
         ("specs/schemes/ccm.ae", {})]
TARGET_WORDS = re.compile(r"\b(msp430\w*|armv6\w*|thumb|cortex\w*|stm32\w*|cc430\w*)\b", re.I)


@pytest.mark.parametrize("spec,knobs", SPECS, ids=[Path(s).stem for s, _ in SPECS])
def test_same_spec_compiles_for_both_targets(spec, knobs):
    code = "\n".join(line.split("//")[0] for line in Path(spec).read_text().splitlines())
    if "primitives" in spec:
        # no target names outside comments (schemes may name the CC430 accelerator binding, a
        # knob whose default, soft AES, is what is compiled here)
        assert TARGET_WORDS.search(code) is None
    arm = compile_spec(spec, "stm32f030", knobs)
    msp = compile_spec(spec, "cc430f6137", knobs)
    # both export the same functions (a scheme's key-setup stage when it has one)
    assert set(msp.entries) == set(arm.entries) and arm.kind == msp.kind
    assert ".thumb" in arm.asm and ".cpu cortex-m0" in arm.asm and ".syntax unified" in arm.asm
    assert ".thumb" not in msp.asm
    for name, e in arm.entries.items():
        if name not in msp.entries:
            continue
        assert [p.kind for p in e.params if p.kind in ("mem", "bytes")] == \
            [p.kind for p in msp.entries[name].params if p.kind in ("mem", "bytes")]
        assert e.code_bytes > 0


def test_output_is_deterministic(monkeypatch):
    monkeypatch.setenv("AEDSL_UNIT_CACHE", "off")      # two real compiles, not one read back
    spec, knobs = SPECS[0]
    assert compile_spec(spec, "stm32f030", knobs).asm == compile_spec(spec, "stm32f030", knobs).asm
