"""Lowering one `fn` to an IR Function: parameters, statements and the final `return`.

Variables are names for the latest SSA value; `for` loops and runtime `if`s carry the variables
their bodies assign as block parameters and yields (scf.for / scf.if style), so the IR never needs
phi nodes. `forall` and `if` on a compile-time condition are unrolled / resolved here.
Expressions are lowered by `lower_expr.ExprLowering`."""
from __future__ import annotations

import re

from lark import Tree

from ..ir.nodes import TOKEN, Block, Function, Memory, Op, Value
from .builder import FunctionBuilder
from .lower_expr import ExprLowering
from .syntax import assigned_names
from .types import MAX_FORALL, Array, CInt, Word
from .widths import as_value, check_fit


def is_temp(name: str) -> bool:
    return name == "t" or re.fullmatch(r"t\.[0-9]+", name) is not None


class FunctionLowering:
    """One `fn` of `spec` -> one IR Function appended to `spec.module`."""

    def __init__(self, spec, decl: Tree):
        self.spec = spec
        self.decl = decl
        self.name = str(decl.children[0])
        self.params, self.rets = spec.signatures[self.name]
        self.fb = FunctionBuilder(spec)
        self.x = ExprLowering(self.fb)
        self.expr = self.x.expr

    def error(self, message, node):
        return self.spec.error(message, node)

    # -- driver
    def run(self) -> None:
        fb = self.fb
        params = []
        scope = {}
        for pname, ptype, pnode in self.params:
            if isinstance(ptype, Word):
                v = Value(pname, ptype.width)
                fb.counters[pname] = 1
            else:
                v = Memory(pname, ptype.elem_width, ptype.length, "param")
            if pname in scope:
                raise self.error(f"parameter {pname} is declared twice", pnode)
            scope[pname] = v
            params.append(v)
        body = Block()
        fb.scopes.append(scope)
        fb.blocks.append(body)
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
                        fb.locals)
        self.spec.module.functions.append(func)

    def return_values(self, stmt: Tree) -> list[Value]:
        exprs = [c for c in stmt.children if c is not None]
        if len(exprs) != len(self.rets):
            raise self.error(f"{self.name} returns {len(self.rets)} value(s), not {len(exprs)}", stmt)
        return [as_value(self.fb, self.expr(e), r.width, e) for e, r in zip(exprs, self.rets)]

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
        fb = self.fb
        name, t, init = stmt.children
        typ = self.spec.eval_type(t)
        if any(str(name) in s for s in fb.scopes[-1:]):
            raise self.error(f"{name!s} is already defined here", name)
        if isinstance(typ, Array):
            if typ.length is None:
                raise self.error("a local buffer needs a fixed length, e.g. u8[16]", t)
            if init is not None:
                raise self.error("arrays start zeroed; assign their elements", init)
            mem = Memory(fb.unique_local(str(name)), typ.elem_width, typ.length, "local")
            fb.locals.append(mem)
            fb.scopes[-1][str(name)] = mem
            return
        value = as_value(fb, self.expr(init), typ.width, init) if init is not None \
            else fb.emit("const", typ.width, attrs={"value": 0}, node=stmt, hint=str(name))
        fb.scopes[-1][str(name)] = value

    def s_assign_stmt(self, stmt):
        targets = [c for c in stmt.children if c.data in ("lv_name", "lv_index")]
        exprs = stmt.children[len(targets):]
        if len(exprs) > 1:
            self.assign_simultaneously(stmt, targets, exprs)
            return
        expr = exprs[0]
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

    def assign_simultaneously(self, stmt, targets: list, exprs: list) -> None:
        """`a, b = b, a ^ b`: every right side is evaluated (left to right) before any target
        is assigned, so each sees the values from before the statement."""
        if len(exprs) != len(targets):
            raise self.error(f"{len(targets)} target(s) but {len(exprs)} values on the right", stmt)
        values = []
        for e in exprs:
            v = self.expr(e)
            if isinstance(v, list):
                raise self.error(f"a call returning {len(v)} values in a list of values; "
                                 f"assign its results on their own (`x, y = f(...)`)", e)
            values.append(v)
        for target, v, e in zip(targets, values, exprs):
            self.assign_target(target, v, e)

    def assign_target(self, target: Tree, value, expr) -> None:
        fb = self.fb
        name = str(target.children[0])
        if target.data == "lv_index":
            mem = fb.lookup(name, target)
            if not isinstance(mem, Memory):
                raise self.error(f"{name} is not an array", target)
            if mem.kind == "table":
                raise self.error(f"table {name} is read-only", target)
            index = self.x.index_value(mem, target.children[1])
            fb.emit("store", None, [mem, index, as_value(fb, value, mem.elem_width, expr)], node=target)
            return
        current = fb.local(name)
        if current is None and name in self.spec.globals:
            raise self.error(f"cannot assign to {name}: it is a global {self.spec.globals[name][0]}", target)
        if isinstance(current, Memory):
            raise self.error(f"cannot assign to array {name}; assign its elements", target)
        if isinstance(value, Memory):
            raise self.error(f"cannot assign array {value.name} to a variable", expr)
        if isinstance(value, str):
            raise self.error("knob choice names are not runtime values", expr)
        if isinstance(current, Value):
            value = as_value(fb, value, current.width, expr)
        elif isinstance(current, CInt) and isinstance(value, Value):
            if current.width is not None and current.width != value.width:
                raise self.error(f"width mismatch: {name} is u{current.width}, the value is u{value.width}", expr)
        elif isinstance(current, CInt) and isinstance(value, CInt) and current.width is not None:
            value = CInt(check_fit(fb, value, current.width, expr), current.width)
        if isinstance(value, Value) and value.name.startswith("t") and is_temp(value.name):
            value.name = fb.fresh(name, value.width).name
        fb.assign(name, value)

    def s_call_stmt(self, stmt):
        callee, *args = stmt.children
        self.x.lower_call(callee, [a for a in args if a is not None], stmt)

    def s_forall_stmt(self, stmt):
        name, lo, hi, body = stmt.children
        a, b = self.x.const_int(lo), self.x.const_int(hi)
        if b - a > MAX_FORALL:
            raise self.error(f"forall over more than {MAX_FORALL} values", stmt)
        for i in range(a, b):
            self.fb.scopes.append({str(name): CInt(i)})
            for s in body.children:
                self.statement(s)
            self.fb.scopes.pop()

    def carried_names(self, blocks: list[Tree]) -> list[str]:
        """Variables bound outside and assigned inside: the values a loop or `if` carries."""
        names: list[str] = []
        for block in blocks:
            for target in assigned_names(block):
                if target in names:
                    continue
                if self.fb.bound_locally(target) and not isinstance(self.fb.lookup(target, None), Memory):
                    names.append(target)
        return names

    def carry_value(self, name: str, node) -> Value:
        fb = self.fb
        v = fb.lookup(name, node)
        if isinstance(v, CInt):
            if v.width is None:
                raise self.error(f"{name} is an untyped integer; give it a width (e.g. `{name} = 0 as u16`) "
                                 f"to change it in a loop or runtime `if`", node)
            v = fb.emit("const", v.width, attrs={"value": v.value}, node=node, hint=name)
            fb.assign(name, v)
        if not isinstance(v, Value) or v.width == TOKEN:
            raise self.error(f"{name} cannot be changed inside a loop or runtime `if`", node)
        return v

    def s_for_stmt(self, stmt):
        fb = self.fb
        *pragmas, name, index_type, lo, hi, body = stmt.children
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
        if index_type is not None:
            typ = self.spec.eval_type(index_type)
            if not isinstance(typ, Word):
                raise self.error("a loop index is a word, e.g. `for i: u32 in ...`", index_type)
            width = typ.width
        elif isinstance(lo_v, CInt) and isinstance(hi_v, CInt):
            width = 16 if max(lo_v.value, hi_v.value) < (1 << 16) else 32
        else:
            width = (hi_v if isinstance(hi_v, Value) else lo_v).width if isinstance(hi_v, Value) or isinstance(lo_v, Value) else 32
        lo_val = as_value(fb, lo_v, width, lo)
        hi_val = as_value(fb, hi_v, width, hi)
        carried = self.carried_names([body])
        inits = [self.carry_value(n, stmt) for n in carried]
        index = fb.fresh(str(name), width)
        params = [fb.fresh(n, v.width) for n, v in zip(carried, inits)]
        block = Block(params=[index] + params)
        fb.blocks.append(block)
        fb.scopes.append({str(name): index, **dict(zip(carried, params))})
        for s in body.children:
            self.statement(s)
        block.yields = [self.carry_value(n, stmt) for n in carried]
        fb.scopes.pop()
        fb.blocks.pop()
        results = [fb.fresh(n, v.width) for n, v in zip(carried, inits)]
        fb.blocks[-1].ops.append(Op("for", results, [lo_val, hi_val] + inits,
                                    {"unroll": unroll}, [block], fb.loc(stmt)))
        for n, r in zip(carried, results):
            fb.assign(n, r)

    def s_if_stmt(self, stmt):
        fb = self.fb
        cond, then_block, else_part = stmt.children
        c = self.expr(cond)
        if isinstance(c, CInt):
            chosen = then_block if c.value else else_part
            if chosen is not None:
                fb.scopes.append({})
                if chosen.data == "if_stmt":
                    self.statement(chosen)
                else:
                    for s in chosen.children:
                        self.statement(s)
                fb.scopes.pop()
            return
        if not isinstance(c, Value) or c.width != 1:
            raise self.error("condition must be a bit (u1); compare with != 0", cond)
        branches = [then_block] + ([else_part] if else_part is not None else [])
        carried = self.carried_names(branches)
        before = [self.carry_value(n, stmt) for n in carried]
        regions = []
        for branch in (then_block, else_part):
            block = Block()
            fb.blocks.append(block)
            fb.scopes.append(dict(zip(carried, before)))
            if branch is not None:
                if branch.data == "if_stmt":
                    self.statement(branch)
                else:
                    for s in branch.children:
                        self.statement(s)
            block.yields = [self.carry_value(n, stmt) for n in carried]
            fb.scopes.pop()
            fb.blocks.pop()
            regions.append(block)
        results = [fb.fresh(n, v.width) for n, v in zip(carried, before)]
        fb.blocks[-1].ops.append(Op("if", results, [c], {}, regions, fb.loc(stmt)))
        for n, r in zip(carried, results):
            fb.assign(n, r)
