"""Rolled loops whose carried bits move unchanged (aedsl/ir/passes/unroll_moves.py)."""
from __future__ import annotations

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import unroll_moves

from .tv import check_equivalent

ROWS = """
spec x
fn f(t: u64, out: u32[8]) -> u64 {
    for i in 0..8 {
        out[i] = t[63:32]
        t = cat((t[31:0] <<< 8) ^ 0x01010101, t[63:32])
    }
    return t
}
"""


def _module(tmp_path, text: str, until: str = "inline"):
    path = tmp_path / "x.ae"
    path.write_text(text)
    return pipeline.run(load_module(path, {}), {}, until=until)


def _factors(module) -> list[int]:
    return [op.attrs.get("unroll", 1) for op in walk_ops(module.function("f").body)
            if op.opcode == "for"]


def test_a_half_moved_down_unrolls_by_two_and_keeps_the_results(tmp_path):
    before = _module(tmp_path, ROWS)
    after = unroll_moves.run(before, {})
    assert _factors(before) == [1] and _factors(after) == [2]
    unrolled = pipeline.run(after, {}, until="unroll", skip=frozenset({"inline", "unroll_moves"}))
    assert check_equivalent(before, unrolled, trials=20) > 0


@pytest.mark.parametrize("knobs", [{"unroll_moves": "off"}, {"opt": "size"}])
def test_off_and_in_size_mode(tmp_path, knobs):
    before = _module(tmp_path, ROWS)
    assert _factors(unroll_moves.run(before, knobs)) == [1]
    assert not unroll_moves.acts(knobs)


@pytest.mark.parametrize("loop,factor", [
    ("a, b, c = b, c, (a <<< 1) ^ c", 3),     # c -> b -> a: a bit in three places in a row
    ("a, b, c = c ^ b, a, b", 3),             # a -> b -> c
    ("a, b, c = b, a, c ^ a", 2),             # a <-> b: a cycle of two
    ("a, b, c = b, c, a", 3),                 # a cycle of three (nothing computed: renamings only)
    ("a, b, c = a ^ c, b <<< 1, c + 1", 1),   # nothing moves
    ("a, b, c = a ^ 5, b ^ 1, cat(c[15:8], a[7:0])", 1),   # 8 bits move: fewer than MIN_MOVED_BITS
])
def test_factor_is_the_number_of_places_a_bit_moves_through(tmp_path, loop, factor):
    before = _module(tmp_path, f"""
spec x
fn f(a: u16, b: u16, c: u16) -> u16 {{
    for i in 0..12 {{
        {loop}
    }}
    return a ^ b ^ c
}}
""")
    after = unroll_moves.run(before, {})
    assert _factors(after) == [factor]
    unrolled = pipeline.run(after, {}, until="unroll", skip=frozenset({"inline", "unroll_moves"}))
    assert check_equivalent(before, unrolled, trials=10) > 0


def test_a_run_longer_than_max_factor_stays_rolled(tmp_path):
    before = _module(tmp_path, """
spec x
fn f(a: u16, b: u16, c: u16, d: u16, e: u16) -> u16 {
    for i in 0..20 {
        a, b, c, d, e = b, c, d, e, a ^ 3
    }
    return a ^ b ^ c ^ d ^ e
}
""")
    assert unroll_moves.MAX_FACTOR == 4 and _factors(unroll_moves.run(before, {})) == [1]
