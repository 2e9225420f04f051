"""Compile-time evaluation for declarations (consts, knob choices, table entries, types, asserts):
the expression visitor with a strategy that sees only spec-level constants and rejects
everything that would need a runtime value.

A comprehension (`[f(j) for j in lo..hi]`) evaluates its formula with a local scope: the index
`j` and the elements computed so far (`PartialTable`), so a formula may read the ones before
it (`rc[i - 1]`, a recurrence such as an LFSR sequence)."""
from __future__ import annotations

from .builtins import fold_min_max
from .evaluate import ExprEvaluator
from .types import MAX_CONST_BITS, CInt


class PartialTable:
    """The elements of a table or perm computed so far by its comprehension, each a u`width`."""

    def __init__(self, name: str, width: int):
        self.name = name
        self.width = width
        self.values: list[int] = []


class ConstStrategy:
    """Expressions over compile-time values only (knobs, consts, literals), with an optional
    local scope (a comprehension's index and its table's elements so far) in front of them."""

    def __init__(self, spec, scope: dict | None = None):
        self.spec = spec
        self.scope = scope or {}
        self.eval = ExprEvaluator(self).eval

    def error(self, message, node):
        return self.spec.error(message, node)

    def unsupported(self, node):
        return self.error("not a compile-time expression", node)

    def name(self, node):
        name = str(node.children[0])
        if name in self.scope:
            return self.scope[name]
        entry = self.spec.globals.get(name)
        if entry is not None and entry[0] == "const":
            return entry[1]
        if entry is None and name in self.spec.enum_values:
            return name
        if entry is None:
            raise self.error(f"unknown name {name!r}", node)
        raise self.error(f"{name} is not a compile-time value", node)

    def call(self, node):
        callee, *args = node.children
        spec, entry = const_fn_of(self.spec, callee)
        names = [str(c) for c in callee.children if c is not None]
        if entry is None and len(names) == 1 and names[0] in ("min", "max") and names[0] not in self.spec.globals:
            values = [self.eval(a) for a in args if a is not None]
            if len(values) < 2 or not all(isinstance(v, CInt) for v in values):
                raise self.error(f"{names[0]} takes two or more compile-time integers here", node)
            return fold_min_max(self.spec, names[0], values, node)
        if entry is None:
            raise self.error("only compile-time functions (`const f(x) = ...`) can be called here", node)
        return call_const_fn(self.spec, spec, entry, [self.eval(a) for a in args if a is not None], node)

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
        if isinstance(base, PartialTable):
            i = self.amount(node.children[1])
            if not 0 <= i < len(base.values):
                raise self.error(f"{base.name}[{i}] is not computed yet: a comprehension reads only "
                                 f"the elements before the one it computes (0..{len(base.values) - 1})",
                                 node.children[1])
            return CInt(base.values[i], base.width)
        raise self.error("cannot index this at compile time", node)

    def slice(self, base, hi, lo, node):
        raise self.error("bad bit slice", node)


def const_eval(spec, expr, scope: dict | None = None):
    """The compile-time value of `expr` in `spec`: a `CInt` or a knob choice name. `scope` binds
    local names (a comprehension's index, its `PartialTable`) in front of the spec's."""
    return ConstStrategy(spec, scope).eval(expr)


def const_fn_of(spec, callee):
    """(the spec defining it, its ("constfn", params, body) entry) if `callee` names a
    compile-time function, else (spec, None)."""
    parts = [str(c) for c in callee.children if c is not None]
    if len(parts) == 2:
        spec = spec.use_of(parts[0], callee)
    entry = spec.globals.get(parts[-1])
    return spec, (entry if entry is not None and entry[0] == "constfn" else None)


def call_const_fn(caller, spec, entry, args: list, node):
    """The value of a compile-time function of `spec` applied to compile-time `args` at `node`
    in `caller`: its body evaluated with the parameters bound (it sees its spec's constants,
    not the caller's locals)."""
    _, params, body = entry
    name = str(node.children[0].children[-1])
    if len(args) != len(params):
        raise caller.error(f"{name} takes {len(params)} argument(s), not {len(args)}", node)
    for a in args:
        if not isinstance(a, (CInt, str)):
            raise caller.error(f"{name} is a compile-time function: its arguments must be "
                               f"compile-time values", node)
    try:
        return const_eval(spec, body, dict(zip(params, args)))
    except RecursionError:
        raise caller.error(f"{name}: compile-time calls nest too deeply (does it call itself?)", node) from None
