"""Common-subexpression elimination for pure ops, then dead-code elimination.

CSE: two pure ops (see common.is_pure: arithmetic, slices, table loads, ...) with the same
opcode, operands, attrs and result widths compute the same value; the later one is replaced by
the earlier when the earlier dominates it (same block, or an enclosing block before the region).
Equal constants are merged the same way. Loads from writable memories are never merged.
DCE: a pure op none of whose results is used is removed; `if`/`for` ops whose results are
unused and whose regions have no effects are removed; loop-carried values that nothing reads
(neither the loop's results nor the body, other than carrying themselves) are dropped. Repeated
until nothing changes. Ops with effects (stores, calls, accelerator ops) all stay, in order.

Preserves: every function's results and memory effects.
Assumes: nothing beyond the IR's own rules.
"""
from __future__ import annotations

from ..nodes import Block, Function, Module, Op
from .common import Subst, has_effect, is_pure, resolve, substitute, use_counts

NAME = "cse_dce"


def _key(op: Op):
    attrs = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in op.attrs.items()))
    args = tuple(id(a) for a in op.args)
    if op.opcode in ("xor", "and", "or", "add", "mul", "eq", "ne"):
        args = tuple(sorted(args))
    return op.opcode, args, attrs, tuple(r.width for r in op.results)


def _cse(block: Block, scopes: list[dict], subst: dict[int, object]) -> None:
    table: dict = {}
    scopes.append(table)
    for op in block.ops:
        op.args = [resolve(subst, a) for a in op.args]
        for r in op.regions:
            _cse(r, scopes, subst)
        if not is_pure(op) or not op.results:
            continue
        key = _key(op)
        found = next((s[key] for s in reversed(scopes) if key in s), None)
        if found is not None:
            for r, e in zip(op.results, found.results):
                subst.bind(r, e)
            op.attrs["__dead__"] = True
        else:
            table[key] = op
    block.ops = [op for op in block.ops if not op.attrs.pop("__dead__", False)]
    block.yields = [resolve(subst, y) for y in block.yields]
    scopes.pop()


def _dce_once(fn: Function) -> bool:
    uses = use_counts(fn)
    changed = False

    def release(op: Op) -> None:
        # A removed op no longer uses its operands (nor do the ops inside its regions).
        for a in op.args:
            uses[id(a)] = uses.get(id(a), 0) - 1
        for r in op.regions:
            for y in r.yields:
                uses[id(y)] = uses.get(id(y), 0) - 1
            for inner in r.ops:
                release(inner)

    def visit(block: Block) -> None:
        nonlocal changed
        kept = []
        # Backwards, so a whole dead chain goes in one sweep.
        for op in reversed(block.ops):
            used = any(uses.get(id(r), 0) > 0 for r in op.results)
            if not used and (is_pure(op) or (op.regions and not has_effect(op))):
                release(op)
                changed = True
                continue
            for r in op.regions:
                visit(r)
            if op.opcode == "for" and _drop_carried(op, uses):
                changed = True
            kept.append(op)
        block.ops = kept[::-1]

    visit(fn.body)
    return changed


def _drop_carried(op: Op, uses: dict[int, int]) -> bool:
    """Remove carried values whose result is unused and whose param feeds only its own yield."""
    body = op.regions[0]
    keep = []
    for i, (p, r) in enumerate(zip(body.params[1:], op.results)):
        y = body.yields[i]
        self_only = uses.get(id(p), 0) == (1 if y is p else 0)
        keep.append(not (uses.get(id(r), 0) == 0 and self_only))
    if all(keep):
        return False
    body.params = [body.params[0]] + [p for p, k in zip(body.params[1:], keep) if k]
    body.yields = [y for y, k in zip(body.yields, keep) if k]
    op.results = [r for r, k in zip(op.results, keep) if k]
    op.args = op.args[:2] + [a for a, k in zip(op.args[2:], keep) if k]
    return True


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    run_in_place(module, knobs)
    return module


def run_in_place(module: Module, knobs: dict | None = None) -> None:
    """The pass on a module the caller owns (the pipeline's later steps: no copy)."""
    for fn in module.functions:
        subst = Subst()
        _cse(fn.body, [], subst)
        substitute(fn.body, subst)
        while _dce_once(fn):
            pass
