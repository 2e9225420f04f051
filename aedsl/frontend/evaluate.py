"""The one expression visitor: walks an expression tree and folds every operation whose operands
are compile-time values (`CInt`, or a knob choice name as a `str`).

What an expression means beyond folding depends on where it stands, so the visitor is
parameterised by a strategy object. The strategy resolves names, evaluates calls, reads slice
bounds and bit indices, and receives every operation it could not fold. Two strategies exist:
`consteval.ConstStrategy` (declarations: anything not foldable is an error) and
`lower_expr.ExprLowering` (function bodies: emit IR for it). The strategy interface:

    spec                       the spec being elaborated (`use_of`, `eval_type`, `error`)
    error(message, node)       a SpecError at node
    unsupported(node)          a SpecError for an expression kind the strategy has no meaning for
    name(node)                 value of a plain name
    call(node)                 value of a call expression
    amount(node) -> int        a slice bound or bit index, which must be compile-time
    select(cond, node)         `if c then a else b` whose condition did not fold
    binop(op, a, b, node)      binary operator whose operands did not both fold
    not_(v, node), neg(v, node), cast(v, typ, node), index(base, node), slice(base, hi, lo, node)
                               the unary and postfix operations that did not fold
"""
from __future__ import annotations

from .syntax import parse_int
from .types import MAX_CONST_BITS, CInt, Word

SHIFTS = ("<<", ">>", "<<<", ">>>")


class ExprEvaluator:
    def __init__(self, strategy):
        self.s = strategy

    def eval(self, node):
        method = getattr(self, "e_" + node.data, None)
        if method is None:
            raise self.s.unsupported(node)
        return method(node)

    # -- atoms
    def e_int_lit(self, node):
        return CInt(parse_int(node.children[0]))

    def e_str_lit(self, node):
        return str(node.children[0])[1:-1]

    def e_name(self, node):
        return self.s.name(node)

    def e_qualified_name(self, node):
        alias, name = (str(c) for c in node.children)
        sub = self.s.spec.use_of(alias, node)
        entry = sub.globals.get(name)
        if entry is None or entry[0] != "const":
            raise self.s.error(f"spec {alias} has no constant {name!r}", node)
        return entry[1]

    def e_call(self, node):
        return self.s.call(node)

    # -- operators
    def e_cond_expr(self, node):
        c, a, b = node.children
        cv = self.eval(c)
        if isinstance(cv, CInt):
            return self.eval(a) if cv.value else self.eval(b)
        return self.s.select(cv, node)

    def binary(self, op: str, a, b, node):
        if isinstance(a, (CInt, str)) and isinstance(b, (CInt, str)):
            return const_binop(self.s.spec, op, a, b, node)
        return self.s.binop(op, a, b, node)

    def e_compare(self, node):
        a, op, b = node.children
        av, bv = self.eval(a), self.eval(b)
        if str(op) in ("==", "!="):
            self.check_knob_comparison(a, av, b, bv)
            self.check_knob_comparison(b, bv, a, av)
        return self.binary(str(op), av, bv, node)

    def e_shift(self, node):
        a, op, b = node.children
        return self.binary(str(op), self.eval(a), self.eval(b), node)

    e_arith = e_shift

    def check_knob_comparison(self, knob_node, knob_value, other_node, other_value) -> None:
        """`knob == X` where X is a literal or a choice name the knob cannot take (`key_bits ==
        accel`) is always false or always true: a mistake, reported at X."""
        spec = self.s.spec
        if getattr(knob_node, "data", None) != "name":
            return
        name = str(knob_node.children[0])
        choices = spec.knob_choices.get(name)
        entry = spec.globals.get(name)
        if choices is None or entry is None or entry[1] is not knob_value:
            return   # not the knob (a local of that name, or not a knob at all)
        if getattr(other_node, "data", None) == "int_lit" and isinstance(other_value, CInt):
            value = other_value.value
        elif (getattr(other_node, "data", None) == "name" and isinstance(other_value, str)
              and str(other_node.children[0]) not in spec.globals):
            value = other_value
        else:
            return
        if value not in choices:
            shown = ", ".join(str(v) for v in choices) if len(choices) <= 16 else f"{choices[0]}..{choices[-1]}"
            raise self.s.error(f"knob {name} is compared with {value}, a value it cannot take ({shown})",
                               other_node)

    def e_or_(self, node):
        return self.binary("|", self.eval(node.children[0]), self.eval(node.children[1]), node)

    def e_xor(self, node):
        return self.binary("^", self.eval(node.children[0]), self.eval(node.children[1]), node)

    def e_and_(self, node):
        return self.binary("&", self.eval(node.children[0]), self.eval(node.children[1]), node)

    def e_not_(self, node):
        v = self.eval(node.children[0])
        if isinstance(v, CInt) and v.width is not None:
            return const_binop(self.s.spec, "^", v, CInt(-1 % (1 << v.width), v.width), node)
        return self.s.not_(v, node)

    def e_neg(self, node):
        v = self.eval(node.children[0])
        if isinstance(v, CInt):
            return CInt(-v.value % (1 << v.width), v.width) if v.width else CInt(-v.value)
        return self.s.neg(v, node)

    def e_cast(self, node):
        a, t = node.children
        v = self.eval(a)
        typ = self.s.spec.eval_type(t)
        if isinstance(v, CInt) and isinstance(typ, Word):
            return CInt(v.value % (1 << typ.width), typ.width)
        return self.s.cast(v, typ, node)

    def e_index(self, node):
        a, i = node.children
        base = self.eval(a)
        if isinstance(base, CInt):
            return CInt((base.value >> self.s.amount(i)) & 1, 1)
        return self.s.index(base, node)

    def e_slice(self, node):
        a, hi, lo = node.children
        base = self.eval(a)
        h, l = self.s.amount(hi), self.s.amount(lo)
        if isinstance(base, CInt) and 0 <= l <= h:
            return CInt((base.value >> l) & ((1 << (h - l + 1)) - 1), h - l + 1)
        return self.s.slice(base, h, l, node)


def const_binop(spec, op: str, a, b, node):
    """`a op b` on compile-time operands; `spec.error` makes the diagnostics."""
    if isinstance(a, str) or isinstance(b, str):
        if op in ("==", "!="):
            return CInt(int((a == b) == (op == "==")), 1)
        raise spec.error(f"operator {op} does not apply to knob choice names", node)
    if not isinstance(a, CInt) or not isinstance(b, CInt):
        raise spec.error("expected compile-time integers", node)
    if a.width is not None and b.width is not None and a.width != b.width and op not in SHIFTS:
        raise spec.error(f"width mismatch: u{a.width} {op} u{b.width}", node)
    width = a.width if a.width is not None else (b.width if op not in SHIFTS else None)
    x, y = a.value, b.value
    if op in SHIFTS:
        if y < 0 or y > MAX_CONST_BITS:
            raise spec.error(f"shift amount {y} out of range", node)
    if op in ("<<<", ">>>"):
        if width is None:
            raise spec.error("a rotation needs a width (e.g. `x as u32`)", node)
        y %= width
        r = ((x << y) | (x >> (width - y))) if op == "<<<" else ((x >> y) | (x << (width - y)))
    elif op == "<<":
        r = x << y
    elif op == ">>":
        r = x >> y
    elif op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        if x.bit_length() + y.bit_length() > MAX_CONST_BITS:
            raise spec.error("constant too large", node)
        r = x * y
    elif op in ("/", "%"):
        if y == 0:
            raise spec.error("division by zero", node)
        r = x // y if op == "/" else x % y
    elif op == "^":
        r = x ^ y
    elif op == "&":
        r = x & y
    elif op == "|":
        r = x | y
    else:
        cmp = {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
        return CInt(int(cmp), 1)
    if width is not None:
        r %= 1 << width
    if r.bit_length() > MAX_CONST_BITS:
        raise spec.error("constant too large", node)
    return CInt(r, width)
