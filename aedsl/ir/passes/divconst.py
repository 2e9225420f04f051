"""Division and remainder by a constant as a multiplication (Granlund & Montgomery, PLDI 1994, §4).

Matches `udiv x, c` and `umod x, c` where `c` is a constant that is not a power of two and `x` is
17 to 64 bits wide (narrower divisions stay: both targets divide 16-bit words themselves; a wider
dividend, such as a reduction modulo a 129-bit prime, wants a pseudo-Mersenne fold instead of a
double-width product, and stays a division). With N = width(x), an odd c and the smallest
s >= N for which m = ceil(2^s / c) has m * c - 2^s <= 2^(s - N) (Theorem 4.2; s = N + ceil(log2 c)
always qualifies, so m has at most N + 1 bits, and often N: 0xaaaaaaab for 3),

    x / c == (x * m) >> s                for every 0 <= x < 2^N,

so the division becomes `zext` to N + bits(m) bits, one `mul` by m, one `shr` and a `trunc`; the
remainder is `x - (x / c) * c`. An even c = 2^k * d divides x >> k (N - k bits) by d, a
narrower product (u32 / 48: 56 bits, not 65; / 20: 58). The targets then select an ordinary
widening multiply (MPY on MSP430, MULS on ARMv6-M, or partial products after `legalize`)
instead of a bit-serial division loop, and `legalize` can split it into words (it cannot split
a division).

Knob `buffer_bytes` (the target sets it: MSP430 0xFE00, its buffers lie in 0x0200..0xFFFF): the
largest length of a byte buffer. A dividend built from buffer lengths and constants is below a
bound (aedsl/ir/bounds.py) that may need fewer bits than its width: N is then the bound's bits,
and a dividend that fits 16 bits stays a 16-bit division (`trunc`, `udiv`/`umod`, `zext`), as a narrow one does (Elephant's
`m / 20` of a message length, 65 bits of product on MSP430 before).

Preserves: every function's results and memory effects (the identity above is exact; the unit
test checks it on the boundary values of every divisor it rewrites in the library and on random
ones). A division by a power of two is left to the selectors (a shift), by zero or one to
constant folding.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..bounds import value_bound
from ..nodes import Block, Module, Op, Value, walk_ops
from .common import Names, const_defs, knob_int

NAME = "divconst"
KNOBS = (Knob("buffer_bytes", "pass", None, None, minimum=1,
              doc="the largest length of a byte buffer (the backend sets it), bounding dividends"),)
MIN_WIDTH = 17          # dividends of at most 16 bits stay divisions
MAX_WIDTH = 64          # wider dividends stay divisions (the product would be 2N+1 bits wide)


def magic(c: int, n: int) -> tuple[int, int]:
    """(m, shift) with x // c == (x * m) >> shift for every 0 <= x < 2**n (c >= 2, not a power of
    2): the smallest shift s >= n whose m = ceil(2^s / c) has m * c - 2^s <= 2^(s - n) (Granlund &
    Montgomery's Theorem 4.2, with N + l there any s here), so m has as few bits as the identity
    allows (3 and 2^32: 0xaaaaaaab, 32 bits, not 33). s = n + ceil(log2 c) always qualifies."""
    l = (c - 1).bit_length()                  # ceil(log2 c)
    for s in range(n, n + l + 1):
        m = -(-(1 << s) // c)
        if m * c - (1 << s) <= 1 << (s - n):
            return m, s
    raise AssertionError("unreachable: s = n + l qualifies")


def _divisor(op: Op, consts: dict[int, int]) -> int | None:
    if op.opcode not in ("udiv", "umod") or len(op.args) != 2:
        return None
    x, d = op.args
    c = consts.get(id(d))
    if c is None or not isinstance(x, Value) or not MIN_WIDTH <= x.width <= MAX_WIDTH or c < 3 or c & (c - 1) == 0:
        return None
    return c


def _narrow(op: Op, c: int, names: Names) -> list[Op]:
    """`op` on a dividend below 2^16: a 16-bit division (the targets divide words themselves)."""
    x, r = op.args[0], op.results[0]
    x16, c16 = Value(names.fresh("dx"), 16), Value(names.fresh("dc"), 16)
    out = [Op("trunc", [x16], [x], loc=op.loc), Op("const", [c16], [], {"value": c}, loc=op.loc)]
    if r.width == 16:
        return out + [Op(op.opcode, [r], [x16, c16], loc=op.loc)]
    q16 = Value(names.fresh("dq"), 16)
    return out + [Op(op.opcode, [q16], [x16, c16], loc=op.loc), Op("zext", [r], [q16], loc=op.loc)]


def _expand(op: Op, c: int, names: Names, bits: int | None = None) -> list[Op]:
    """The multiplication for a dividend below 2^bits (bits: its width when None). An even
    divisor c = 2^k * d divides x >> k (k bits fewer) by d: floor(floor(x / 2^k) / d) = x // c,
    and the product is narrower (NORX's n / 48: (n >> 4) * 0xaaaaaab >> 29, 56 bits, not 65)."""
    x = op.args[0]
    n, w = x.width, op.results[0].width
    k = (c & -c).bit_length() - 1
    b = max((bits or n) - k, 1)
    m, shift = magic(c >> k, b)
    wide = max(n + 1, b + m.bit_length())

    def val(base: str, width: int) -> Value:
        return Value(names.fresh(base), width)

    xw, mw, prod, hi = val("dx", wide), val("dm", wide), val("dp", wide), val("dq", wide)
    out = [Op("zext", [xw], [x], loc=op.loc)]
    if k:
        xs = val("dx", wide)
        out.append(Op("shr", [xs], [xw], {"by": k}, loc=op.loc))
        xw = xs
    out += [Op("const", [mw], [], {"value": m}, loc=op.loc),
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


def _rewrite(block: Block, consts: dict[int, int], names: Names, bound) -> bool:
    changed, ops = False, []
    for op in block.ops:
        for region in op.regions:
            changed |= _rewrite(region, consts, names, bound)
        c = _divisor(op, consts)
        if c is None:
            ops.append(op)
            continue
        bits = bound(op.args[0]).bit_length()
        if bits < MIN_WIDTH and op.results[0].width >= 16:
            ops.extend(_narrow(op, c, names))
        else:
            ops.extend(_expand(op, c, names, min(bits, op.args[0].width)))
        changed = True
    block.ops = ops
    return changed


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    limit = knob_int(knobs, "buffer_bytes")
    for fn in module.functions:
        defs = {r: op for op in walk_ops(fn.body) for r in op.results}
        _rewrite(fn.body, const_defs(fn), Names(fn), lambda v: value_bound(v, defs, limit, depth=8))
    return module
