"""A table whose entries are the carry-less product of the index by a constant is computed.

The IR shape (general, not tied to a scheme): a read-only table T of 2^b entries of width W,
read only by loads whose index is at most b bits wide, with

    T[i] == clmul(i, c) mod 2^W      for every i, where c = T[1]
    clmul(i, c) = XOR of (i << j) over the set bits j of c,

i.e. T is GF(2)-linear in its index (T[a ^ b] = T[a] ^ T[b]) and T[2^k] = c << k. Every
`load @T, i` becomes that XOR of shifts of i (zero-extended to W): k = popcount(c) terms, made
as one chain of shifts by the distances between c's set bits (so j_max single-bit shifts in all,
not the sum of the j), and T leaves the program's ROM. A reduction table of a polynomial
multiply is this shape: GHASH's Shoup tables fold the byte shifted out of Z back with
R8[r] = clmul(r, 0x1c2) (512 bytes of ROM for four shifted copies of r).

At most MAX_TERMS terms (a table of a dense constant stays a table). Knob `clmul_tables`: `auto`
(on in size mode, `opt=size`: a few cycles per read for the table's bytes), `on`, `off`.

Preserves: every function's results and memory effects (the identity above is checked on every
entry of the table's contents; an index of at most b bits never reads past them).
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Memory, Module, Op, Value
from .common import SIZE_AUTO_MODES, Names, size_auto, table_uses

NAME = "clmul_tables"
MAX_TERMS = 8
KNOBS = (Knob("clmul_tables", "pass", SIZE_AUTO_MODES, "auto",
              doc="a table that is the carry-less product of its index by a constant computed by "
                  "shifts and XORs: auto (in size mode), on or off"),)


def acts(knobs: dict) -> bool:
    return size_auto(knobs, NAME)


def clmul(i: int, c: int) -> int:
    out = 0
    while c:
        low = c & -c
        out ^= i * low
        c ^= low
    return out


def multiplier(table: Memory) -> int | None:
    """c when every entry of `table` is clmul(i, c) mod 2^W, c = entry 1; None otherwise (also
    for a table whose length is not a power of two, one of fewer than two entries, and the
    identity table, c = 1, which is no shift at all)."""
    data, n = table.data, table.length
    if data is None or n is None or n < 2 or n & (n - 1):
        return None
    c, m = data[1], (1 << table.elem_width) - 1
    if c <= 1 or bin(c).count("1") > MAX_TERMS:
        return None
    return c if all(v == clmul(i, c) & m for i, v in enumerate(data)) else None


def plan(module: Module) -> dict[str, tuple[int, int]]:
    """table name -> (its multiplier c, b), for every table of 2^b entries of the shape, read
    only by loads of indices of at most b bits."""
    loads, other = table_uses(module)
    out = {}
    for t in module.tables:
        if t.name in other or t.name not in loads:
            continue
        bits = t.length.bit_length() - 1 if t.length else 0
        c = multiplier(t)
        if c is not None and all(op.args[1].width <= bits for op in loads[t.name]):
            out[t.name] = (c, bits)
    return out


def _product(i: Value, c: int, bits: int, out: Value, names: Names, loc) -> list[Op]:
    """Ops computing out = clmul(i, c) mod 2^width(out) for an index i of at most `bits` bits:
    i widened (or cut) to the width, then its terms i << j for c's set bits j, each XORed into
    the sum and each shifted from the term before it or from i, whichever is nearer. When no
    term loses a bit (bits + top bit of c <= width) the terms go from the top one down, a term
    below the one before it being that one shifted right (on MSP430 a shift by 8 is a byte swap,
    the next ones single right shifts); otherwise from the lowest up. The last
    op defines `out` (plan() leaves out c = 1, whose product is i itself: no op to define it)."""
    w = out.width
    ops: list[Op] = []
    x = i
    if i.width != w:
        x = names.value(f"{out.name}.x", w)
        ops.append(Op("zext" if i.width < w else "trunc", [x], [i], loc=loc))
    terms = [j for j in range(w) if (c >> j) & 1]
    down = bits + terms[-1] <= w
    if down:
        terms.reverse()
    shifted, at, acc = x, 0, None
    for j in terms:
        if j != 0 and j != at:
            if j < abs(at - j):               # nearer the index than the chain's last term
                shifted, at = x, 0
            nxt = names.value(f"{out.name}.s{j}", w)
            ops.append(Op("shl" if j > at else "shr", [nxt], [shifted], {"by": abs(j - at)}, loc=loc))
            shifted, at = nxt, j
        term = x if j == 0 else shifted       # the index itself, whatever the chain's direction
        if acc is None:
            acc = term
        else:
            total = names.value(f"{out.name}.x{j}", w)
            ops.append(Op("xor", [total], [acc, term], loc=loc))
            acc = total
    ops[-1].results[0] = out
    return ops


def _rewrite(block: Block, tables: dict[str, tuple[int, int]], names: Names) -> None:
    ops = []
    for op in block.ops:
        for r in op.regions:
            _rewrite(r, tables, names)
        mem = op.args[0] if op.opcode == "load" and op.args else None
        if isinstance(mem, Memory) and mem.name in tables:
            c, bits = tables[mem.name]
            ops.extend(_product(op.args[1], c, bits, op.results[0], names, op.loc))
            continue
        ops.append(op)
    block.ops = ops


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    if not acts(knobs):
        return module
    tables = plan(module)
    if not tables:
        return module
    for fn in module.functions:
        _rewrite(fn.body, tables, Names(fn))
    module.tables = [t for t in module.tables if t.name not in tables]
    return module
