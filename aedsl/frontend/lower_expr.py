"""Lowering expressions in a function body to IR: the expression visitor's strategy for runtime
values. Compile-time operands are folded by the visitor (`evaluate.py`); what reaches this module
becomes IR ops in the builder's current block. Calls (of functions, perms and builtins) are
lowered here too, for call expressions and call statements alike."""
from __future__ import annotations

from ..ir.nodes import TOKEN, Block, Memory, Op, Value
from .builtins import LOWERINGS
from .consteval import call_const_fn, const_fn_of
from .evaluate import ExprEvaluator
from .lazy_if import PENDING
from .types import Array, CInt, Word
from .widths import as_value, common_width, need_value

OPCODES = {"^": "xor", "&": "and", "|": "or", "+": "add", "-": "sub", "*": "mul",
           "/": "udiv", "%": "umod", "==": "eq", "!=": "ne", "<": "ult", "<=": "ule",
           ">": "ugt", ">=": "uge"}
COMPARES = ("eq", "ne", "ult", "ule", "ugt", "uge")
SHIFT_OPCODES = {"<<": "shl", ">>": "shr", "<<<": "rotl", ">>>": "rotr"}


class ExprLowering:
    """Expressions of one function, emitted through the `FunctionBuilder` `fb`."""

    def __init__(self, fb):
        self.fb = fb
        self.spec = fb.spec
        # expr(node): the value of an expression: a `CInt`, a knob choice name, a `Value`,
        # a `Memory`, or the list of a call's results.
        self.expr = ExprEvaluator(self).eval

    def const_int(self, node) -> int:
        v = self.expr(node)
        if not isinstance(v, CInt):
            raise self.error("expected a compile-time integer", node)
        return v.value

    def error(self, message, node):
        return self.fb.error(message, node)

    def unsupported(self, node):  # pragma: no cover - grammar and elaborator agree
        return self.error(f"unsupported expression {node.data}", node)

    def name(self, node):
        v = self.fb.lookup(str(node.children[0]), node)
        if isinstance(v, tuple):
            raise self.error(f"{node.children[0]!s} is a {v[0]}, not a value", node)
        return v

    amount = const_int

    # -- operations the visitor could not fold
    def select(self, cv, node):
        """`if c then a else b` on a runtime condition: each arm is lowered into a block of its
        own and a `PENDING` op holds both; `lazy_if.resolve` makes it a select or an IR `if`
        once the whole module is lowered."""
        fb = self.fb
        c, a, b = node.children
        if not isinstance(cv, Value) or cv.width != 1:
            raise self.error("condition must be a bit (u1); compare with != 0", c)
        arms = []
        for arm in (a, b):
            fb.blocks.append(Block())
            arms.append((self.expr(arm), fb.blocks.pop()))
        (av, a_block), (bv, b_block) = arms
        width = common_width(fb, av, bv, node, "if/else")
        fb.blocks.append(Block())            # the constants an arm's value may need
        xa, xb = as_value(fb, av, width, a), as_value(fb, bv, width, b)
        tail = fb.blocks.pop()
        result = fb.fresh("t", width)
        fb.blocks[-1].ops.append(Op(PENDING, [result], [cv, xa, xb], {"spec": self.spec, "cond": c},
                                    [a_block, b_block, tail], fb.loc(node)))
        return result

    def binop(self, op: str, a, b, node):
        fb = self.fb
        for v, side in ((a, node.children[0]), (b, node.children[-1])):
            if isinstance(v, (Memory, list, tuple)) or (isinstance(v, Value) and v.width == TOKEN):
                raise self.error(f"operator {op} needs word operands", side)
        if isinstance(a, str) or isinstance(b, str):
            raise self.error("knob choice names are compile-time only", node)
        if op in SHIFT_OPCODES:
            x = need_value(fb, a, node.children[0])
            if isinstance(b, CInt):
                if b.value < 0:
                    raise self.error("negative shift amount", node.children[-1])
                amount = b.value % x.width if op in ("<<<", ">>>") else min(b.value, x.width)
                return fb.emit(SHIFT_OPCODES[op], x.width, [x], {"by": amount}, node=node)
            if op in ("<<<", ">>>"):
                raise self.error("rotations need a constant amount", node.children[-1])
            y = need_value(fb, b, node.children[-1])
            return fb.emit("shl_var" if op == "<<" else "shr_var", x.width, [x, y], node=node)
        width = common_width(fb, a, b, node, op)
        x = as_value(fb, a, width, node.children[0])
        y = as_value(fb, b, width, node.children[-1])
        opcode = OPCODES[op]
        return fb.emit(opcode, 1 if opcode in COMPARES else width, [x, y], node=node)

    def not_(self, v, node):
        if isinstance(v, CInt):
            raise self.error("`~` of an untyped constant needs a width (e.g. `~(x as u8)`)", node)
        v = need_value(self.fb, v, node)
        return self.fb.emit("not", v.width, [v], node=node)

    def neg(self, v, node):
        v = need_value(self.fb, v, node)
        return self.fb.emit("neg", v.width, [v], node=node)

    def cast(self, v, typ, node):
        a, t = node.children
        if not isinstance(typ, Word):
            raise self.error("`as` converts to a word type", t)
        v = need_value(self.fb, v, a)
        if v.width == typ.width:
            return v
        return self.fb.emit("zext" if typ.width > v.width else "trunc", typ.width, [v], node=node)

    def index(self, base, node):
        fb = self.fb
        a, i = node.children
        if isinstance(base, Memory):
            return fb.emit("load", base.elem_width, [base, self.index_value(base, i)], node=node)
        base = need_value(fb, base, a)
        iv = self.expr(i)
        if isinstance(iv, CInt):
            if not 0 <= iv.value < base.width:
                raise self.error(f"bit {iv.value} out of range for u{base.width}", i)
            return fb.emit("slice", 1, [base], {"lo": iv.value}, node=node)
        iv = need_value(fb, iv, i)
        shifted = fb.emit("shr_var", base.width, [base, iv], node=node)
        return fb.emit("trunc", 1, [shifted], node=node) if base.width > 1 else shifted

    def slice(self, base, h, l, node):
        if isinstance(base, CInt):
            raise self.error("bad bit slice: need hi >= lo >= 0", node)
        base = need_value(self.fb, base, node.children[0])
        if not 0 <= l <= h < base.width:
            raise self.error(f"bit slice [{h}:{l}] out of range for u{base.width}", node)
        return self.fb.emit("slice", h - l + 1, [base], {"lo": l}, node=node)

    def index_value(self, mem: Memory, index_node) -> Value:
        """The element index of `mem[index_node]` as a runtime value (a constant one is checked)."""
        iv = self.expr(index_node)
        if isinstance(iv, CInt):
            if iv.value < 0 or (mem.length is not None and iv.value >= mem.length):
                raise self.error(f"index {iv.value} out of range for {mem.name}: {mem.type_str()}", index_node)
            width = 16 if iv.value < (1 << 16) else 32
            return self.fb.emit("const", width, attrs={"value": iv.value}, node=index_node)
        return need_value(self.fb, iv, index_node)

    # -- calls
    def call(self, node):
        callee, *args = node.children
        result = self.lower_call(callee, [a for a in args if a is not None], node)
        if result is None:
            raise self.error("this call returns nothing", node)
        if isinstance(result, list) and len(result) == 1:
            return result[0]
        return result

    def lower_call(self, callee, args: list, node):
        """A call of a function, perm or builtin: its result(s), or None if it returns nothing."""
        parts = [str(c) for c in callee.children if c is not None]
        if len(parts) == 2 or not self.fb.bound_locally(parts[0]):
            spec, const_fn = const_fn_of(self.spec, callee)
            if const_fn is not None:
                return call_const_fn(self.spec, spec, const_fn, [self.expr(a) for a in args], node)
        if len(parts) == 2:
            sub = self.spec.use_of(parts[0], callee)
            entry = sub.globals.get(parts[1])
            if entry is None or entry[0] != "fn":
                raise self.error(f"spec {parts[0]} has no function {parts[1]!r}", callee)
            return self.call_user(sub, parts[1], args, node)
        name = parts[0]
        local = self.fb.bound_locally(name)
        entry = self.spec.globals.get(name)
        if not local and entry is not None:
            if entry[0] == "fn":
                return self.call_user(self.spec, name, args, node)
            if entry[0] == "perm":
                return self.call_perm(entry, args, node)
        if not local and entry is None and name in LOWERINGS:
            return LOWERINGS[name](self, args, node)
        if not local and entry is None:
            raise self.error(f"unknown function {name!r}", callee)
        raise self.error(f"{name} is not a function", callee)

    def call_user(self, spec, name: str, args, node):
        ptypes, rtypes = spec.signatures[name]
        if len(args) != len(ptypes):
            raise self.error(f"{name} takes {len(ptypes)} argument(s), not {len(args)}", node)
        operands = []
        for arg, (pname, ptype, _) in zip(args, ptypes):
            v = self.expr(arg)
            if isinstance(ptype, Array):
                if not isinstance(v, Memory):
                    raise self.error(f"argument {pname} of {name} must be an array {ptype}", arg)
                ok = v.elem_width == ptype.elem_width and (ptype.length is None or v.length == ptype.length)
                if not ok:
                    raise self.error(f"argument {pname} of {name}: expected {ptype}, got {v.type_str()}", arg)
                operands.append(v)
            else:
                operands.append(as_value(self.fb, v, ptype.width, arg))
        loc = self.fb.loc(node)
        results = [self.fb.fresh("t", r.width) for r in rtypes]
        self.fb.blocks[-1].ops.append(Op("call", results, operands, {"callee": spec.prefix + name}, [], loc))
        return results if results else None

    def call_perm(self, entry, args, node):
        _, table, width = entry
        if len(args) != 1:
            raise self.error("a perm takes one argument", node)
        v = as_value(self.fb, self.expr(args[0]), width, args[0])
        return self.fb.emit("perm", width, [v], {"table": table}, node=node)

