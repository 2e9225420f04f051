"""Compile-time evaluation for declarations (consts, knob choices, table entries, types, asserts):
the expression visitor with a strategy that sees only spec-level constants and rejects
everything that would need a runtime value."""
from __future__ import annotations

from .evaluate import ExprEvaluator
from .types import MAX_CONST_BITS, CInt


class ConstStrategy:
    """Expressions over compile-time values only (knobs, consts, literals)."""

    def __init__(self, spec):
        self.spec = spec
        self.eval = ExprEvaluator(self).eval

    def error(self, message, node):
        return self.spec.error(message, node)

    def unsupported(self, node):
        return self.error("not a compile-time expression", node)

    def name(self, node):
        name = str(node.children[0])
        entry = self.spec.globals.get(name)
        if entry is not None and entry[0] == "const":
            return entry[1]
        if entry is None and name in self.spec.enum_values:
            return name
        if entry is None:
            raise self.error(f"unknown name {name!r}", node)
        raise self.error(f"{name} is not a compile-time value", node)

    def call(self, node):
        raise self.error("function calls are not compile-time expressions", node)

    def amount(self, node) -> int:
        v = self.eval(node)
        if not isinstance(v, CInt):
            raise self.error("expected a compile-time integer", node)
        if v.value > MAX_CONST_BITS * 4 or v.value < -MAX_CONST_BITS * 4:
            raise self.error("index or amount too large", node)
        return v.value

    # Operations that did not fold: their operands are not compile-time integers.
    def select(self, cond, node):
        raise self.error("condition must be an integer", node.children[0])

    def binop(self, op, a, b, node):
        raise self.error("expected compile-time integers", node)

    def not_(self, v, node):
        raise self.error("`~` of a compile-time value needs a width (e.g. `x as u8`)", node)

    def neg(self, v, node):
        raise self.error("cannot negate this", node)

    def cast(self, v, typ, node):
        raise self.error("only integers can be cast to a word type", node)

    def index(self, base, node):
        raise self.error("cannot index this at compile time", node)

    def slice(self, base, hi, lo, node):
        raise self.error("bad bit slice", node)


def const_eval(spec, expr):
    """The compile-time value of `expr` in `spec`: a `CInt` or a knob choice name."""
    return ConstStrategy(spec).eval(expr)
