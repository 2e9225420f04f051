"""aedsl/ir/bounds.py: upper bounds of IR values from their defining ops, the one rule set the
selectors (`value_bound`) and divconst share."""
from aedsl.ir.bounds import value_bound
from aedsl.ir.nodes import Memory, Op, Value


def _v(name, width=32):
    return Value(name, width)


def test_lengths_sums_divisions_and_unknowns():
    buf = Memory("b", 8, None, "param")
    n, c15, s, c20, q, x, y = (_v(k) for k in ("n", "c15", "s", "c20", "q", "x", "y"))
    defs = {n: Op("len", [n], [buf]), c15: Op("const", [c15], [], {"value": 15}),
            s: Op("add", [s], [n, c15]), c20: Op("const", [c20], [], {"value": 20}),
            q: Op("udiv", [q], [s, c20]), y: Op("add", [y], [x, c15])}
    assert value_bound(n, defs) == (1 << 32) - 1                  # no buffer bound: the width
    assert value_bound(n, defs, buffer_bytes=0xFE00) == 0xFE00
    assert value_bound(s, defs, buffer_bytes=0xFE00) == 0xFE0F
    assert value_bound(q, defs, buffer_bytes=0xFE00) == 0xFE0F // 20
    # x has no defining op: unknown, unless a bound is known for it (a loop index)
    assert value_bound(y, defs, buffer_bytes=0xFE00) == (1 << 32) - 1
    assert value_bound(y, defs, known={x: 99}) == 114
    # a division by a value that is not a constant says nothing
    q2 = _v("q2")
    defs[q2] = Op("udiv", [q2], [s, x])
    assert value_bound(q2, defs, buffer_bytes=0xFE00) == (1 << 32) - 1


def test_a_constant_less_a_value_at_most_it():
    """`c - y` with y at most c is at most c (OCB3's `15 - count` of a partial block's length);
    with y possibly above c it may wrap, so nothing is known."""
    buf = Memory("b", 8, None, "param")
    n, c15, r, d, e = (_v(k) for k in ("n", "c15", "r", "d", "e"))
    defs = {n: Op("len", [n], [buf]), c15: Op("const", [c15], [], {"value": 15}),
            r: Op("and", [r], [n, c15]), d: Op("sub", [d], [c15, r]), e: Op("sub", [e], [c15, n])}
    assert value_bound(d, defs, buffer_bytes=0xFE00) == 15
    assert value_bound(e, defs, buffer_bytes=0xFE00) == (1 << 32) - 1
