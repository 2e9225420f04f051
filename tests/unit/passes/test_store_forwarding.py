"""Loads of an element just stored read the stored value (aedsl/ir/passes/store_forwarding.py):
what may write the element in between keeps the load, so does a store more than WINDOW ops
back, and the rewritten modules compute what their specs say (translation validation on random
inputs)."""
from __future__ import annotations

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import store_forwarding

from tests.paths import ROOT
from .tv import check_equivalent


def _loads(module, fn="f"):
    return sum(1 for op in walk_ops(module.function(fn).body) if op.opcode == "load")


def _module(tmp_path, text):
    path = tmp_path / "s.ae"
    path.write_text(text)
    return pipeline.run(load_module(path, {}), {"inline": "none"}, until="cse_dce")


@pytest.mark.parametrize("between, kept", [
    ("", 0),                                    # nothing in between: forwarded
    ("    x = g(s, x)\n", 1),                   # a call that is given s may write it
    ("    for i in 0..2 {\n        s[i] = s[i] ^ x\n    }\n", 1),      # a loop that writes s
    ("    s[x & 1] = x\n", 1),                  # an index that may be 0
    ("    s[1] = x\n", 0),                      # another constant index: another element
    ("    x = ((x <<< 1) ^ 3) + 7\n", 1),       # more than WINDOW ops further: held no longer
])
def test_what_may_write_the_element_keeps_the_load(tmp_path, between, kept):
    before = _module(tmp_path, f"""spec s
fn g(s: u16[2], x: u16) -> u16 {{
    s[0] = x
    return x <<< 1
}}
fn f(x: u16) -> u16 {{
    var s: u16[2]
    s[0] = x ^ 0x1234
{between}    return (s[0] <<< 5) ^ x
}}
""")
    after = store_forwarding.run(before, {})
    # every load that reads s[0] after the store, minus the forwarded one
    assert _loads(after) == _loads(before) - 1 + kept
    assert check_equivalent(before, after, trials=20, functions=["f"]) == 20


@pytest.mark.parametrize("spec, knobs", [
    ("schemes/ascon128.ae", {}),
    ("schemes/norx32_4_1.ae", {}),
    ("primitives/speck.ae", {"block_bits": "64", "key_bits": "128"}),
])
def test_specs_compute_the_same(spec, knobs):
    before = pipeline.run(load_module(ROOT / "specs" / spec, knobs), {}, until="cse_dce")
    after = store_forwarding.run(before, {})
    assert sum(_loads(after, f.name) for f in after.functions) < sum(_loads(before, f.name) for f in before.functions)
    assert check_equivalent(before, after, trials=3) > 0
