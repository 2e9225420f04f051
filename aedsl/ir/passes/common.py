"""Helpers shared by the IR passes: purity, constant evaluation, fresh names, cloning, rewriting.

Purity, effects and evaluation come from the op table (aedsl/ir/ops.py).

Not a pass itself (it has no NAME). Everything here works on a module the pass has already
cloned, so mutating is allowed; passes call `module.clone()` before using any of it.
"""
from __future__ import annotations

import re

from .. import ops
from ..nodes import Block, Function, Memory, Module, Op, Value, walk_ops
from ..ops import OPS

# Entry points by the conventions of docs/LANGUAGE.md; a module that has none of them keeps all
# of its own (un-dotted) functions as roots.
ENTRY_NAMES = ("key_schedule", "encrypt_block", "decrypt_block", "encrypt", "decrypt")
# A scheme's key-setup stage (docs/LANGUAGE.md): roots too when all three are there.
KEY_SETUP_NAMES = ("key_setup", "encrypt_with", "decrypt_with")


def key_setup_stage(module: Module) -> tuple[str, ...]:
    """KEY_SETUP_NAMES if the module defines all three, else ()."""
    return KEY_SETUP_NAMES if all(module.has_function(n) for n in KEY_SETUP_NAMES) else ()


# Wider than this, a shift by a run-time amount is a multi-word shift: a loop or a long run of
# word shifts on either target, against which a branch costs a few cycles (frontend/lazy_if.py
# branches over such an arm, passes/saturating_shifts.py guards such a shift).
WIDE_SHIFT_BITS = 64


def is_wide_shift(op: Op) -> bool:
    """`op` shifts a value wider than WIDE_SHIFT_BITS by a run-time amount."""
    return op.opcode in ("shl_var", "shr_var") and op.results[0].width > WIDE_SHIFT_BITS


def is_pure(op: Op) -> bool:
    """True if `op` may be removed when unused, duplicated or merged with an equal op."""
    spec = OPS.get(op.opcode)
    if spec is not None and spec.pure:
        return True
    # Tables are read-only, so a table load is a pure function of its index.
    return op.opcode == "load" and isinstance(op.args[0], Memory) and op.args[0].kind == "table"


def has_effect(op: Op) -> bool:
    """Ops that must stay even when their results are unused (and keep their order)."""
    spec = OPS.get(op.opcode)
    if spec is not None and spec.has_effect:
        return True
    return any(has_effect(o) for r in op.regions for o in walk_ops(r))


def evaluate(op: Op, vals: list[int]) -> list[int]:
    """The results of pure scalar op `op` on constant operand values (the op table, ops.py)."""
    return ops.evaluate(op.opcode, vals, [a.width for a in op.args], op.results[0].width, op.attrs)


class Names:
    """Fresh value names inside one function (names must stay unique there for the printer)."""

    def __init__(self, fn: Function):
        self.used: set[str] = set()
        for p in fn.params:
            self.used.add(p.name)
        self._collect(fn.body)
        self.counter = 0

    def _collect(self, block: Block) -> None:
        self.used.update(p.name for p in block.params)
        for op in block.ops:
            self.used.update(r.name for r in op.results)
            for r in op.regions:
                self._collect(r)

    def fresh(self, base: str) -> str:
        base = re.sub(r"_\d+$", "", base)
        while True:
            self.counter += 1
            name = f"{base}_{self.counter}"
            if name not in self.used:
                self.used.add(name)
                return name

    def value(self, base: str, width: int) -> Value:
        return Value(self.fresh(base), width)


def clone_block(block: Block, vmap: dict[int, object], names: Names) -> Block:
    """A copy of `block` with fresh result/param values; operands are mapped through `vmap`
    (id -> replacement), which the copy extends with every value it defines."""
    params = []
    for p in block.params:
        q = names.value(p.name, p.width)
        vmap[id(p)] = q
        params.append(q)
    ops = [clone_op(op, vmap, names) for op in block.ops]
    return Block(params, ops, [vmap.get(id(y), y) for y in block.yields])


def clone_op(op: Op, vmap: dict[int, object], names: Names) -> Op:
    args = [vmap.get(id(a), a) for a in op.args]
    regions = [clone_block(r, vmap, names) for r in op.regions]
    results = []
    for r in op.results:
        q = names.value(r.name, r.width)
        vmap[id(r)] = q
        results.append(q)
    return Op(op.opcode, results, args, dict(op.attrs), regions, op.loc)


class Subst(dict):
    """id(old value) -> its replacement. Keeps every replaced value alive: ids of dead objects
    are reused by Python, which would silently redirect a new value."""

    def __init__(self):
        super().__init__()
        self._keep: list = []

    def bind(self, old, new) -> None:
        self[id(old)] = new
        self._keep.append(old)


def substitute(block: Block, subst: dict[int, object]) -> None:
    """Replace operands (and yields) in `block` and its regions through `subst`, in place."""
    if not subst:
        return
    for op in block.ops:
        op.args = [resolve(subst, a) for a in op.args]
        for r in op.regions:
            substitute(r, subst)
    block.yields = [resolve(subst, y) for y in block.yields]


def resolve(subst: dict[int, object], x):
    while id(x) in subst:
        x = subst[id(x)]
    return x


def tree_inner(block: Block, opcodes, uses: dict[int, int], defs: dict[int, Op]) -> set[int]:
    """The inner nodes of the operation trees of `block`: ops whose opcode is in `opcodes`, read
    once, by an op of the same opcode and width in the block (ids of the ops)."""
    inner: set[int] = set()
    for op in block.ops:
        if op.opcode in opcodes:
            for a in op.args:
                d = defs.get(id(a))
                if d is not None and d.opcode == op.opcode and uses.get(id(a), 0) == 1 \
                        and a.width == op.results[0].width:
                    inner.add(id(d))
    return inner


def tree_leaves(op: Op, defs: dict[int, Op], inner: set[int], leaves: list, nodes: list) -> None:
    """Append the leaves of the tree rooted at `op` (left to right) and its nodes."""
    nodes.append(op)
    for a in op.args:
        d = defs.get(id(a))
        if d is not None and id(d) in inner:
            tree_leaves(d, defs, inner, leaves, nodes)
        else:
            leaves.append(a)


def left_chain(opcode: str, leaves: list, result: Value, names: "Names", out: list, loc=None) -> None:
    """Append the ops computing `result` as the left-deep chain of `opcode` over `leaves` (two
    or more): ((l0 op l1) op l2) ..., the last op defining `result`."""
    acc = leaves[0]
    for k, v in enumerate(leaves[1:]):
        r = result if k == len(leaves) - 2 else names.value(result.name, result.width)
        out.append(Op(opcode, [r], [acc, v], {}, [], loc))
        acc = r


def use_counts(fn: Function) -> dict[int, int]:
    """How many times each value is used as an operand or a yield (anywhere in the function)."""
    counts: dict[int, int] = {}

    def visit(block: Block) -> None:
        for op in block.ops:
            for a in op.args:
                counts[id(a)] = counts.get(id(a), 0) + 1
            for r in op.regions:
                visit(r)
        for y in block.yields:
            counts[id(y)] = counts.get(id(y), 0) + 1

    visit(fn.body)
    return counts


def fingerprint(params: list[Value], ops: list[Op], outs: list) -> tuple:
    """A structural key of a cone: equal keys compute equal functions of the parameters."""
    index = {id(p): ("p", i, p.width) for i, p in enumerate(params)}
    rows = []
    for n, op in enumerate(ops):
        args = tuple(("t", a.name) if isinstance(a, Memory) else index[id(a)] for a in op.args)
        attrs = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in op.attrs.items()))
        rows.append((op.opcode, args, attrs, tuple(r.width for r in op.results)))
        for j, r in enumerate(op.results):
            index[id(r)] = ("o", n, j)
    return tuple(rows), tuple(index[id(v)] for v in outs)


def concat_parts(op: Op) -> list[tuple[Value, int]]:
    """(part, its lowest bit) of concat `op`, most significant part first."""
    out, pos = [], op.results[0].width
    for part in op.args:
        pos -= part.width
        out.append((part, pos))
    return out


def op_count(block: Block) -> int:
    """The ops of `block`, those of nested regions included."""
    return sum(1 for _ in walk_ops(block))


def const_defs(fn: Function) -> dict[int, int]:
    """id(value) -> constant, for every value defined by a `const` op in `fn`."""
    return {id(op.results[0]): op.attrs["value"] for op in walk_ops(fn.body) if op.opcode == "const"}


def reachable_functions(module: Module) -> list[Function]:
    """The entry points (see ENTRY_NAMES, KEY_SETUP_NAMES) and every function they call, in
    module order."""
    roots = [f.name for f in module.functions if f.name in ENTRY_NAMES]
    if not roots:
        roots = [f.name for f in module.functions if "." not in f.name]
    roots += key_setup_stage(module)
    seen = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or not module.has_function(name):
            continue
        seen.add(name)
        todo.extend(op.attrs["callee"] for op in walk_ops(module.function(name).body)
                    if op.opcode == "call")
    return [f for f in module.functions if f.name in seen]


def is_size_mode(knobs: dict | None) -> bool:
    """`-k opt=size` is set (the `opt` knob, declared by the inline pass; speed is the default)."""
    return str((knobs or {}).get("opt", "speed")) == "size"


def switched_on(knobs: dict | None, name: str) -> bool:
    """Whether a pass's `on` | `off` knob `name` (default `on`) is on; a ValueError for any other
    value."""
    mode = str((knobs or {}).get(name, "on"))
    if mode not in ("on", "off"):
        raise ValueError(f"knob {name}={mode!r}: expected on or off")
    return mode == "on"


SIZE_AUTO_MODES = ("auto", "on", "off")


def size_auto(knobs: dict | None, name: str) -> bool:
    """Whether a pass's `auto` | `on` | `off` knob `name` (default `auto`: on in size mode) is
    on; a ValueError for any other value."""
    mode = str((knobs or {}).get(name, "auto"))
    if mode not in SIZE_AUTO_MODES:
        raise ValueError(f"knob {name}={mode!r}: expected auto, on or off")
    return mode == "on" or (mode == "auto" and is_size_mode(knobs))


def table_uses(module: Module) -> tuple[dict[str, list[Op]], set[str]]:
    """The loads of each read-only table by name (in program order), and the names of the tables
    used any other way (a call's memory argument, `len`)."""
    loads: dict[str, list[Op]] = {}
    other: set[str] = set()
    for fn in module.functions:
        for op in walk_ops(fn.body):
            for k, a in enumerate(op.args):
                if isinstance(a, Memory) and a.kind == "table":
                    if op.opcode == "load" and k == 0:
                        loads.setdefault(a.name, []).append(op)
                    else:
                        other.add(a.name)
    return loads, other


def knob_int(knobs: dict, name: str, default: int | None = None) -> int | None:
    v = (knobs or {}).get(name)
    if v is None or v == "":
        return default
    return int(v)
