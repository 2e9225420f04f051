"""Conditional expressions on a runtime condition, `if c then a else b`: a `select` when both arms
are pure, control flow (an IR `if` whose regions yield the arms' values) when an arm can fault
or has an effect, so that the arm not chosen is never evaluated, and when a public condition
guards an arm that shifts a value wider than 64 bits by a run-time amount (`_costly`): the arm
not chosen then costs nothing.

The choice needs to know what the functions an arm calls do, and those may be lowered later, so
`lower_expr` emits a placeholder op (`PENDING`: operands condition, value of a, value of b;
regions: a's ops, b's ops, the constants the values need) and `resolve(module)` replaces every
placeholder once the whole module is lowered. The select form is op for op what a conditional
expression always lowered to: a's ops, b's ops, the constants, the select.

An arm is impure when it, or a function it calls, contains
  - a read of memory that may be out of range: an element of a `bytes` buffer or a word read
    from one (`load_le`/`load_be`; but the partial read of a buffer's first `len(buf)` bytes,
    `load_be(buf, 0, n, len(buf))`, stays inside it), an array element whose index is not
    provably below the length, a word read from a fixed array at an offset not provably
    inside it;
  - a write to memory (`store`, `store_be`, `store_le`) or an accelerator op.
Division is total (x / 0 = 0, x % 0 = x) and never makes an arm impure.

As control flow, the condition decides which instructions run: it must be public (ir/secrecy.py),
and a secret one is an error at the condition.
"""
from __future__ import annotations

from ..ir.nodes import Block, Function, Module, Op, Value, walk_ops
from ..ir.passes.common import is_wide_shift
from ..ir.secrecy import Secrecy

PENDING = "pending_select"   # the placeholder's opcode; none survives `resolve`


class Hazards:
    """Which ops and functions of a module can fault or have an effect (see the module doc)."""

    def __init__(self, module: Module):
        self.functions = {f.name: f for f in module.functions}
        self.memo: dict[str, tuple | None] = {}
        self.defs: dict[str, dict[int, Op]] = {}
        self.loop_bounds: dict[str, dict[int, Value]] = {}

    def definitions(self, fname: str) -> tuple[dict[int, Op], dict[int, Value]]:
        if fname not in self.defs:
            defs, bounds = {}, {}
            for op in walk_ops(self.functions[fname].body):
                for r in op.results:
                    defs[id(r)] = op
                if op.opcode == "for":
                    bounds[id(op.regions[0].params[0])] = op.args[1]   # index < hi
            self.defs[fname], self.loop_bounds[fname] = defs, bounds
        return self.defs[fname], self.loop_bounds[fname]

    def bound(self, fname: str, v: Value, depth: int = 0) -> int:
        """An exclusive upper bound of `v`'s value."""
        defs, bounds = self.definitions(fname)
        top = 1 << v.width
        if depth > 8:
            return top
        if id(v) in bounds:
            return min(top, self.bound(fname, bounds[id(v)], depth + 1))
        op = defs.get(id(v))
        if op is None:
            return top
        if op.opcode == "const":
            return op.attrs["value"] + 1
        if op.opcode == "and":
            return min(top, *(self.bound(fname, x, depth + 1) for x in op.args))
        if op.opcode == "umod" and self.constant(fname, op.args[1]) is not None:
            return min(top, max(self.constant(fname, op.args[1]), 1), self.bound(fname, op.args[0], depth + 1))
        if op.opcode == "zext":
            return min(top, self.bound(fname, op.args[0], depth + 1))
        if op.opcode == "shr":
            return min(top, (self.bound(fname, op.args[0], depth + 1) - 1 >> op.attrs["by"]) + 1)
        return top

    def constant(self, fname: str, v: Value) -> int | None:
        op = self.definitions(fname)[0].get(id(v))
        return op.attrs["value"] if op is not None and op.opcode == "const" else None

    def is_len_of(self, fname: str, v: Value, mem) -> bool:
        op = self.definitions(fname)[0].get(id(v))
        return op is not None and op.opcode == "len" and op.args[0] is mem

    def op_hazard(self, fname: str, op: Op) -> tuple | None:
        """(what, op) if `op` can fault or has an effect, else None."""
        code = op.opcode
        if code in ("store", "store_be", "store_le"):
            return f"writes {op.args[0].name}", op
        if code in ("accel_start", "accel_result"):
            return "uses the accelerator", op
        if code == "load":
            mem, index = op.args
            if mem.length is None or self.bound(fname, index) > mem.length:
                return f"reads {mem.name} at an index that may be out of range", op
        if code in ("load_be", "load_le"):
            mem, offset = op.args[:2]
            off = self.constant(fname, offset)
            whole = off == 0 and len(op.args) == 3 and self.is_len_of(fname, op.args[2], mem)
            if not whole and (mem.length is None or off is None or off + op.attrs["bytes"] > mem.length):
                return f"reads {mem.name} at an offset that may be out of range", op
        if code == "call":
            inner = self.function_hazard(op.attrs["callee"])
            if inner is not None:
                return f"calls {op.attrs['callee']}, which {inner[0]}", inner[1]
        return None

    def function_hazard(self, fname: str) -> tuple | None:
        if fname not in self.memo:
            self.memo[fname] = None          # no recursion (the elaborator rejects it)
            self.memo[fname] = self.block_hazard(fname, self.functions[fname].body)
        return self.memo[fname]

    def block_hazard(self, fname: str, block: Block) -> tuple | None:
        for op in walk_ops(block):
            h = self.op_hazard(fname, op)
            if h is not None:
                return h
        return None


# A pure arm is branched over instead of computed into a select, when the condition is public,
# if it shifts a value wider than WIDE_SHIFT_BITS by a run-time amount (NORX's pad(count),
# `(1 as u384) << 8 * count`, is needed for the last block only: stm32f030, NORX32-4-1 with
# 16 B AD and 256 B message, 19 461 -> 18 950 cycles).
def _costly(block: Block) -> bool:
    """Whether an arm shifts a value wider than WIDE_SHIFT_BITS by a run-time amount."""
    return any(is_wide_shift(o) for o in walk_ops(block))


def resolve(module: Module) -> None:
    """Replace every `PENDING` op of `module` by a select or an IR `if` (see the module doc);
    SpecError at the condition of a lazy one whose condition is secret."""
    hazards = Hazards(module)
    secrecy = []                       # built on first need: [Secrecy]
    for f in module.functions:
        if any(op.opcode == PENDING for op in walk_ops(f.body)):
            _resolve_block(f, f.body, hazards, secrecy, module)


def _public(secrecy: list, module: Module, f: Function, cond) -> bool:
    """Whether `cond` is public (the module's Secrecy built on first need, kept in `secrecy`)."""
    if not secrecy:
        secrecy.append(Secrecy(module))
    return secrecy[0].is_public(f.name, cond)


def _resolve_block(f: Function, block: Block, hazards: Hazards, secrecy: list, module: Module) -> None:
    ops: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            _resolve_block(f, region, hazards, secrecy, module)
        if op.opcode != PENDING:
            ops.append(op)
            continue
        cond, xa, xb = op.args
        a_block, b_block, tail = op.regions
        hazard = hazards.block_hazard(f.name, a_block) or hazards.block_hazard(f.name, b_block)
        costly = hazard is None and (_costly(a_block) or _costly(b_block))
        public = (hazard is not None or costly) and _public(secrecy, module, f, cond)
        if hazard is None and not (costly and public):
            ops += a_block.ops + b_block.ops + tail.ops
            ops.append(Op("select", op.results, [cond, xa, xb], {}, [], op.loc))
            continue
        spec = op.attrs["spec"]
        if not public:
            what, at = hazard
            here = op.attrs["cond"].meta.line if not op.attrs["cond"].meta.empty else 0
            where = (f" (line {at.loc[1]})" if at.loc and at.loc[0] == spec.display
                     and at.loc[1] != here else "")
            raise spec.error(f"this condition may be secret, but an arm {what}{where}, so this "
                             f"`if ... then ... else` must branch, and a branch needs a public "
                             f"condition (from lengths, loop indices, constants)", op.attrs["cond"])
        consts = {id(c.results[0]): c for c in tail.ops}
        regions = []
        for arm, x in ((a_block, xa), (b_block, xb)):
            extra = [consts[id(x)]] if id(x) in consts else []
            regions.append(Block(ops=arm.ops + extra, yields=[x]))
        ops.append(Op("if", op.results, [cond], {}, regions, op.loc))
    block.ops = ops
