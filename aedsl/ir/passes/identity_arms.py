"""A binary op whose operand is an `if` result that one arm gives as the op's identity is moved
into the `if`: the other arm computes it, and the identity arm yields the other operand.

IR shape matched, in one block: `p = if c { ...; yield a } else { yield 0 }` (either arm, an
`if` with any number of results) followed by `y = x ^ p` (or `x | p`, `x + p`, `x & p` with the
all-ones identity, either operand order; `x - p` with `p` on the right), where `p` is read by
nothing else and `x` is available at the `if` (defined before it, in this block or an enclosing
one, or a parameter). It becomes `y = if c { ...; yield x ^ a } else { yield x }`.

The typical source is a sponge's padding under frontend.lazy_if: `x ^ pad(count)` with
`pad = if count < rate then (1 << 8 count) | ... else 0` on a public condition. Before this
pass a whole block paid for the zero arm: a wide zero built, carried to the join and XORed in
(NORX on ARMv6-M: twelve words a block, loaded, XORed and stored for nothing). Now only a
partial block takes the XOR. A `select` (a secret condition) is left alone: both of its arms
are computed anyway, and its result is constant time as it stands.

Knob `identity_arms`: `on` (default) or `off`.

Preserves: every function's results and memory effects (the op is pure; `x op identity` is
`x`, and the op now runs in the arm whose value it used, before the same later readers).
Assumes: nothing beyond the IR's own rules (SSA: a value defined before the `if` is available
in both arms).
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Function, Module, Op, Value
from .common import Names, const_defs, switched_on, use_counts

NAME = "identity_arms"
KNOBS = (Knob("identity_arms", "pass", ("on", "off"), "on",
              doc="ops whose if-operand is the identity in one arm moved into the if: on or off"),)

# opcode -> (identity as a function of the width, whether the if result may be either operand)
_IDENTITY = {
    "xor": (lambda w: 0, True),
    "or": (lambda w: 0, True),
    "add": (lambda w: 0, True),
    "and": (lambda w: (1 << w) - 1, True),
    "sub": (lambda w: 0, False),
}


def acts(knobs: dict) -> bool:
    return switched_on(knobs, "identity_arms")


class _Sink:
    def __init__(self, fn: Function):
        self.fn = fn
        self.names = Names(fn)
        self.consts = const_defs(fn)
        self.uses = use_counts(fn)

    def block(self, block: Block) -> None:
        for op in block.ops:
            for r in op.regions:
                self.block(r)
        where: dict[int, tuple[int, Op, int]] = {}     # id(if result) -> (index, the if, result no.)
        defined_at: dict[int, int] = {}                # id(value) -> index of its op in this block
        out: list[Op] = []
        for op in block.ops:
            if self._sink(op, where, defined_at):
                continue
            for j, r in enumerate(op.results):
                defined_at[id(r)] = len(out)
                if op.opcode == "if":
                    where[id(r)] = (len(out), op, j)
            out.append(op)
        block.ops = out

    def _sink(self, op: Op, where, defined_at) -> bool:
        rule = _IDENTITY.get(op.opcode)
        if rule is None or len(op.args) != 2 or len(op.results) != 1:
            return False
        identity, either = rule
        for k in ((0, 1) if either else (1,)):
            p, x = op.args[k], op.args[1 - k]
            if not isinstance(p, Value) or not isinstance(x, Value) or id(p) not in where:
                continue
            at, branch, j = where[id(p)]
            if self.uses.get(id(p), 0) != 1 or defined_at.get(id(x), -1) >= at or p.width != op.results[0].width:
                continue
            arms = branch.regions
            ident = [self.consts.get(id(arm.yields[j])) == identity(p.width) for arm in arms]
            if sum(ident) != 1:
                continue
            y = op.results[0]
            for arm, is_identity in zip(arms, ident):
                if is_identity:
                    arm.yields[j] = x
                else:
                    a = arm.yields[j]
                    v = self.names.value(y.name, y.width)
                    arm.ops.append(Op(op.opcode, [v], [x, a] if k == 1 else [a, x], dict(op.attrs), [], op.loc))
                    arm.yields[j] = v
            branch.results[j] = y
            del where[id(p)]
            where[id(y)] = (at, branch, j)       # y may take another such op in turn
            return True
        return False


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    run_in_place(module, knobs)
    return module


def run_in_place(module: Module, knobs: dict | None = None) -> None:
    """The pass on a module the caller owns. The identity constants it leaves unread go with the
    next cse_dce (legalize's clean-up)."""
    if not acts(knobs or {}):
        return
    for fn in module.functions:
        _Sink(fn).block(fn.body)
