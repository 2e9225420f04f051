"""Unroll `for` loops as their `unroll` attr asks (from the spec's `@unroll(...)`).

- unroll = 1: the loop stays as written.
- unroll = 0 (`full`): the body is repeated once per iteration, the index replaced by a constant;
  loop-carried values flow from one copy to the next. Needs constant bounds.
- unroll = k > 1: a loop over `trips // k` iterations whose body holds k copies (index
  lo + k*j + u, computed from the new index j), then `trips % k` copies with constant indices
  for the remainder. Needs constant bounds.
Loops whose bounds are not constants (after looking through `const` ops) stay as they are.
Knob `unroll_limit` (default: none): a loop whose full unrolling would copy more than this many
ops stays rolled (a size budget for exploring code-size trade-offs).
Inner loops are unrolled before the loops around them.

Preserves: the values and effects of every loop, in iteration order.
Assumes: nothing beyond the IR's own rules.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Function, Module, Op, Value
from .common import Subst, Names, clone_block, const_defs, knob_int, op_count, resolve, substitute

NAME = "unroll"
KNOBS = (Knob("unroll_limit", "pass", None, None, minimum=1,
               doc="largest number of ops a full unrolling may copy (default: no limit)"),)


def _const(names: Names, value: int, width: int, out: list[Op]) -> Value:
    v = names.value("i", width)
    out.append(Op("const", [v], [], {"value": value & ((1 << width) - 1)}))
    return v


def _copy_body(body: Block, index: Value, carried: list, names: Names, out: list[Op]) -> list:
    """Append one copy of `body` with its index bound to `index`; return the yielded values."""
    vmap: dict[int, object] = {id(body.params[0]): index}
    for p, v in zip(body.params[1:], carried):
        vmap[id(p)] = v
    # clone_block gives the params fresh names; bind them before cloning the ops instead.
    copy = clone_block(Block([], body.ops, body.yields), vmap, names)
    out.extend(copy.ops)
    return copy.yields


class _Unroller:
    def __init__(self, fn: Function, limit: int):
        self.fn = fn
        self.names = Names(fn)
        self.consts = const_defs(fn)
        self.subst = Subst()
        self.limit = limit

    def block(self, block: Block) -> None:
        out: list[Op] = []
        for op in block.ops:
            op.args = [resolve(self.subst, a) for a in op.args]
            for r in op.regions:
                self.block(r)
            if op.opcode == "for":
                self.loop(op, out)
            else:
                out.append(op)
        block.ops = out
        block.yields = [resolve(self.subst, y) for y in block.yields]

    def loop(self, op: Op, out: list[Op]) -> None:
        k = op.attrs.get("unroll", 1)
        lo, hi, *inits = op.args
        if k == 1 or id(lo) not in self.consts or id(hi) not in self.consts:
            out.append(op)
            return
        body = op.regions[0]
        index = body.params[0]
        w = index.width
        lo_c, hi_c = self.consts[id(lo)], self.consts[id(hi)]
        trips = max(0, hi_c - lo_c)
        if k == 0 or k >= trips:
            if self.limit is not None and trips * op_count(body) > self.limit:
                out.append(op)
                return
            carried = list(inits)
            for i in range(lo_c, hi_c):
                carried = _copy_body(body, _const(self.names, i, w, out), carried, self.names, out)
            self.finish(op, carried)
            return
        main, rest = divmod(trips, k)
        # Main loop: j in 0..main, index = lo + k*j + u for u in 0..k.
        j = self.names.value(index.name, w)
        params = [self.names.value(p.name, p.width) for p in body.params[1:]]
        new_ops: list[Op] = []
        carried = list(params)
        kc = _const(self.names, k, w, new_ops)
        base = self.names.value("base", w)
        new_ops.append(Op("mul", [base], [j, kc]))
        for u in range(k):
            off = _const(self.names, lo_c + u, w, new_ops)
            idx = self.names.value(index.name, w)
            new_ops.append(Op("add", [idx], [base, off]))
            carried = _copy_body(body, idx, carried, self.names, new_ops)
        zero = _const(self.names, 0, w, out)
        count = _const(self.names, main, w, out)
        results = [self.names.value(r.name, r.width) for r in op.results]
        out.append(Op("for", results, [zero, count, *inits], {"unroll": 1},
                      [Block([j, *params], new_ops, carried)], op.loc))
        carried = list(results)
        for i in range(lo_c + main * k, hi_c):
            carried = _copy_body(body, _const(self.names, i, w, out), carried, self.names, out)
        self.finish(op, carried)

    def finish(self, op: Op, carried: list) -> None:
        for r, v in zip(op.results, carried, strict=True):
            self.subst.bind(r, v)


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    limit = knob_int(knobs, "unroll_limit")
    for fn in module.functions:
        u = _Unroller(fn, limit)
        u.block(fn.body)
        substitute(fn.body, u.subst)
    return module
