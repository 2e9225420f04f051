"""XOR trees as left-deep chains (aedsl/ir/passes/xor_chains.py)."""
from __future__ import annotations

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import xor_chains
from aedsl.ir.printer import print_module

from .tv import check_equivalent


def _module(tmp_path, text: str):
    path = tmp_path / "x.ae"
    path.write_text(text)
    return pipeline.run(load_module(path, {}), {}, until="sbox_fusion")


def _xors(module, fn="f"):
    """Each xor of fn as (result name, operand names)."""
    return [(op.results[0].name, [a.name for a in op.args])
            for op in walk_ops(module.function(fn).body) if op.opcode == "xor"]


def test_a_right_nested_xor_joins_the_chain(tmp_path):
    before = _module(tmp_path, """
spec x
fn f(m: u16[4], x: u16, k: u16) -> u16 {
    for i in 0..4 {
        x = (x <<< 1) ^ (m[i] ^ k)
    }
    return x
}
""")
    after = xor_chains.run(before, {})
    (first, second) = _xors(after)
    assert second[1][1] == "k" and second[1][0] == first[0]      # (rotl ^ m[i]) ^ k
    assert len(_xors(before)) == 2 and _xors(before)[1][1][1] == _xors(before)[0][0]
    assert check_equivalent(before, after, trials=30) > 0


@pytest.mark.parametrize("body", [
    "x = ((x <<< 1) ^ 7) ^ m[i]",              # a chain already
    "x = ((x <<< 1) ^ (x >>> 3)) ^ (m[i] <<< 1)",   # a chain already (the right operand no xor)
    "t = m[i] ^ k\n        x = (x <<< 1) ^ t ^ (t >>> 2)",   # the inner xor read twice
])
def test_left_alone(tmp_path, body):
    before = _module(tmp_path, f"""
spec x
fn f(m: u16[4], x: u16, k: u16) -> u16 {{
    for i in 0..4 {{
        {body}
    }}
    return x
}}
""")
    assert print_module(xor_chains.run(before, {})) == print_module(before)


def test_wide_xor_read_as_words_is_split(tmp_path):
    text = """
spec x
fn f(m: u64[4], a: u32, b: u32, k: u64) -> (u32, u32) {
    for i in 0..4 {
        t = m[i] ^ k
        a = (a <<< 1) ^ t[63:32]
        b = (b <<< 5) ^ t[31:0]
    }
    return a, b
}
"""
    before = _module(tmp_path, text)
    after = xor_chains.run(before, {})
    assert all(w == 32 for f in after.functions for op in walk_ops(f.body) if op.opcode == "xor"
               for w in [op.results[0].width])
    assert check_equivalent(before, after, trials=30) > 0
    # a 16-bit slice of it stays as it is at the default alignment (32), and is split at 16
    half = _module(tmp_path, text.replace("t[31:0]", "t[15:0] as u32"))
    assert any(op.opcode == "xor" and op.results[0].width == 64
               for op in walk_ops(xor_chains.run(half, {}).function("f").body))
    assert not any(op.opcode == "xor" and op.results[0].width == 64
                   for op in walk_ops(xor_chains.run(half, {"word_bits": "16"}).function("f").body))
