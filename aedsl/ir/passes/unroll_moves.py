"""Rolled loops that move carried bits unchanged are unrolled until the moves are renamings.

IR shape matched: a rolled `for` (unroll = 1, constant bounds) whose yielded value takes bits
of a carried value unchanged, through slices and concats only, to another place (another
position of the same carried value or another carried value): a shift register of words, a
tweakey schedule whose rows 0-1 move down to rows 2-3 (`cat(f(t[63:0]), t[127:64])`). Rolled,
every iteration copies those bits to where the next iteration expects them (on a target,
register moves and spills: the words are live at two places at once). Unrolled by k, a moved
value stays where the copy that made it put it until the copy that reads it last: no moves,
as long as no bit is moved more than k - 1 times in a row. k is one more than the longest run
of moves of a bit (or the length of a cycle of them), at most MAX_FACTOR, and divides the trip
count (no remainder copies); at least MIN_MOVED_BITS bits must move, and the body must hold
at most MAX_OPS ops (the code grows by k - 1 bodies).

The pass only sets the loop's `unroll` attr; the unroll pass that follows does the copying.
Knob `unroll_moves`: `auto` (default in speed mode) or `off` (and off with `opt=size`, where a
loop body costs ROM).

Preserves: everything (an attr that the unroll pass honours by copying the body in order).
Assumes: nothing beyond the IR's own rules.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Module, Value
from .common import concat_parts, const_defs, is_size_mode, op_count

NAME = "unroll_moves"
KNOBS = (Knob("unroll_moves", "pass", ("auto", "off"), "auto",
              doc="unroll rolled loops whose carried bits move unchanged until the moves are "
                  "renamings: auto or off"),)

MAX_FACTOR = 4
MIN_MOVED_BITS = 16
MAX_OPS = 160


def acts(knobs: dict) -> bool:
    return str((knobs or {}).get("unroll_moves", "auto")) != "off" and not is_size_mode(knobs)


def _sources(v: Value, lo: int, width: int, defs: dict, out: list, depth: int = 0) -> None:
    """Append (value, its lowest bit, length) pieces holding bits [lo, lo + width) of v, from
    the lowest; slices and concats are looked through, anything else is a piece of its own."""
    d = defs.get(id(v))
    if d is not None and depth < 16:
        if d.opcode == "slice":
            _sources(d.args[0], lo + d.attrs["lo"], width, defs, out, depth + 1)
            return
        if d.opcode == "concat":
            for p, pos in reversed(concat_parts(d)):    # from the lowest
                top, bot = min(pos + p.width, lo + width), max(pos, lo)
                if bot < top:
                    _sources(p, bot - pos, top - bot, defs, out, depth + 1)
            return
    out.append((v, lo, width))


def moves(body: Block) -> dict[tuple[int, int], tuple[int, int]]:
    """(carried value j, bit q) -> (carried value i, bit p) for each bit the body yields as
    carried value i's bit p, taken unchanged from carried value j's bit q at another place."""
    defs = {id(r): op for op in body.ops for r in op.results}
    params = {id(p): n for n, p in enumerate(body.params[1:])}
    out = {}
    for i, y in enumerate(body.yields):
        pieces: list = []
        _sources(y, 0, y.width, defs, pieces)
        at = 0
        for v, lo, width in pieces:
            j = params.get(id(v))
            if j is not None:
                for b in range(width):
                    if (j, lo + b) != (i, at + b):
                        out[(j, lo + b)] = (i, at + b)
            at += width
    return out


def factor(move: dict) -> int | None:
    """The copies that make every move a renaming: one more than the longest run of moves of
    one bit, or a cycle's length for a bit moved round a cycle; None past MAX_FACTOR (or when
    nothing moves)."""
    k = 1
    for start in move:
        n, at, seen = 1, start, {start}     # n: places the bit has been in
        while at in move:
            at = move[at]
            if at in seen:                  # back round a cycle of n places
                break
            seen.add(at)
            n += 1
        if n > MAX_FACTOR:
            return None
        k = max(k, n)
    return k if k > 1 else None


def _loops(block: Block, consts: dict) -> None:
    for op in block.ops:
        for r in op.regions:
            _loops(r, consts)
        if op.opcode != "for" or op.attrs.get("unroll", 1) != 1:
            continue
        lo, hi = (consts.get(id(a)) for a in op.args[:2])
        body = op.regions[0]
        if lo is None or hi is None or op_count(body) > MAX_OPS:
            continue
        move = moves(body)
        if len(move) < MIN_MOVED_BITS:
            continue
        k = factor(move)
        if k is not None and hi - lo > k and (hi - lo) % k == 0:
            op.attrs["unroll"] = k


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    if acts(knobs):
        for fn in module.functions:
            _loops(fn.body, const_defs(fn))
    return module
