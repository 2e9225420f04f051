"""Generated code exports a scheme's key-setup stage by default (inline=auto, both targets): the
units hold `key_setup`, `encrypt_with`, `decrypt_with` and no `encrypt`/`decrypt` (the C runtime
composes those), the call policy runs inside each stage function (CCM's accelerator calls stay
inlined and scheduled), and the ARM small-flash table rule still sees OCB3's inverse cipher."""
import re

import pytest

from aedsl import chips
from aedsl.backends.armv6m import backend as arm
from aedsl.driver import compile_spec
from aedsl.frontend.elaborate import load_module
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import call_policy, inline

STAGE = ["decrypt_with", "encrypt_with", "key_setup"]
DIN = "&0x09c8"           # AESADIN of the CC430's AES128 module (base 0x09C0)


@pytest.mark.parametrize("chip", ["cc430f6137", "stm32f030"])
def test_the_stage_is_what_a_scheme_exports(chip):
    unit = compile_spec("specs/schemes/ccm.ae", chip, {})
    assert sorted(unit.entries) == STAGE and unit.kind == "aead"
    assert re.search(r"^ccm_encrypt_with:$", unit.asm, re.M)
    assert not re.search(r"^ccm_(en|de)crypt:$", unit.asm, re.M)


def _function_lines(asm: str, symbol: str) -> list[str]:
    lines = asm.splitlines()
    out = []
    for line in lines[lines.index(f"{symbol}:") + 1:]:
        if re.match(r"^[A-Za-z_]\w*:", line):
            break
        out.append(line.strip())
    return out


def test_accelerator_calls_stay_inlined_in_encrypt_with():
    unit = compile_spec("specs/schemes/ccm.ae", "cc430f6137", {"aes": "accel"})
    assert "ccm_E_encrypt_block" not in unit.asm
    body = _function_lines(unit.asm, "ccm_encrypt_with")
    assert sum(1 for line in body if line.endswith(DIN)) >= 16


def test_stage_functions_are_roots_kept_by_the_policy():
    module = load_module("specs/schemes/ccm.ae", {})
    kept = call_policy.kept_calls(module)
    assert {"key_setup", "encrypt_with", "decrypt_with"} <= kept
    out = inline.run(module, {})
    assert sorted(n for n in (f.name for f in out.functions) if n in STAGE) == STAGE
    # inline=all flattens the stage functions too, but they stay (roots), so they are exported
    flat = inline.run(module, {"inline": "all"})
    assert sorted(n for n in (f.name for f in flat.functions) if n in STAGE) == STAGE
    assert not any(op.opcode == "call" for f in flat.functions for op in walk_ops(f.body))


def test_small_flash_rotate_rule_sees_the_inverse_cipher():
    chip = chips.load("stm32f030")
    ocb3 = arm.pass_knobs(load_module("specs/schemes/ocb3.ae", {}), chip, {})
    ccm = arm.pass_knobs(load_module("specs/schemes/ccm.ae", {}), chip, {})
    assert ocb3.get("table_fusion") == "rotate" and "table_fusion" not in ccm
    assert ocb3["call_min_work"] == str(arm.CALL_MIN_WORK)


def test_call_min_work_moves_the_threshold():
    module = load_module("specs/schemes/chacha20_poly1305.ae", {})
    low = call_policy.kept_calls(module, call_policy.MIN_WORK)
    high = call_policy.kept_calls(module, arm.CALL_MIN_WORK)
    assert {"C.block", "P.block"} <= low
    assert not {"C.block", "P.block"} & high and "tag_of" in high
