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

fn f(x: u32, y: u40) -> (u32, u32, u40, u32, u16, u32, u32) {
    a = x / 20
    b = x % 20
    c = y / 1000003
    d = x / 16
    e = (x as u16) / 5
    g = x / 48
    h = x % 48
    return a, b, c, d, e, g, h
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


def test_magic_is_the_narrowest_the_identity_allows():
    """The multiplier comes from the smallest shift that meets Theorem 4.2's condition, so it
    has as few bits as the theorem allows: x / 3 of a u32 is the classic (x * 0xaaaaaaab) >> 33
    (32 bits, not 33); every smaller shift misses the condition."""
    assert divconst.magic(3, 32) == (0xAAAAAAAB, 33)
    assert divconst.magic(3, 28) == (0xAAAAAAB, 29)
    for n in (16, 28, 32):
        for c in (3, 5, 7, 11, 13, 25, 641, 1000003):
            m, s = divconst.magic(c, n)
            assert m * c - (1 << s) <= 1 << (s - n)
            for t in range(n, s):
                mt = -(-(1 << t) // c)
                assert mt * c - (1 << t) > 1 << (t - n), (c, n, t)


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
    for x in (0, 19, 20, 21, 47, 48, 49, (1 << 32) - 49, (1 << 32) - 48, (1 << 32) - 1):
        assert new.call("f", [x, (1 << 40) - 1]) == ref.call("f", [x, (1 << 40) - 1])


BOUNDED = """
spec lens

fn g(b: bytes, x: u32) -> (u32, u32, u32, u32) {
    n = len(b)
    return n / 20, (n + 19) / 20, n % 12, x / 20
}
"""


def test_a_dividend_bounded_by_a_buffer_length_is_a_word_division(tmp_path):
    """With `buffer_bytes` (MSP430: 0xFE00), `len(b) / 20`, `(len(b) + 19) / 20` and `len(b) % 12`
    are 16-bit divisions (their dividends fit a word); `x / 20` of a plain u32 is the product
    as before (58 bits: the even divisor's factor 4 is a shift first); without the knob nothing
    changes. Results as before for lengths up to
    the bound (the interpreter's buffers are lists)."""
    path = tmp_path / "l.ae"
    path.write_text(BOUNDED)
    before = load_module(path, {})

    def widths(m):
        divs = [op.args[0].width for f in m.functions for op in walk_ops(f.body) if op.opcode in ("udiv", "umod")]
        muls = [op.results[0].width for f in m.functions for op in walk_ops(f.body) if op.opcode == "mul"]
        return sorted(divs), sorted(muls)

    bounded = divconst.run(before, {"buffer_bytes": "65024"})
    assert widths(bounded) == ([16, 16, 16], [58])
    # x / 20 = (x >> 2) * 0xccccccd >> 30 (58 bits); n % 12 divides n >> 2 by 3 (60 bits)
    assert widths(divconst.run(before, {})) == ([], [32, 58, 58, 58, 60])
    ref, new = compile_module(before), compile_module(bounded)
    rng = random.Random(3)
    for n in [0, 1, 11, 12, 19, 20, 21, 239, 240, 241, 65023, 65024] + [rng.randrange(65025) for _ in range(40)]:
        x = rng.randrange(1 << 32)
        assert new.call("g", [[0] * n, x]) == ref.call("g", [[0] * n, x]), n
