"""Parse tree -> IR: binds knobs, evaluates compile-time constants, checks widths, and emits SSA.

Elaboration and lowering are one walk: every runtime expression becomes IR ops in the block
being built, every compile-time expression (knobs, consts, `forall` indices, literals) is folded
here. Variables are names for the latest SSA value; loops and runtime `if`s carry the variables
their bodies assign (scf.for / scf.if style), so the IR never needs phi nodes.

Entry point: `load_module(path, knobs) -> ir.Module`; raises `SpecError` for every problem.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lark import Token, Tree

from ..ir.nodes import TOKEN, Block, Function, Memory, Module, Op, Value
from .diagnostics import SpecError
from .parser import parse

MAX_WIDTH = 4096          # bits in one word (u<4096> is far beyond any spec)
MAX_ARRAY = 1 << 20       # elements in one array
MAX_FORALL = 4096         # iterations of one compile-time loop
MAX_CONST_BITS = 1 << 15  # size of a compile-time integer

BUILTINS = ("cat", "rev8", "len", "load_be", "load_le", "store_be", "store_le",
            "accel_start", "accel_result")
# Accelerator operations the IR knows, with their result width.
ACCEL_OPS = {"aes128.encrypt": 128, "aes128.decrypt": 128}


# ---------------------------------------------------------------- compile-time values and types

@dataclass(frozen=True)
class CInt:
    """A compile-time integer; `width` None = an untyped literal that adopts its partner's width."""
    value: int
    width: int | None = None


@dataclass(frozen=True)
class Word:
    width: int

    def __str__(self) -> str:
        return "bit" if self.width == 1 else f"u{self.width}"


@dataclass(frozen=True)
class Array:
    elem_width: int
    length: int | None  # None = bytes

    def __str__(self) -> str:
        return "bytes" if self.length is None else f"u{self.elem_width}[{self.length}]"


def type_str(t) -> str:
    return str(t)


def pos(node) -> tuple[int, int]:
    if isinstance(node, Token):
        return node.line or 0, node.column or 0
    if isinstance(node, Tree) and not node.meta.empty:
        return node.meta.line, node.meta.column
    if isinstance(node, Tree):
        for child in node.children:
            if child is not None:
                p = pos(child)
                if p != (0, 0):
                    return p
    return 0, 0


def _parse_int(text: str) -> int:
    digits = text.replace("_", "").lower()
    if digits.startswith(("0x", "0b")):
        return int(digits[2:], 16 if digits[1] == "x" else 2)
    return int(digits, 10)  # leading zeros are fine: "007" is 7


def _fits(value: int, width: int) -> bool:
    return 0 <= value < (1 << width)


# ---------------------------------------------------------------- spec-level elaboration

class SpecElaborator:
    """One spec file with its knobs bound, emitting into a shared `Module` under `prefix`."""

    def __init__(self, path: Path, knob_values: dict[str, str], module: Module, prefix: str,
                 cache: dict, stack: tuple[str, ...] = ()):
        self.path = path
        self.display = str(path)
        try:
            self.source = path.read_text()
        except OSError as e:
            raise SpecError(f"cannot read spec: {e.strerror}", str(path)) from None
        self.knob_values = dict(knob_values)
        self.module = module
        self.prefix = prefix
        self.cache = cache
        self.stack = stack + (str(path.resolve()),)
        self.globals: dict[str, tuple] = {}
        self.knob_order: list[str] = []
        self.enum_values: set[str] = set()
        self.fn_decls: list[Tree] = []
        self.signatures: dict[str, tuple[list, list]] = {}
        self.spec_name = path.stem
        self.domains: dict[str, tuple[int, ...]] = {}

    # -- errors
    def error(self, message: str, node=None) -> SpecError:
        line, col = pos(node) if node is not None else (0, 0)
        return SpecError(message, self.display, line, col, self.source)

    # -- driver
    def run(self) -> None:
        tree = parse(self.source, self.display)
        for decl in tree.children:
            self.declare(decl)
        unknown = sorted(set(self.knob_values) - set(self.knob_order))
        if unknown:
            known = ", ".join(self.knob_order) or "none"
            raise SpecError(f"unknown knob {unknown[0]!r} (this spec's knobs: {known})",
                            self.display, 1, 1, self.source)
        for decl in self.fn_decls:
            self.signatures[str(decl.children[0])] = self.signature(decl)
        for decl in self.fn_decls:
            FunctionElaborator(self, decl).run()

    def declare(self, decl: Tree) -> None:
        kind = decl.data
        if kind == "spec_decl":
            self.spec_name = str(decl.children[0])
        elif kind == "knob_decl":
            self.declare_knob(decl)
        elif kind == "const_decl":
            name, expr = decl.children
            self.define(name, ("const", self.const_eval(expr)))
        elif kind == "type_decl":
            name, t = decl.children
            self.define(name, ("type", self.eval_type(t)))
        elif kind == "table_decl":
            self.declare_table(decl)
        elif kind == "perm_decl":
            self.declare_perm(decl)
        elif kind == "use_decl":
            self.declare_use(decl)
        elif kind == "domain_decl":
            name, choices = decl.children
            if choices.data == "choice_range":
                # kept as a range: a length limit such as GCM's IV (1..2^32 bytes) is no list
                lo, hi = (self.const_int(c) for c in choices.children)
                self.domains[str(name)] = range(lo, hi)
                return
            values = self.choice_values(choices)
            if not all(isinstance(v, int) for v in values):
                raise self.error("a domain lists byte lengths (integers)", choices)
            self.domains[str(name)] = tuple(values)
        elif kind == "assert_stmt":
            self.check_assert(decl, self.const_eval)
        elif kind == "top_if":
            self.declare_if(decl)
        elif kind == "fn_decl":
            name = decl.children[0]
            self.define(name, ("fn", decl))
            self.fn_decls.append(decl)
        else:  # pragma: no cover - the grammar has no other declarations
            raise self.error(f"unexpected declaration {kind}", decl)

    def define(self, name: Token, entry: tuple) -> None:
        if str(name) in self.globals:
            raise self.error(f"{name!s} is already defined", name)
        if str(name) in BUILTINS:
            raise self.error(f"{name!s} is a builtin and cannot be redefined", name)
        self.globals[str(name)] = entry

    def declare_if(self, decl: Tree) -> None:
        cond, then_decls, else_part = decl.children
        value = self.const_eval(cond)
        if not isinstance(value, CInt):
            raise self.error("a top-level `if` needs a compile-time condition", cond)
        chosen = then_decls if value.value else else_part
        if chosen is None:
            return
        if chosen.data == "top_if":
            self.declare(chosen)
        else:
            for d in chosen.children:
                self.declare(d)

    def declare_knob(self, decl: Tree) -> None:
        name, choices, default = decl.children
        allowed = self.choice_values(choices)
        for v in allowed:
            if isinstance(v, str):
                self.enum_values.add(v)
        default_value = self.knob_literal(default)
        self.knob_order.append(str(name))
        if str(name) in self.knob_values:
            text = self.knob_values[str(name)]
            try:
                value: int | str = _parse_int(text)
            except ValueError:
                value = text
        else:
            value = default_value
            if value not in allowed:
                raise self.error(f"default {value} of knob {name!s} is not one of its choices", default)
        if value not in allowed:
            shown = ", ".join(str(v) for v in allowed) if len(allowed) <= 16 else \
                f"{allowed[0]}..{allowed[-1]}"
            raise self.error(f"knob {name!s}={value} is not allowed; choose one of {shown}", name)
        self.define(name, ("const", CInt(value) if isinstance(value, int) else value))

    def knob_literal(self, node: Tree) -> int | str:
        tok = node.children[0]
        return _parse_int(tok) if tok.type == "INT" else str(tok)

    def choice_values(self, choices: Tree) -> list:
        if choices.data == "choice_set":
            values = []
            for c in choices.children:
                if c.data == "name" and str(c.children[0]) not in self.globals:
                    values.append(str(c.children[0]))  # an enum choice such as `soft`
                else:
                    v = self.const_eval(c)
                    if not isinstance(v, CInt):
                        raise self.error("a choice is an integer or a name", c)
                    values.append(v.value)
            return values
        lo, hi = (self.const_int(c) for c in choices.children)
        if hi - lo > MAX_ARRAY:
            raise self.error("range too large", choices)
        return list(range(lo, hi))

    def declare_table(self, decl: Tree) -> None:
        name, t, *items = decl.children
        typ = self.eval_type(t)
        if not isinstance(typ, Array) or typ.length is None:
            raise self.error("a table has an array type such as u8[256]", t)
        values = [self.const_int(e) for e in items]
        if len(values) != typ.length:
            raise self.error(f"table {name!s} declares {typ.length} entries but lists {len(values)}", name)
        for e, v in zip(items, values):
            if not _fits(v, typ.elem_width):
                raise self.error(f"table entry {v:#x} does not fit in u{typ.elem_width}", e)
        mem = Memory(self.prefix + str(name), typ.elem_width, typ.length, "table", tuple(values))
        self.module.tables.append(mem)
        self.define(name, ("mem", mem))

    def declare_perm(self, decl: Tree) -> None:
        name, t, *items = decl.children
        typ = self.eval_type(t)
        if not isinstance(typ, Word):
            raise self.error("a perm has a word type such as u64", t)
        values = [self.const_int(e) for e in items]
        if len(values) != typ.width or sorted(values) != list(range(typ.width)):
            raise self.error(f"perm {name!s} must list each of the {typ.width} bit positions once", name)
        self.define(name, ("perm", tuple(values), typ.width))

    def declare_use(self, decl: Tree) -> None:
        alias, spec, *args = decl.children
        knobs: dict[str, str] = {}
        for arg in args:
            if arg is None:
                continue
            kname, expr = arg.children
            if (isinstance(expr, Tree) and expr.data == "name" and str(expr.children[0]) not in self.globals
                    and str(expr.children[0]) not in self.enum_values):
                # a name of the used spec's enum knob (`aes(inv_cipher = plain)`): it checks it
                knobs[str(kname)] = str(expr.children[0])
                continue
            value = self.const_eval(expr)
            knobs[str(kname)] = str(value.value) if isinstance(value, CInt) else str(value)
        path = self.find_spec(str(spec), spec)
        if str(path.resolve()) in self.stack:
            raise self.error(f"spec {spec!s} uses itself", spec)
        sub = SpecElaborator(path, knobs, self.module, f"{self.prefix}{alias}.", self.cache, self.stack)
        sub.run()
        self.define(alias, ("use", sub))

    def find_spec(self, name: str, node) -> Path:
        here = self.path.parent
        for d in (here, here.parent / "primitives", here.parent / "schemes"):
            p = d / f"{name}.ae"
            if p.exists():
                return p
        raise self.error(f"no spec named {name} (looked for {name}.ae beside this spec and in "
                         f"primitives/ and schemes/)", node)

    def check_assert(self, stmt: Tree, evaluate) -> None:
        cond, message = stmt.children
        value = evaluate(cond)
        if not isinstance(value, CInt):
            raise self.error("assert needs a compile-time condition", cond)
        if not value.value:
            raise self.error(f"assertion failed: {message[1:-1]}", stmt)

    # -- compile-time evaluation (no runtime values allowed)
    def const_eval(self, expr):
        return ConstEvaluator(self).eval(expr)

    def const_int(self, expr) -> int:
        v = self.const_eval(expr)
        if not isinstance(v, CInt):
            raise self.error("expected a compile-time integer", expr)
        return v.value

    def lookup_global(self, name: str, node):
        if name in self.globals:
            return self.globals[name]
        raise self.error(f"unknown name {name!r}", node)

    def eval_type(self, t: Tree):
        kind = t.data
        if kind == "named_type":
            name = str(t.children[0])
            m = re.fullmatch(r"u([0-9]+)", name)
            if m:
                return self.word_type(int(m.group(1)), t)
            if name == "bit":
                return Word(1)
            if name == "bytes":
                return Array(8, None)
            entry = self.globals.get(name)
            if entry is None or entry[0] != "type":
                raise self.error(f"unknown type {name!r}", t)
            return entry[1]
        if kind == "qualified_type":
            alias, name = (str(c) for c in t.children)
            sub = self.use_of(alias, t)
            entry = sub.globals.get(name)
            if entry is None or entry[0] != "type":
                raise self.error(f"spec {alias} has no type {name!r}", t)
            return entry[1]
        if kind == "width_type":
            return self.word_type(self.const_int(t.children[0]), t)
        if kind == "array_type":
            elem, length = t.children
            et = self.eval_type(elem)
            if not isinstance(et, Word):
                raise self.error("array elements must be words", elem)
            n = self.const_int(length)
            if not 0 < n <= MAX_ARRAY:
                raise self.error(f"array length {n} out of range 1..{MAX_ARRAY}", length)
            return Array(et.width, n)
        raise self.error("bad type", t)  # pragma: no cover

    def word_type(self, width: int, node) -> Word:
        if not 1 <= width <= MAX_WIDTH:
            raise self.error(f"word width {width} out of range 1..{MAX_WIDTH}", node)
        return Word(width)

    def use_of(self, alias: str, node) -> "SpecElaborator":
        entry = self.globals.get(alias)
        if entry is None or entry[0] != "use":
            raise self.error(f"{alias!r} is not a used spec (declare it with `use {alias} = ...`)", node)
        return entry[1]

    def signature(self, decl: Tree) -> tuple[list, list]:
        _, params, rets, _ = decl.children[0], decl.children[1:-2], decl.children[-2], decl.children[-1]
        ptypes = []
        for p in params:
            if p is None:
                continue
            pname, ptype = p.children
            ptypes.append((str(pname), self.eval_type(ptype), p))
        rtypes = []
        if rets is not None:
            for r in rets.children:
                rt = self.eval_type(r)
                if not isinstance(rt, Word):
                    raise self.error("functions return words; pass arrays as parameters to fill them", r)
                rtypes.append(rt)
        return ptypes, rtypes


# ---------------------------------------------------------------- expressions

class ConstEvaluator:
    """Expressions over compile-time values only (knobs, consts, literals)."""

    def __init__(self, spec: SpecElaborator):
        self.spec = spec

    def error(self, message, node):
        return self.spec.error(message, node)

    def eval(self, node):
        method = getattr(self, "e_" + node.data, None)
        if method is None:
            raise self.error("not a compile-time expression", node)
        return method(node)

    def e_int_lit(self, node):
        return CInt(_parse_int(node.children[0]))

    def e_str_lit(self, node):
        return str(node.children[0])[1:-1]

    def e_name(self, node):
        name = str(node.children[0])
        value = self.lookup(name, node)
        return value

    def lookup(self, name, node):
        entry = self.spec.globals.get(name)
        if entry is not None and entry[0] == "const":
            return entry[1]
        if entry is None and name in self.spec.enum_values:
            return name
        if entry is None:
            raise self.error(f"unknown name {name!r}", node)
        raise self.error(f"{name} is not a compile-time value", node)

    def e_qualified_name(self, node):
        alias, name = (str(c) for c in node.children)
        sub = self.spec.use_of(alias, node)
        entry = sub.globals.get(name)
        if entry is None or entry[0] != "const":
            raise self.error(f"spec {alias} has no constant {name!r}", node)
        return entry[1]

    def operands(self, node, *children):
        return [self.eval(c) for c in children]

    def e_cond_expr(self, node):
        c, a, b = node.children
        cv = self.eval(c)
        if not isinstance(cv, CInt):
            raise self.error("condition must be an integer", c)
        return self.eval(a) if cv.value else self.eval(b)

    def e_compare(self, node):
        a, op, b = node.children
        return const_binop(self.spec, str(op), self.eval(a), self.eval(b), node)

    def _bin(self, node, op):
        a, b = node.children
        return const_binop(self.spec, op, self.eval(a), self.eval(b), node)

    def e_or_(self, node):
        return self._bin(node, "|")

    def e_xor(self, node):
        return self._bin(node, "^")

    def e_and_(self, node):
        return self._bin(node, "&")

    def e_shift(self, node):
        a, op, b = node.children
        return const_binop(self.spec, str(op), self.eval(a), self.eval(b), node)

    e_arith = e_shift

    def e_not_(self, node):
        v = self.eval(node.children[0])
        if not isinstance(v, CInt) or v.width is None:
            raise self.error("`~` of a compile-time value needs a width (e.g. `x as u8`)", node)
        return CInt(~v.value & ((1 << v.width) - 1), v.width)

    def e_neg(self, node):
        v = self.eval(node.children[0])
        if not isinstance(v, CInt):
            raise self.error("cannot negate this", node)
        return CInt(-v.value % (1 << v.width), v.width) if v.width else CInt(-v.value)

    def e_cast(self, node):
        a, t = node.children
        v = self.eval(a)
        typ = self.spec.eval_type(t)
        if not isinstance(v, CInt) or not isinstance(typ, Word):
            raise self.error("only integers can be cast to a word type", node)
        return CInt(v.value % (1 << typ.width), typ.width)

    def e_slice(self, node):
        a, hi, lo = node.children
        v = self.eval(a)
        h, l = self.int_of(hi), self.int_of(lo)
        if not isinstance(v, CInt) or h < l or l < 0:
            raise self.error("bad bit slice", node)
        return CInt((v.value >> l) & ((1 << (h - l + 1)) - 1), h - l + 1)

    def e_index(self, node):
        a, i = node.children
        v = self.eval(a)
        if not isinstance(v, CInt):
            raise self.error("cannot index this at compile time", node)
        return CInt((v.value >> self.int_of(i)) & 1, 1)

    def int_of(self, node) -> int:
        v = self.eval(node)
        if not isinstance(v, CInt):
            raise self.error("expected a compile-time integer", node)
        if v.value > MAX_CONST_BITS * 4 or v.value < -MAX_CONST_BITS * 4:
            raise self.error("index or amount too large", node)
        return v.value

    def e_call(self, node):
        raise self.error("function calls are not compile-time expressions", node)


def const_binop(spec: SpecElaborator, op: str, a, b, node):
    if isinstance(a, str) or isinstance(b, str):
        if op in ("==", "!="):
            return CInt(int((a == b) == (op == "==")), 1)
        raise spec.error(f"operator {op} does not apply to knob choice names", node)
    if not isinstance(a, CInt) or not isinstance(b, CInt):
        raise spec.error("expected compile-time integers", node)
    if a.width is not None and b.width is not None and a.width != b.width \
            and op not in ("<<", ">>", "<<<", ">>>"):
        raise spec.error(f"width mismatch: u{a.width} {op} u{b.width}", node)
    width = a.width if a.width is not None else (b.width if op not in ("<<", ">>", "<<<", ">>>") else None)
    x, y = a.value, b.value
    if op in ("<<", ">>", "<<<", ">>>"):
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


# ---------------------------------------------------------------- functions

class FunctionElaborator:
    """One `fn` -> one IR Function."""

    def __init__(self, spec: SpecElaborator, decl: Tree):
        self.spec = spec
        self.decl = decl
        self.name = str(decl.children[0])
        self.params, self.rets = spec.signatures[self.name]
        self.counters: dict[str, int] = {}
        self.scopes: list[dict] = []
        self.blocks: list[Block] = []
        self.locals: list[Memory] = []

    def error(self, message, node):
        return self.spec.error(message, node)

    def fresh(self, hint: str, width: int) -> Value:
        n = self.counters.get(hint, 0)
        self.counters[hint] = n + 1
        return Value(f"{hint}.{n}" if n or hint == "t" else hint, width)

    def emit(self, opcode, result_width, args=(), attrs=None, regions=(), node=None, hint="t"):
        results = [] if result_width is None else [self.fresh(hint, result_width)]
        loc = (self.spec.display, *pos(node)) if node is not None else None
        op = Op(opcode, results, list(args), dict(attrs or {}), list(regions), loc)
        self.blocks[-1].ops.append(op)
        return results[0] if results else None

    # -- scopes
    def lookup(self, name: str, node):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        entry = self.spec.globals.get(name)
        if entry is not None:
            if entry[0] == "const":
                return entry[1]
            if entry[0] == "mem":
                return entry[1]
            return entry
        if name in self.spec.enum_values:
            return name
        raise self.error(f"unknown name {name!r}", node)

    def assign(self, name: str, value) -> None:
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = value
                return
        self.scopes[-1][name] = value

    def bound_locally(self, name: str) -> bool:
        return any(name in s for s in self.scopes)

    # -- driver
    def run(self) -> None:
        params = []
        scope = {}
        for pname, ptype, pnode in self.params:
            if isinstance(ptype, Word):
                v = Value(pname, ptype.width)
                self.counters[pname] = 1
            else:
                v = Memory(pname, ptype.elem_width, ptype.length, "param")
            if pname in scope:
                raise self.error(f"parameter {pname} is declared twice", pnode)
            scope[pname] = v
            params.append(v)
        body = Block()
        self.scopes.append(scope)
        self.blocks.append(body)
        stmts = self.decl.children[-1].children
        ret_values: list = []
        for i, stmt in enumerate(stmts):
            if stmt.data == "return_stmt":
                if i != len(stmts) - 1:
                    raise self.error("return must be the last statement of a function", stmt)
                ret_values = self.return_values(stmt)
            else:
                self.statement(stmt)
        if self.rets and not (stmts and stmts[-1].data == "return_stmt"):
            raise self.error(f"function {self.name} must end with `return`", self.decl.children[0])
        body.yields = ret_values
        func = Function(self.spec.prefix + self.name, params, [r.width for r in self.rets], body,
                        self.locals)
        self.spec.module.functions.append(func)

    def return_values(self, stmt: Tree) -> list[Value]:
        exprs = [c for c in stmt.children if c is not None]
        if len(exprs) != len(self.rets):
            raise self.error(f"{self.name} returns {len(self.rets)} value(s), not {len(exprs)}", stmt)
        return [self.as_value(self.expr(e), r.width, e) for e, r in zip(exprs, self.rets)]

    # -- statements
    def statement(self, stmt: Tree) -> None:
        method = getattr(self, "s_" + stmt.data, None)
        if method is None:
            raise self.error(f"{stmt.data.replace('_stmt', '')} is not allowed here", stmt)
        method(stmt)

    def s_return_stmt(self, stmt):
        raise self.error("return must be the last statement of a function", stmt)

    def s_assert_stmt(self, stmt):
        self.spec.check_assert(stmt, self.expr)

    def s_var_stmt(self, stmt):
        name, t, init = stmt.children
        typ = self.spec.eval_type(t)
        if any(str(name) in s for s in self.scopes[-1:]):
            raise self.error(f"{name!s} is already defined here", name)
        if isinstance(typ, Array):
            if typ.length is None:
                raise self.error("a local buffer needs a fixed length, e.g. u8[16]", t)
            if init is not None:
                raise self.error("arrays start zeroed; assign their elements", init)
            mem = Memory(self.unique_local(str(name)), typ.elem_width, typ.length, "local")
            self.locals.append(mem)
            self.scopes[-1][str(name)] = mem
            return
        value = self.as_value(self.expr(init), typ.width, init) if init is not None \
            else self.emit("const", typ.width, attrs={"value": 0}, node=stmt, hint=str(name))
        self.scopes[-1][str(name)] = value

    def unique_local(self, name: str) -> str:
        taken = {m.name for m in self.locals}
        if name not in taken:
            return name
        k = 1
        while f"{name}.{k}" in taken:
            k += 1
        return f"{name}.{k}"

    def s_assign_stmt(self, stmt):
        *targets, expr = stmt.children
        value = self.expr(expr)
        if len(targets) > 1:
            if not isinstance(value, list) or len(value) != len(targets):
                n = len(value) if isinstance(value, list) else 1
                raise self.error(f"{len(targets)} targets but the right side gives {n} value(s)", stmt)
            values = value
        else:
            if isinstance(value, list):
                if len(value) != 1:
                    raise self.error(f"1 target but the call returns {len(value)} values", stmt)
                value = value[0]
            values = [value]
        for target, v in zip(targets, values):
            self.assign_target(target, v, expr)

    def assign_target(self, target: Tree, value, expr) -> None:
        name = str(target.children[0])
        if target.data == "lv_index":
            mem = self.lookup(name, target)
            if not isinstance(mem, Memory):
                raise self.error(f"{name} is not an array", target)
            if mem.kind == "table":
                raise self.error(f"table {name} is read-only", target)
            index = self.index_value(mem, target.children[1])
            self.emit("store", None, [mem, index, self.as_value(value, mem.elem_width, expr)], node=target)
            return
        current = None
        for scope in reversed(self.scopes):
            if name in scope:
                current = scope[name]
                break
        if current is None and name in self.spec.globals:
            raise self.error(f"cannot assign to {name}: it is a global {self.spec.globals[name][0]}", target)
        if isinstance(current, Memory):
            raise self.error(f"cannot assign to array {name}; assign its elements", target)
        if isinstance(value, Memory):
            raise self.error(f"cannot assign array {value.name} to a variable", expr)
        if isinstance(value, str):
            raise self.error("knob choice names are not runtime values", expr)
        if isinstance(current, Value):
            value = self.as_value(value, current.width, expr)
        elif isinstance(current, CInt) and isinstance(value, Value):
            if current.width is not None and current.width != value.width:
                raise self.error(f"width mismatch: {name} is u{current.width}, the value is u{value.width}", expr)
        elif isinstance(current, CInt) and isinstance(value, CInt) and current.width is not None:
            value = CInt(self.check_fit(value, current.width, expr), current.width)
        if isinstance(value, Value) and value.name.startswith("t") and _is_temp(value.name):
            value.name = self.fresh(name, value.width).name
        self.assign(name, value)

    def s_call_stmt(self, stmt):
        callee, *args = stmt.children
        self.call(callee, [a for a in args if a is not None], stmt)

    def s_forall_stmt(self, stmt):
        name, lo, hi, body = stmt.children
        a, b = self.const_int(lo), self.const_int(hi)
        if b - a > MAX_FORALL:
            raise self.error(f"forall over more than {MAX_FORALL} values", stmt)
        for i in range(a, b):
            self.scopes.append({str(name): CInt(i)})
            for s in body.children:
                self.statement(s)
            self.scopes.pop()

    def const_int(self, node) -> int:
        v = self.expr(node)
        if not isinstance(v, CInt):
            raise self.error("expected a compile-time integer", node)
        return v.value

    def carried_names(self, blocks: list[Tree]) -> list[str]:
        """Variables bound outside and assigned inside: the values a loop or `if` carries."""
        names: list[str] = []
        for block in blocks:
            for target in _assigned_names(block):
                if target in names:
                    continue
                if self.bound_locally(target) and not isinstance(self.lookup(target, None), Memory):
                    names.append(target)
        return names

    def carry_value(self, name: str, node) -> Value:
        v = self.lookup(name, node)
        if isinstance(v, CInt):
            if v.width is None:
                raise self.error(f"{name} is an untyped integer; give it a width (e.g. `{name} = 0 as u16`) "
                                 f"to change it in a loop or runtime `if`", node)
            v = self.emit("const", v.width, attrs={"value": v.value}, node=node, hint=name)
            self.assign(name, v)
        if not isinstance(v, Value) or v.width == TOKEN:
            raise self.error(f"{name} cannot be changed inside a loop or runtime `if`", node)
        return v

    def s_for_stmt(self, stmt):
        *pragmas, name, lo, hi, body = stmt.children
        unroll = 1
        for p in pragmas:
            pname, parg = p.children
            if str(pname) != "unroll":
                raise self.error(f"unknown pragma @{pname!s} (known: @unroll)", p)
            v = self.expr(parg) if parg is not None else "full"
            if v == "full":
                unroll = 0
            elif isinstance(v, CInt) and v.value >= 0:
                unroll = v.value
            else:
                raise self.error("@unroll takes a count or `full`", p)
        lo_v, hi_v = self.expr(lo), self.expr(hi)
        if isinstance(lo_v, CInt) and isinstance(hi_v, CInt):
            width = 16 if max(lo_v.value, hi_v.value) < (1 << 16) else 32
        else:
            width = (hi_v if isinstance(hi_v, Value) else lo_v).width if isinstance(hi_v, Value) or isinstance(lo_v, Value) else 32
        lo_val = self.as_value(lo_v, width, lo)
        hi_val = self.as_value(hi_v, width, hi)
        carried = self.carried_names([body])
        inits = [self.carry_value(n, stmt) for n in carried]
        index = self.fresh(str(name), width)
        params = [self.fresh(n, v.width) for n, v in zip(carried, inits)]
        block = Block(params=[index] + params)
        self.blocks.append(block)
        self.scopes.append({str(name): index, **dict(zip(carried, params))})
        for s in body.children:
            self.statement(s)
        block.yields = [self.carry_value(n, stmt) for n in carried]
        self.scopes.pop()
        self.blocks.pop()
        results = [self.fresh(n, v.width) for n, v in zip(carried, inits)]
        loc = (self.spec.display, *pos(stmt))
        self.blocks[-1].ops.append(Op("for", results, [lo_val, hi_val] + inits,
                                      {"unroll": unroll}, [block], loc))
        for n, r in zip(carried, results):
            self.assign(n, r)

    def s_if_stmt(self, stmt):
        cond, then_block, else_part = stmt.children
        c = self.expr(cond)
        if isinstance(c, CInt):
            chosen = then_block if c.value else else_part
            if chosen is not None:
                self.scopes.append({})
                if chosen.data == "if_stmt":
                    self.statement(chosen)
                else:
                    for s in chosen.children:
                        self.statement(s)
                self.scopes.pop()
            return
        if not isinstance(c, Value) or c.width != 1:
            raise self.error("condition must be a bit (u1); compare with != 0", cond)
        branches = [then_block] + ([else_part] if else_part is not None else [])
        carried = self.carried_names(branches)
        before = [self.carry_value(n, stmt) for n in carried]
        regions = []
        for branch in (then_block, else_part):
            block = Block()
            self.blocks.append(block)
            self.scopes.append(dict(zip(carried, before)))
            if branch is not None:
                if branch.data == "if_stmt":
                    self.statement(branch)
                else:
                    for s in branch.children:
                        self.statement(s)
            block.yields = [self.carry_value(n, stmt) for n in carried]
            self.scopes.pop()
            self.blocks.pop()
            regions.append(block)
        results = [self.fresh(n, v.width) for n, v in zip(carried, before)]
        loc = (self.spec.display, *pos(stmt))
        self.blocks[-1].ops.append(Op("if", results, [c], {}, regions, loc))
        for n, r in zip(carried, results):
            self.assign(n, r)

    # -- expressions
    def expr(self, node):
        method = getattr(self, "x_" + node.data, None)
        if method is None:  # pragma: no cover - grammar and elaborator agree
            raise self.error(f"unsupported expression {node.data}", node)
        return method(node)

    def x_int_lit(self, node):
        return CInt(_parse_int(node.children[0]))

    def x_str_lit(self, node):
        return str(node.children[0])[1:-1]

    def x_name(self, node):
        v = self.lookup(str(node.children[0]), node)
        if isinstance(v, tuple):
            raise self.error(f"{node.children[0]!s} is a {v[0]}, not a value", node)
        return v

    def x_qualified_name(self, node):
        return ConstEvaluator(self.spec).e_qualified_name(node)

    def x_cond_expr(self, node):
        c, a, b = node.children
        cv = self.expr(c)
        if isinstance(cv, CInt):
            return self.expr(a) if cv.value else self.expr(b)
        if not isinstance(cv, Value) or cv.width != 1:
            raise self.error("condition must be a bit (u1); compare with != 0", c)
        av, bv = self.expr(a), self.expr(b)
        width = self.common_width(av, bv, node, "if/else")
        return self.emit("select", width, [cv, self.as_value(av, width, a), self.as_value(bv, width, b)], node=node)

    def x_compare(self, node):
        a, op, b = node.children
        return self.binop(str(op), self.expr(a), self.expr(b), node)

    def x_or_(self, node):
        return self.binop("|", self.expr(node.children[0]), self.expr(node.children[1]), node)

    def x_xor(self, node):
        return self.binop("^", self.expr(node.children[0]), self.expr(node.children[1]), node)

    def x_and_(self, node):
        return self.binop("&", self.expr(node.children[0]), self.expr(node.children[1]), node)

    def x_shift(self, node):
        a, op, b = node.children
        return self.binop(str(op), self.expr(a), self.expr(b), node)

    x_arith = x_shift

    def x_not_(self, node):
        v = self.expr(node.children[0])
        if isinstance(v, CInt):
            return const_binop(self.spec, "^", v, CInt(-1 % (1 << v.width), v.width), node) if v.width \
                else self.raise_(node, "`~` of an untyped constant needs a width (e.g. `~(x as u8)`)")
        v = self.need_value(v, node)
        return self.emit("not", v.width, [v], node=node)

    def x_neg(self, node):
        v = self.expr(node.children[0])
        if isinstance(v, CInt):
            return CInt(-v.value % (1 << v.width), v.width) if v.width else CInt(-v.value)
        v = self.need_value(v, node)
        return self.emit("neg", v.width, [v], node=node)

    def raise_(self, node, message):
        raise self.error(message, node)

    def x_cast(self, node):
        a, t = node.children
        v = self.expr(a)
        typ = self.spec.eval_type(t)
        if not isinstance(typ, Word):
            raise self.error("`as` converts to a word type", t)
        if isinstance(v, CInt):
            return CInt(v.value % (1 << typ.width), typ.width)
        v = self.need_value(v, a)
        if v.width == typ.width:
            return v
        return self.emit("zext" if typ.width > v.width else "trunc", typ.width, [v], node=node)

    def x_index(self, node):
        a, i = node.children
        base = self.expr(a)
        if isinstance(base, Memory):
            return self.emit("load", base.elem_width, [base, self.index_value(base, i)], node=node)
        if isinstance(base, CInt):
            return ConstEvaluator(self.spec).e_index(node) if False else \
                CInt((base.value >> self.const_int(i)) & 1, 1)
        base = self.need_value(base, a)
        iv = self.expr(i)
        if isinstance(iv, CInt):
            if not 0 <= iv.value < base.width:
                raise self.error(f"bit {iv.value} out of range for u{base.width}", i)
            return self.emit("slice", 1, [base], {"lo": iv.value}, node=node)
        iv = self.need_value(iv, i)
        shifted = self.emit("shr_var", base.width, [base, iv], node=node)
        return self.emit("trunc", 1, [shifted], node=node) if base.width > 1 else shifted

    def index_value(self, mem: Memory, index_node) -> Value:
        iv = self.expr(index_node)
        if isinstance(iv, CInt):
            if iv.value < 0 or (mem.length is not None and iv.value >= mem.length):
                raise self.error(f"index {iv.value} out of range for {mem.name}: {mem.type_str()}", index_node)
            width = 16 if iv.value < (1 << 16) else 32
            return self.emit("const", width, attrs={"value": iv.value}, node=index_node)
        return self.need_value(iv, index_node)

    def x_slice(self, node):
        a, hi, lo = node.children
        base = self.expr(a)
        h, l = self.const_int(hi), self.const_int(lo)
        if isinstance(base, CInt):
            if h < l or l < 0:
                raise self.error("bad bit slice: need hi >= lo >= 0", node)
            return CInt((base.value >> l) & ((1 << (h - l + 1)) - 1), h - l + 1)
        base = self.need_value(base, a)
        if not 0 <= l <= h < base.width:
            raise self.error(f"bit slice [{h}:{l}] out of range for u{base.width}", node)
        return self.emit("slice", h - l + 1, [base], {"lo": l}, node=node)

    def x_call(self, node):
        callee, *args = node.children
        result = self.call(callee, [a for a in args if a is not None], node)
        if result is None:
            raise self.error("this call returns nothing", node)
        if isinstance(result, list) and len(result) == 1:
            return result[0]
        return result

    # -- calls
    def call(self, callee: Tree, args: list, node):
        parts = [str(c) for c in callee.children if c is not None]
        if len(parts) == 2:
            sub = self.spec.use_of(parts[0], callee)
            entry = sub.globals.get(parts[1])
            if entry is None or entry[0] != "fn":
                raise self.error(f"spec {parts[0]} has no function {parts[1]!r}", callee)
            return self.call_user(sub, parts[1], args, node)
        name = parts[0]
        local = None
        for scope in reversed(self.scopes):
            if name in scope:
                local = scope[name]
        entry = self.spec.globals.get(name)
        if local is None and entry is not None:
            if entry[0] == "fn":
                return self.call_user(self.spec, name, args, node)
            if entry[0] == "perm":
                return self.call_perm(entry, args, node)
        if local is None and entry is None and name in BUILTINS:
            return getattr(self, "b_" + name)(args, node)
        if local is None and entry is None:
            raise self.error(f"unknown function {name!r}", callee)
        raise self.error(f"{name} is not a function", callee)

    def call_user(self, spec: SpecElaborator, name: str, args, node):
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
                operands.append(self.as_value(v, ptype.width, arg))
        loc = (self.spec.display, *pos(node))
        results = [self.fresh("t", r.width) for r in rtypes]
        self.blocks[-1].ops.append(Op("call", results, operands, {"callee": spec.prefix + name}, [], loc))
        return results if results else None

    def call_perm(self, entry, args, node):
        _, table, width = entry
        if len(args) != 1:
            raise self.error("a perm takes one argument", node)
        v = self.as_value(self.expr(args[0]), width, args[0])
        return self.emit("perm", width, [v], {"table": table}, node=node)

    def b_cat(self, args, node):
        if not args:
            raise self.error("cat needs at least one argument", node)
        values = []
        for a in args:
            v = self.expr(a)
            if isinstance(v, CInt) and v.width is None:
                raise self.error("cat needs widths: give constants a type (e.g. `0 as u8`)", a)
            values.append(self.need_value(v, a))
        width = sum(v.width for v in values)
        if width > MAX_WIDTH:
            raise self.error("concatenation too wide", node)
        return self.emit("concat", width, values, node=node)

    def b_rev8(self, args, node):
        if len(args) != 1:
            raise self.error("rev8 takes one argument", node)
        v = self.need_value(self.expr(args[0]), args[0])
        if v.width % 8:
            raise self.error(f"rev8 reverses bytes; u{v.width} is not a whole number of bytes", args[0])
        if v.width == 8:
            return v
        parts = [self.emit("slice", 8, [v], {"lo": 8 * k}, node=node) for k in range(v.width // 8)]
        return self.emit("concat", v.width, parts, node=node)

    def b_len(self, args, node):
        if len(args) != 1:
            raise self.error("len takes one argument", node)
        m = self.expr(args[0])
        if not isinstance(m, Memory):
            raise self.error("len takes an array or buffer", args[0])
        if m.length is not None:
            return CInt(m.length)
        return self.emit("len", 32, [m], node=node)

    def byte_memory(self, arg) -> Memory:
        m = self.expr(arg)
        if not isinstance(m, Memory) or m.elem_width != 8:
            raise self.error("expected a byte buffer (bytes or u8[N])", arg)
        return m

    def b_load_be(self, args, node, opcode="load_be"):
        if len(args) not in (3, 4):
            raise self.error(f"{opcode}(buffer, offset, nbytes[, count]) takes 3 or 4 arguments", node)
        mem = self.byte_memory(args[0])
        offset = self.as_value(self.expr(args[1]), 32, args[1])
        nbytes = self.const_int(args[2])
        if not 1 <= nbytes <= MAX_WIDTH // 8:
            raise self.error(f"cannot load {nbytes} bytes as one word", args[2])
        operands = [mem, offset]
        if len(args) == 4:
            operands.append(self.as_value(self.expr(args[3]), 32, args[3]))
        return self.emit(opcode, 8 * nbytes, operands, {"bytes": nbytes}, node=node)

    def b_load_le(self, args, node):
        return self.b_load_be(args, node, "load_le")

    def b_store_be(self, args, node, opcode="store_be"):
        if len(args) not in (3, 4):
            raise self.error(f"{opcode}(buffer, offset, value[, count]) takes 3 or 4 arguments", node)
        mem = self.byte_memory(args[0])
        if mem.kind == "table":
            raise self.error(f"table {mem.name} is read-only", args[0])
        offset = self.as_value(self.expr(args[1]), 32, args[1])
        v = self.expr(args[2])
        if isinstance(v, CInt) and v.width is None:
            raise self.error("give the stored constant a width (e.g. `0 as u32`)", args[2])
        value = self.need_value(v, args[2])
        if value.width % 8:
            raise self.error(f"{opcode} stores whole bytes; u{value.width} is not", args[2])
        operands = [mem, offset, value]
        if len(args) == 4:
            operands.append(self.as_value(self.expr(args[3]), 32, args[3]))
        self.emit(opcode, None, operands, {"bytes": value.width // 8}, node=node)
        return None

    def b_store_le(self, args, node):
        return self.b_store_be(args, node, "store_le")

    def b_accel_start(self, args, node):
        if not args:
            raise self.error("accel_start(\"op\", operands...) needs the operation name", node)
        op = self.expr(args[0])
        if not isinstance(op, str) or op not in ACCEL_OPS:
            raise self.error(f"unknown accelerator operation; known: {', '.join(sorted(ACCEL_OPS))}", args[0])
        values = [self.need_value(self.expr(a), a) for a in args[1:]]
        return self.emit("accel_start", TOKEN, values, {"op": op}, node=node, hint="tok")

    def b_accel_result(self, args, node):
        if len(args) != 1:
            raise self.error("accel_result takes the token of an accel_start", node)
        tok = self.expr(args[0])
        if not isinstance(tok, Value) or tok.width != TOKEN:
            raise self.error("accel_result takes the token of an accel_start", args[0])
        start = self.find_start(tok)
        return self.emit("accel_result", ACCEL_OPS[start.attrs["op"]], [tok], {"op": start.attrs["op"]}, node=node)

    def find_start(self, tok: Value) -> Op:
        for block in reversed(self.blocks):
            for op in block.ops:
                if op.results and op.results[0] is tok:
                    return op
        raise self.error("the token must come from accel_start in an enclosing block", None)

    # -- width handling
    def need_value(self, v, node) -> Value:
        if isinstance(v, Value):
            return v
        if isinstance(v, CInt):
            if v.width is None:
                raise self.error("this constant needs a width (e.g. `5 as u8`)", node)
            return self.emit("const", v.width, attrs={"value": v.value}, node=node)
        if isinstance(v, Memory):
            raise self.error(f"{v.name} is an array; index it", node)
        if isinstance(v, list):
            raise self.error("a call returning several values used as one value", node)
        raise self.error("not a runtime value", node)

    def check_fit(self, v: CInt, width: int, node) -> int:
        if v.width is not None and v.width != width:
            raise self.error(f"width mismatch: expected u{width}, got u{v.width}", node)
        value = v.value % (1 << width) if v.value < 0 else v.value
        if not _fits(value, width):
            raise self.error(f"constant {v.value:#x} does not fit in u{width}", node)
        return value

    def as_value(self, v, width: int, node) -> Value:
        if isinstance(v, CInt):
            return self.emit("const", width, attrs={"value": self.check_fit(v, width, node)}, node=node)
        v = self.need_value(v, node)
        if v.width != width:
            raise self.error(f"width mismatch: expected u{width}, got u{v.width} (convert with `as u{width}`)", node)
        return v

    def common_width(self, a, b, node, what) -> int:
        wa = a.width if isinstance(a, (Value, CInt)) else None
        wb = b.width if isinstance(b, (Value, CInt)) else None
        if wa is not None and wb is not None and wa != wb:
            raise self.error(f"width mismatch: u{wa} {what} u{wb} (convert one side with `as`)", node)
        w = wa if wa is not None else wb
        if w is None:
            raise self.error("cannot tell the width of this expression; give a constant a type", node)
        return w

    OPCODES = {"^": "xor", "&": "and", "|": "or", "+": "add", "-": "sub", "*": "mul",
               "/": "udiv", "%": "umod", "==": "eq", "!=": "ne", "<": "ult", "<=": "ule",
               ">": "ugt", ">=": "uge"}

    def binop(self, op: str, a, b, node):
        for v, side in ((a, node.children[0]), (b, node.children[-1])):
            if isinstance(v, (Memory, list, tuple)) or (isinstance(v, Value) and v.width == TOKEN):
                raise self.error(f"operator {op} needs word operands", side)
        if (isinstance(a, (CInt, str))) and isinstance(b, (CInt, str)):
            return const_binop(self.spec, op, a, b, node)
        if isinstance(a, str) or isinstance(b, str):
            raise self.error("knob choice names are compile-time only", node)
        if op in ("<<", ">>", "<<<", ">>>"):
            x = self.need_value(a, node.children[0])
            if isinstance(b, CInt):
                if b.value < 0:
                    raise self.error("negative shift amount", node.children[-1])
                amount = b.value % x.width if op in ("<<<", ">>>") else min(b.value, x.width)
                name = {"<<": "shl", ">>": "shr", "<<<": "rotl", ">>>": "rotr"}[op]
                return self.emit(name, x.width, [x], {"by": amount}, node=node)
            if op in ("<<<", ">>>"):
                raise self.error("rotations need a constant amount", node.children[-1])
            y = self.need_value(b, node.children[-1])
            return self.emit("shl_var" if op == "<<" else "shr_var", x.width, [x, y], node=node)
        width = self.common_width(a, b, node, op)
        x = self.as_value(a, width, node.children[0])
        y = self.as_value(b, width, node.children[-1])
        opcode = self.OPCODES[op]
        return self.emit(opcode, 1 if opcode in ("eq", "ne", "ult", "ule", "ugt", "uge") else width,
                         [x, y], node=node)


def _is_temp(name: str) -> bool:
    return name == "t" or re.fullmatch(r"t\.[0-9]+", name) is not None


def _assigned_names(block: Tree) -> list[str]:
    """Names assigned anywhere in a statement block (nested blocks included), first use first.
    Names declared by `var` inside the block are local to it and left out."""
    names: list[str] = []
    declared: set[str] = set()

    def visit(node):
        if not isinstance(node, Tree):
            return
        if node.data == "var_stmt":
            declared.add(str(node.children[0]))
        if node.data == "lv_name":
            n = str(node.children[0])
            if n not in names and n not in declared:
                names.append(n)
        for c in node.children:
            visit(c)

    visit(block)
    return names


# ---------------------------------------------------------------- entry point

def load_module(path: str | Path, knobs: dict[str, str] | None = None) -> Module:
    """Elaborate the spec at `path` with `knobs` bound (name -> value text)."""
    path = Path(path)
    module = Module(name=path.stem, knobs={})
    try:
        spec = SpecElaborator(path, dict(knobs or {}), module, "", {})
        spec.run()
    except RecursionError:
        raise SpecError("spec is nested too deeply", str(path)) from None
    module.name = spec.spec_name
    module.knobs = {k: _plain(spec.globals[k][1]) for k in spec.knob_order}
    module.consts = {k: e[1].value for k, e in spec.globals.items()
                     if e[0] == "const" and isinstance(e[1], CInt)}
    module.domains = dict(spec.domains)
    return module


def _plain(v):
    return v.value if isinstance(v, CInt) else v
