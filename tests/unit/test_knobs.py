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


def test_opt_is_a_pass_knob_whose_size_mode_reaches_every_layer():
    """`opt` (speed | size, default speed): the inline pass's call policy, each target's table
    default, the spec's `unroll` and the runtime glue all read it."""
    from aedsl import aead_runtime
    from aedsl.backends.armv6m.backend import pass_knobs as arm_pass_knobs
    from aedsl.backends.msp430.backend import pass_knobs as msp_pass_knobs
    from aedsl.driver import size_mode_spec_knobs
    f5528, m0 = chips.load("msp430f5528"), chips.load("stm32f030")
    reg = knob_registry(f5528)
    assert reg["opt"].owner == "pass" and reg["opt"].values == ("speed", "size") and reg["opt"].default == "speed"
    with pytest.raises(KnobError, match="speed, size"):
        check_knobs(f5528, {"opt": "tiny"})
    ccm = load_module("specs/schemes/ccm.ae", {})
    # MSP430: a software-AES scheme on a 64 KB part gets the 16-bit T-tables for speed, the S-box for size
    assert msp_pass_knobs(ccm, f5528, {})["aes_tables"] == "t16x4"
    assert msp_pass_knobs(load_module("specs/schemes/ccm.ae", {}), f5528, {"opt": "size"})["table_fusion"] == "none"
    # ARM: four T-tables for speed on a large part, one table and rotations for size
    assert "table_fusion" not in arm_pass_knobs(ccm, chips.load("samd21g18"), {})
    assert arm_pass_knobs(ccm, m0, {"opt": "size"})["table_fusion"] == "rotate"
    # ... or, where no block is decrypted, the S-box alone and MixColumns on packed columns
    # (the spec knob aes_mix, which has nothing for table fusion)
    from aedsl.backends.armv6m.backend import implied_spec_knobs as arm_implied
    # and GHASH without per-key tables (gcm.ae's `ghash`; the driver keeps only knobs a spec has)
    assert arm_implied(ccm, m0, {"opt": "size"}) == {"aes_mix": "words", "ghash": "bitwise"}
    assert arm_implied(ccm, m0, {}) == {}
    assert arm_implied(ccm, m0, {"opt": "size", "table_fusion": "rotate"}) == {"ghash": "bitwise"}
    assert arm_implied(load_module("specs/schemes/ocb3.ae", {}), m0, {"opt": "size"}) == {"ghash": "bitwise"}
    words = load_module("specs/schemes/ccm.ae", {"aes_mix": "words"})
    assert arm_pass_knobs(words, m0, {"opt": "size"})["table_fusion"] == "none"
    assert arm_pass_knobs(words, m0, {"opt": "size", "table_fusion": "rotate"})["table_fusion"] == "rotate"
    # spec knobs: the most rolled `unroll`, only in size mode and only if the spec has it
    aes = load_module("specs/primitives/aes.ae", {})
    ctr = load_module("specs/schemes/ctr.ae", {})
    assert size_mode_spec_knobs(aes, {"opt": "size"}) == {"unroll": "looped"}
    assert size_mode_spec_knobs(aes, {}) == {} and size_mode_spec_knobs(ctr, {"opt": "size"}) == {}
    # ... and `body` at `shared`: encryption and decryption as one subroutine
    assert size_mode_spec_knobs(ccm, {"opt": "size"}) == {"body": "shared"}
    assert size_mode_spec_knobs(ccm, {}) == {}
    unit = compile_spec("specs/primitives/aes.ae", f5528, {"opt": "size"})
    assert unit.knobs["unroll"] == "looped" and unit.knobs["opt"] == "size"
    ctr_size = compile_spec("specs/schemes/ctr.ae", "cc430f6137", {"aes": "accel", "opt": "size"})
    assert "#define AEDSL_OPT_SIZE 1" in aead_runtime.glue_header(ctr_size, chips.load("cc430f6137"))
    ctr_speed = compile_spec("specs/schemes/ctr.ae", "cc430f6137", {"aes": "accel"})
    assert "AEDSL_OPT_SIZE" not in aead_runtime.glue_header(ctr_speed, chips.load("cc430f6137"))
