"""Division and remainder by a constant as a multiplication (Granlund & Montgomery, PLDI 1994, §4).

Matches `udiv x, c` and `umod x, c` where `c` is a constant that is not a power of two and `x` is
17 to 64 bits wide (narrower divisions stay: both targets divide 16-bit words themselves; a wider
dividend, such as a reduction modulo a 129-bit prime, wants a pseudo-Mersenne fold instead of a
double-width product, and stays a division). With
N = width(x) and l = ceil(log2 c), m = floor(2^(N+l) / c) + 1 is an (N+1)-bit constant and

    x / c == (x * m) >> (N + l)          for every 0 <= x < 2^N,

so the division becomes `zext` to 2N+1 bits, one `mul` by m, one `shr` and a `trunc`; the
remainder is `x - (x / c) * c`. The targets then select an ordinary widening multiply (MPY on
MSP430, MULS on ARMv6-M, or partial products after `legalize`) instead of a bit-serial division
loop, and `legalize` can split it into words (it cannot split a division).

Preserves: every function's results and memory effects (the identity above is exact; the unit
test checks it on the boundary values of every divisor it rewrites in the library and on random
ones). A division by a power of two is left to the selectors (a shift), by zero or one to
constant folding.
"""
from __future__ import annotations

from ..nodes import Block, Module, Op, Value
from .common import Names, const_defs

NAME = "divconst"
MIN_WIDTH = 17          # dividends of at most 16 bits stay divisions
MAX_WIDTH = 64          # wider dividends stay divisions (the product would be 2N+1 bits wide)


def magic(c: int, n: int) -> tuple[int, int]:
    """(m, shift) with x // c == (x * m) >> shift for every 0 <= x < 2**n (c >= 2, not a power of 2)."""
    l = (c - 1).bit_length()                  # ceil(log2 c)
    return (1 << (n + l)) // c + 1, n + l


def _divisor(op: Op, consts: dict[int, int]) -> int | None:
    if op.opcode not in ("udiv", "umod") or len(op.args) != 2:
        return None
    x, d = op.args
    c = consts.get(id(d))
    if c is None or not isinstance(x, Value) or not MIN_WIDTH <= x.width <= MAX_WIDTH or c < 3 or c & (c - 1) == 0:
        return None
    return c


def _expand(op: Op, c: int, names: Names) -> list[Op]:
    x = op.args[0]
    n, w = x.width, op.results[0].width
    m, shift = magic(c, n)
    wide = 2 * n + 1

    def val(base: str, width: int) -> Value:
        return Value(names.fresh(base), width)

    xw, mw, prod, hi = val("dx", wide), val("dm", wide), val("dp", wide), val("dq", wide)
    out = [Op("zext", [xw], [x], loc=op.loc), Op("const", [mw], [], {"value": m}, loc=op.loc),
           Op("mul", [prod], [xw, mw], loc=op.loc), Op("shr", [hi], [prod], {"by": shift}, loc=op.loc)]
    if op.opcode == "udiv":
        return out + [Op("trunc", [op.results[0]], [hi], loc=op.loc)]
    q, cv, qc = val("dq", n), val("dc", n), val("dr", n)
    out += [Op("trunc", [q], [hi], loc=op.loc), Op("const", [cv], [], {"value": c}, loc=op.loc),
            Op("mul", [qc], [q, cv], loc=op.loc)]
    if w == n:
        return out + [Op("sub", [op.results[0]], [x, qc], loc=op.loc)]
    r = val("dr", n)
    return out + [Op("sub", [r], [x, qc], loc=op.loc), Op("trunc", [op.results[0]], [r], loc=op.loc)]


def _rewrite(block: Block, consts: dict[int, int], names: Names) -> bool:
    changed, ops = False, []
    for op in block.ops:
        for region in op.regions:
            changed |= _rewrite(region, consts, names)
        c = _divisor(op, consts)
        if c is None:
            ops.append(op)
            continue
        ops.extend(_expand(op, c, names))
        changed = True
    block.ops = ops
    return changed


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    for fn in module.functions:
        _rewrite(fn.body, const_defs(fn), Names(fn))
    return module
