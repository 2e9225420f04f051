"""A table whose every entry is a bit field of another table's entries is read from that table.

The IR shape (general, not tied to a scheme): two read-only tables A (the *host*) and B of the
same length, B's elements narrower than A's, and a bit offset s with

    B[i] == (A[i] >> s) & (2^width(B) - 1)      for every i,

where the program reads A anyway. Every `load @B, i` becomes `slice (load @A, i) [lo=s]`, so B
is no longer read and leaves the program's ROM; each read costs the extraction of the field from
the host's word. Table fusion makes such pairs: the T-table of AES's SubBytes + MixColumns holds
2S || S || S || 3S in each word, and the key schedule and the last round still read the S-box
itself (AES-128 in a mode on Cortex-M0 with `table_fusion=rotate`: the 256-byte S-box beside the
1 KB table).

When B fits several hosts or offsets, the host is the narrowest (then the first declared) and
the offset the one the selectors extract most cheaply: the field at the top of the word (one
right shift), then at the bottom (one mask), then the lowest other offset.

Knob `subtables`: `auto` (on in size mode, `opt=size`: a few cycles per read for the table's
bytes), `on`, `off`.

Preserves: every function's results and memory effects (the identity above holds on every entry,
checked here on the tables' contents, and tables never change).
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Memory, Module, Op
from .common import SIZE_AUTO_MODES, Names, size_auto, table_uses

NAME = "subtables"
KNOBS = (Knob("subtables", "pass", SIZE_AUTO_MODES, "auto",
              doc="a table that is a bit field of another table read from that one: auto (in size "
                  "mode), on or off"),)


def acts(knobs: dict) -> bool:
    return size_auto(knobs, NAME)


def _offsets(host: Memory, sub: Memory) -> list[int]:
    """The bit offsets s at which every entry of `sub` is the field of `host`'s entry."""
    mask = (1 << sub.elem_width) - 1
    return [s for s in range(host.elem_width - sub.elem_width + 1)
            if all(((a >> s) & mask) == b for a, b in zip(host.data, sub.data))]


def _best_offset(host: Memory, sub: Memory, offsets: list[int]) -> int:
    top = host.elem_width - sub.elem_width
    return top if top in offsets else (0 if 0 in offsets else offsets[0])


def plan(tables: list[Memory], kept: set[str] = frozenset()) -> dict[str, tuple[Memory, int]]:
    """table name -> (host, offset) for every read table that is a field of another read one.
    A host is never itself replaced (its reads stay loads of its own words), nor a table named
    in `kept` (used other than by loads: it stays in ROM whatever its loads become)."""
    out: dict[str, tuple[Memory, int]] = {}
    for sub in tables:
        if sub.data is None or sub.length is None or sub.name in kept:
            continue
        hosts = [h for h in tables if h is not sub and h.data is not None and h.length == sub.length
                 and h.elem_width > sub.elem_width and h.name not in out]
        for host in sorted(hosts, key=lambda h: h.elem_width):
            offsets = _offsets(host, sub)
            if offsets:
                out[sub.name] = (host, _best_offset(host, sub, offsets))
                break
    # a table chosen as a host keeps its own loads
    return {k: v for k, v in out.items() if k not in {h.name for h, _ in out.values()}}


def _rewrite(block: Block, subs: dict[str, tuple[Memory, int]], names: Names) -> None:
    ops = []
    for op in block.ops:
        for r in op.regions:
            _rewrite(r, subs, names)
        mem = op.args[0] if op.opcode == "load" and op.args else None
        if isinstance(mem, Memory) and mem.name in subs:
            host, s = subs[mem.name]
            word = names.value(f"{op.results[0].name}.host", host.elem_width)
            ops.append(Op("load", [word], [host, op.args[1]], loc=op.loc))
            ops.append(Op("slice", [op.results[0]], [word], {"lo": s}, loc=op.loc))
            continue
        ops.append(op)
    block.ops = ops


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    if not acts(knobs):
        return module
    loads, other = table_uses(module)
    subs = plan([ops[0].args[0] for ops in loads.values()], other)
    if not subs:
        return module
    for fn in module.functions:
        _rewrite(fn.body, subs, Names(fn))
    module.tables = [t for t in module.tables if t.name not in subs]
    return module
