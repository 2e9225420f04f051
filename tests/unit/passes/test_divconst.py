"""Division by a constant as a multiplication (aedsl/ir/passes/divconst.py)."""
from __future__ import annotations

import random

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import divconst

SPEC = """
spec divs

fn f(x: u32, y: u40) -> (u32, u32, u40, u32, u16) {
    a = x / 20
    b = x % 20
    c = y / 1000003
    d = x / 16
    e = (x as u16) / 5
    return a, b, c, d, e
}
"""


@pytest.mark.parametrize("n", [17, 24, 32, 40, 64])
def test_magic_is_exact_on_the_boundaries_and_at_random(n):
    rng = random.Random(n)
    divisors = [3, 5, 6, 7, 10, 20, 48, 1000003, (1 << (n - 1)) + 1, (1 << n) - 1]
    for c in divisors + [rng.randrange(3, 1 << n) | 1 for _ in range(50)]:
        if c >= 1 << n or c & (c - 1) == 0:
            continue
        m, shift = divconst.magic(c, n)
        assert m < 1 << (n + 1)
        xs = [0, 1, c - 1, c, c + 1, (1 << n) - 1, (1 << n) - 2] + [c * k - 1 for k in (2, 3)] + \
             [rng.randrange(1 << n) for _ in range(200)]
        for x in xs:
            if 0 <= x < 1 << n:
                assert (x * m) >> shift == x // c, (n, c, x)


def test_rewrite_keeps_results_and_leaves_narrow_and_power_of_two_divisions(tmp_path):
    path = tmp_path / "d.ae"
    path.write_text(SPEC)
    before = load_module(path, {})
    after = divconst.run(before, {})
    left = [op.args[0].width for f in after.functions for op in walk_ops(f.body) if op.opcode in ("udiv", "umod")]
    assert sorted(left) == [16, 32]           # only x / 16 (a shift) and the 16-bit division stay
    ref, new = compile_module(before), compile_module(after)
    rng = random.Random(1)
    for _ in range(2000):
        x, y = rng.randrange(1 << 32), rng.randrange(1 << 40)
        assert new.call("f", [x, y]) == ref.call("f", [x, y])
    for x in (0, 19, 20, 21, (1 << 32) - 1):
        assert new.call("f", [x, (1 << 40) - 1]) == ref.call("f", [x, (1 << 40) - 1])
