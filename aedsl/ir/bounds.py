"""Upper bounds of IR values from the ops that define them, shared by the passes (divconst) and
the selectors (`SelectorBase.value_bound`).

`value_bound(v, defs, buffer_bytes, known)`: `defs` maps a value to its defining op; a buffer's
`len` is at most `buffer_bytes` (the target's largest buffer, None for no bound beyond the
width); `known` holds bounds of values no op defines (a counted loop's index). The rules:
constants; extensions and truncations; a slice (the bits from `lo` up); `and` (the smaller
operand); `or`/`xor` (the larger operand's bits); a sum that cannot wrap; shifts by constants
and products by constants that cannot overflow; `udiv` by a constant; a `select` (either arm, and `select(x < z, x, y)`, a
minimum, takes x only below z); `x - ((x >> k) << k)`, the remainder of x by 2^k; `c - y` for
a constant c and y at most c.
2^width - 1 when nothing is known."""
from __future__ import annotations

from .nodes import Value


def value_bound(v: Value, defs: dict, buffer_bytes: int | None = None, known: dict | None = None,
                depth: int = 6) -> int:
    top = (1 << v.width) - 1
    d = defs.get(v)
    if d is None or depth == 0:
        return min((known or {}).get(v, top), top)
    code, args = d.opcode, d.args

    def b(i: int) -> int:
        a = args[i]
        return value_bound(a, defs, buffer_bytes, known, depth - 1) if isinstance(a, Value) else top

    if code == "const":
        return d.attrs["value"] & top
    if code == "len":
        return min(buffer_bytes or top, top)
    if code in ("zext", "trunc"):
        return min(b(0), top)
    if code == "slice":
        return min(b(0) >> d.attrs["lo"], top)
    if code == "and":
        return min(b(0), b(1), top)
    if code in ("or", "xor"):
        return min((1 << max(b(0), b(1)).bit_length()) - 1, top)
    if code == "add":
        return b(0) + b(1) if b(0) + b(1) <= top else top
    if code == "shl":
        return b(0) << d.attrs["by"] if b(0) << d.attrs["by"] <= top else top
    if code == "mul":
        # a product by a constant that cannot wrap (`8 * count` before constfold makes it a shift)
        for x, c in ((0, 1), (1, 0)):
            cd = defs.get(args[c])
            if cd is not None and cd.opcode == "const":
                p = b(x) * (cd.attrs["value"] & top)
                return p if p <= top else top
        return top
    if code == "shr":
        return b(0) >> d.attrs["by"]
    if code == "udiv":
        c = defs.get(args[1])
        if c is not None and c.opcode == "const" and c.attrs["value"]:
            return b(0) // c.attrs["value"]
        return top
    if code == "select":
        # select(x < z, x, y) (a minimum): x is below z where it is chosen
        c = defs.get(args[0])
        chosen = b(1)
        if c is not None and c.opcode in ("ult", "ule") and c.args[0] is args[1]:
            z = value_bound(c.args[1], defs, buffer_bytes, known, depth - 1)
            chosen = min(chosen, z - 1 if c.opcode == "ult" else z)
        return min(max(chosen, b(2)), top)
    if code == "sub":
        # c - y with y at most c: never below zero, at most c (OCB3's `15 - count`)
        c = defs.get(args[0])
        if c is not None and c.opcode == "const" and b(1) <= c.attrs["value"] & top:
            return c.attrs["value"] & top
        # x - ((x >> k) << k): the remainder of x by 2^k
        k = rounded_down(args[1], args[0], defs.get)
        if k is not None:
            return min((1 << k) - 1, top)
    return top


def rounded_down(v: Value, x: Value, def_of) -> int | None:
    """k when `v` is `(x >> k) << k` (x rounded down to a multiple of 2^k: `16 * (n / 16)` once
    constfold has made the multiply and the division shifts), else None. `def_of(value)`: the op
    defining a value, or None."""
    d = def_of(v)
    if d is None or d.opcode != "shl":
        return None
    e = def_of(d.args[0])
    k = d.attrs["by"]
    if e is None or e.opcode != "shr" or e.attrs["by"] != k or e.args[0] is not x:
        return None
    return k
