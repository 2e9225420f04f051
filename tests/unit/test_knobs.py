"""The typed knob registry and the one knob parser."""
from __future__ import annotations

import pytest

from aedsl import chips
from aedsl.driver import check_knobs, compile_spec, knob_registry
from aedsl.frontend.elaborate import load_module
from aedsl.knobs import Knob, KnobError, parse_knobs


def test_parse_knobs():
    assert parse_knobs(["a=1", " b = x "]) == {"a": "1", "b": "x"}
    assert parse_knobs(["a=1", "a=1"]) == {"a": "1"}
    for bad in (["a"], ["=1"], ["a="], ["a=1", "a=2"]):
        with pytest.raises(KnobError):
            parse_knobs(bad)


def test_knob_check():
    k = Knob("t", "pass", ("x", "y"))
    assert k.check("x") == "x"
    with pytest.raises(KnobError, match="expected one of x, y"):
        k.check("z")
    n = Knob("n", "pass", None, minimum=1)
    assert n.check("0x10") == "16"
    for bad in ("0", "-3", "many"):
        with pytest.raises(KnobError):
            n.check(bad)


def test_registry_holds_spec_pass_and_target_knobs():
    chip = chips.load("cc430f6137")
    reg = knob_registry(chip, load_module("specs/schemes/ccm.ae", {}))
    owners = {name: k.owner for name, k in reg.items()}
    assert owners["aes"] == "spec" and reg["aes"].values == ("soft", "accel")
    assert owners["table_fusion"] == "pass" and owners["word_bits"] == "pass" and owners["inline"] == "pass"
    assert owners["aes_tables"] == "target" and owners["schedule"] == "target"
    # a 32-bit target owns neither MSP430 knob
    arm = knob_registry(chips.load("stm32f030"))
    assert "aes_tables" not in arm and "table_fusion" in arm


def test_bad_pass_and_target_values_are_refused_before_compiling():
    chip = chips.load("cc430f6137")
    with pytest.raises(KnobError, match="table_fusion='bogus'"):
        check_knobs(chip, {"table_fusion": "bogus"})
    with pytest.raises(KnobError, match="aes_tables"):
        compile_spec("specs/primitives/aes.ae", chip, {"aes_tables": "t64"})
    assert check_knobs(chip, {"key_bits": 192, "unroll_limit": "0x20"}) == {"key_bits": "192", "unroll_limit": "32"}
