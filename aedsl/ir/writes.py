"""Memories a block overwrites completely before it reads them.

A function-local memory is zeroed on entry (the IR's rule); where the first thing the function
does with it is to write every element, the zeroing is dead and a selector may leave it out.
`written_first(module, block, mem)` is True when, in `block`'s order, every element of `mem` is
written before anything could read it:
- stores with constant indices covering every element;
- a `for` loop with constant bounds whose body, at its top level (on every trip), stores `mem`
  at indices a*i + c of its index i that together cover every element (a loop over the
  elements; the same unrolled by k: `mem[k*j + u]`, u in 0..k), and reads nothing of `mem`;
- a call whose callee does the same to the parameter `mem` is passed as (recursively).
Anything else that names `mem` (a load, a call that may read it, a loop or conditional that
mentions it otherwise) before that ends the scan with False. Conservative: False means only
"not shown".
"""
from __future__ import annotations

from .nodes import Block, Memory, Module, Op, walk_ops

_READS = ("load", "load_be", "load_le")


def _consts(block: Block) -> dict[int, int]:
    return {id(op.results[0]): op.attrs["value"] for op in walk_ops(block) if op.opcode == "const"}


def _mentions(op: Op, mem: Memory) -> bool:
    return any(a is mem for a in op.args) or any(
        any(a is mem for a in o.args) for r in op.regions for o in walk_ops(r))


def _affine(body: Block, consts: dict[int, int]) -> dict[int, tuple[int, int]]:
    """id(value) -> (a, c) for the values of a loop body that are a * index + c: the index,
    and products, left shifts and sums of them with constants, at the body's top level (as
    integers: a value whose IR arithmetic wraps gets numbers outside its width, which cover
    nothing)."""
    out = {id(body.params[0]): (1, 0)}
    for o in body.ops:
        if len(o.results) != 1 or len(o.args) not in (1, 2):
            continue
        args = o.args
        if o.opcode in ("add", "mul") and id(args[0]) not in out:
            args = args[::-1]                 # the constant on either side
        x = out.get(id(args[0]))
        y = consts.get(id(args[1])) if len(args) == 2 else None
        if o.opcode == "add" and x is not None and y is not None:
            out[id(o.results[0])] = (x[0], x[1] + y)
        elif o.opcode == "mul" and x is not None and y is not None:
            out[id(o.results[0])] = (x[0] * y, x[1] * y)
        elif o.opcode == "shl" and x is not None:
            out[id(o.results[0])] = (x[0] << o.attrs["by"], x[1] << o.attrs["by"])
    return out


class _Writes:
    def __init__(self, module: Module):
        self.module = module
        self.memo: dict[tuple[str, int], bool] = {}

    def first(self, block: Block, mem: Memory, consts: dict[int, int]) -> bool:
        written: set[int] = set()
        for op in block.ops:
            if not _mentions(op, mem):
                continue
            if op.opcode == "store" and op.args[0] is mem and not any(a is mem for a in op.args[1:]):
                if id(op.args[1]) in consts:
                    written.add(consts[id(op.args[1])])
                    if mem.length is not None and len(written) >= mem.length and \
                            written >= set(range(mem.length)):
                        return True
                continue
            if op.opcode == "len":
                continue
            if op.opcode == "for" and self.loop_writes(op, mem, consts):
                return True
            if op.opcode == "call" and self.call_writes(op, mem):
                return True
            return False
        return False

    def loop_writes(self, op: Op, mem: Memory, consts: dict[int, int]) -> bool:
        lo, hi = (consts.get(id(a)) for a in op.args[:2])
        if lo is None or hi is None or mem.length is None:
            return False
        body = op.regions[0]
        if any(o.opcode in _READS and o.args[0] is mem for o in walk_ops(body)):
            return False
        if any(o.opcode == "call" and any(a is mem for a in o.args) for o in walk_ops(body)):
            return False
        inner = dict(consts)
        inner.update(_consts(body))
        affine = _affine(body, inner)
        written: set[int] = set()
        for o in body.ops:
            if o.opcode == "store" and o.args[0] is mem and id(o.args[1]) in affine:
                a, c = affine[id(o.args[1])]
                at = [a * j + c for j in range(lo, hi)]
                if all(0 <= x < 1 << o.args[1].width for x in at):     # no index wraps
                    written.update(at)
        return written >= set(range(mem.length))

    def call_writes(self, op: Op, mem: Memory) -> bool:
        callee_name = op.attrs["callee"]
        if not self.module.has_function(callee_name):
            return False
        callee = self.module.function(callee_name)
        ks = [k for k, a in enumerate(op.args) if a is mem]
        if len(ks) != 1 or not isinstance(callee.params[ks[0]], Memory):
            return False
        key = (callee_name, ks[0])
        if key not in self.memo:
            self.memo[key] = False          # a recursive call shows nothing
            p = callee.params[ks[0]]
            self.memo[key] = self.first(callee.body, p, _consts(callee.body))
        return self.memo[key]


def written_first(module: Module, block: Block, mem: Memory) -> bool:
    """Every element of `mem` is written in `block` before anything can read it."""
    return _Writes(module).first(block, mem, _consts(block))
