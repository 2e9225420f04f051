"""The declarations of one spec file: binds its knobs, evaluates consts, types, tables, perms and
domains, elaborates the specs it `use`s, checks top-level asserts and `if`s, and collects its
functions' signatures before lowering each function (`lower.py`).

A spec's names live in `SpecElaborator.globals` as (kind, ...) entries: ("const", value),
("constfn", parameter names, body expression) for a compile-time function, ("type", Word | Array),
("mem", Memory) for tables, ("perm", positions, width), ("use", spec), ("fn", decl)."""
from __future__ import annotations

import re
from pathlib import Path

from lark import Token, Tree

from ..ir.nodes import Memory, Module, walk_ops
from .builtins import BUILTINS
from .consteval import PartialTable, const_eval
from .diagnostics import SpecError
from .lower import FunctionLowering
from .parser import parse
from .syntax import parse_int, pos
from .types import MAX_ARRAY, MAX_WIDTH, Array, CInt, Word, fits
from aedsl.knobs import Knob
from aedsl.resources import specs_dir


def read_source(path: Path) -> str:
    """The text of a spec file; SpecError if it cannot be read or is not UTF-8 (located at the
    first bad byte, shown in the line with the bad bytes replaced)."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise SpecError(f"cannot read spec: {e.strerror}", str(path)) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        start = raw.rfind(b"\n", 0, e.start) + 1
        column = len(raw[start:e.start].decode("utf-8", errors="replace")) + 1
        raise SpecError(f"not UTF-8 text (byte 0x{raw[e.start]:02x})", str(path), line, column,
                        raw.decode("utf-8", errors="replace")) from None


def find_used_spec(user: Path, name: str) -> Path | None:
    """The spec `use X = name(...)` in the spec file `user` means: beside it, in its sibling
    primitives/, schemes/ and lib/ folders (lib/: functions several specs share, compiled only
    as part of a spec that uses them), then in the spec library that ships with aedsl
    (`aedsl.resources.specs_dir`). None if there is none."""
    here = user.parent
    lib = specs_dir()
    folders = ("primitives", "schemes", "lib")
    for d in (here, *(here.parent / f for f in folders), *(lib / f for f in folders)):
        p = d / f"{name}.ae"
        if p.exists():
            return p
    return None


# A knob whose default is `word` takes the target's machine word size; without a target (the
# interpreter, `aedsl ir` without --word-bits) this one.
WORD_BITS = 16


class SpecElaborator:
    """One spec file with its knobs bound, emitting into a shared `Module` under `prefix`."""

    def __init__(self, path: Path, knob_values: dict[str, str], module: Module, prefix: str,
                 cache: dict, stack: tuple[str, ...] = (), word_bits: int = WORD_BITS):
        self.path = path
        self.word_bits = word_bits          # what a knob's default `word` stands for
        self.display = str(path)
        self.source = read_source(path)
        self.knob_values = dict(knob_values)
        self.module = module
        self.prefix = prefix
        self.cache = cache
        self.stack = stack + (str(path.resolve()),)
        self.globals: dict[str, tuple] = {}
        self.knob_order: list[str] = []
        self.knob_choices: dict[str, list] = {}    # knob -> the values it can take
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
            FunctionLowering(self, decl).run()
        self.check_no_recursion()

    def check_no_recursion(self) -> None:
        """A function of this spec that calls itself, directly or through others, is an error at
        the call that closes the cycle (calls are inlined or made without a stack discipline for
        recursion; a used spec cannot call back into this one)."""
        own = {self.prefix + str(d.children[0]) for d in self.fn_decls}
        calls: dict[str, list] = {f.name: [op for op in walk_ops(f.body) if op.opcode == "call"
                                           and op.attrs.get("callee") in own]
                                  for f in self.module.functions if f.name in own}
        state: dict[str, int] = {}     # 1 on the current path, 2 done

        def visit(name: str, path: list[str]) -> None:
            state[name] = 1
            for op in calls.get(name, ()):
                callee = op.attrs["callee"]
                if state.get(callee) == 1:
                    cycle = path[path.index(callee):] + [name, callee] if callee in path else [name, callee]
                    shown = " -> ".join(c[len(self.prefix):] for c in cycle)
                    _, line, column = op.loc or (None, 0, 0)
                    raise SpecError(f"recursive call ({shown}); functions cannot call themselves",
                                    self.display, line, column, self.source)
                if callee not in state:
                    visit(callee, path + [name])
            state[name] = 2

        for name in (self.prefix + str(d.children[0]) for d in self.fn_decls):
            if name not in state:
                visit(name, [])

    def declare(self, decl: Tree) -> None:
        kind = decl.data
        if kind == "spec_decl":
            self.spec_name = str(decl.children[0])
        elif kind == "knob_decl":
            self.declare_knob(decl)
        elif kind == "const_decl":
            name, expr = decl.children
            self.define(name, ("const", self.const_eval(expr)))
        elif kind == "const_fn_decl":
            name, *params, body = decl.children
            seen = set()
            for p in params:
                if str(p) in seen:
                    raise self.error(f"parameter {p!s} is listed twice", p)
                seen.add(str(p))
            self.define(name, ("constfn", tuple(str(p) for p in params), body))
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
        declared_default = default_value
        if default_value == "word" and "word" not in allowed:
            # the target's machine word: `knob par: {8, 16, 32} = word` (16 on MSP430, 32 on ARMv6-M)
            default_value = self.word_bits
        self.knob_order.append(str(name))
        self.knob_choices[str(name)] = allowed
        if str(name) in self.knob_values:
            text = self.knob_values[str(name)]
            try:
                value: int | str = parse_int(text)
            except ValueError:
                value = text
        else:
            value = default_value
            if value not in allowed:
                what = f"the target's word size {value}" if declared_default == "word" else value
                raise self.error(f"default {what} of knob {name!s} is not one of its choices", default)
        if value not in allowed:
            shown = ", ".join(str(v) for v in allowed) if len(allowed) <= 16 else \
                f"{allowed[0]}..{allowed[-1]}"
            raise self.error(f"knob {name!s}={value} is not allowed; choose one of {shown}", name)
        if isinstance(value, str):
            # the choice's own string, whether the value came from -k or the default: a variant
            # named either way gives the same module, object for object (the unit cache hashes it
            # pickled, and pickle shares an object it meets twice)
            value = allowed[allowed.index(value)]
        self.define(name, ("const", CInt(value) if isinstance(value, int) else value))
        if not self.prefix:             # the top-level spec's knobs, typed (aedsl.driver.knob_registry)
            self.module.knob_decls[str(name)] = Knob(
                str(name), "spec", tuple(str(v) for v in allowed) if len(allowed) <= 256 else None,
                str(declared_default), minimum=min((v for v in allowed if isinstance(v, int)), default=0))

    def knob_literal(self, node: Tree) -> int | str:
        tok = node.children[0]
        return parse_int(tok) if tok.type == "INT" else str(tok)

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

    def elements(self, name: Token, node: Tree, width: int | None) -> list[tuple[int, Tree]]:
        """The (value, expression) pairs of a table's or perm's elements: listed, or computed by a
        comprehension over a compile-time range (its formula sees the index and the elements
        before the one it computes, as u`width` words; `width` None: untyped integers)."""
        if node.data == "listed":
            return [(self.const_int(e), e) for e in node.children]
        formula, index, lo, hi = node.children
        a, b = self.const_int(lo), self.const_int(hi)
        if b - a > MAX_ARRAY:
            raise self.error(f"comprehension over more than {MAX_ARRAY} values", node)
        partial = PartialTable(str(name), width)
        for i in range(a, b):
            v = const_eval(self, formula, {str(index): CInt(i), str(name): partial})
            if not isinstance(v, CInt):
                raise self.error("expected a compile-time integer", formula)
            if width is not None and not fits(v.value, width):
                raise self.error(f"element {len(partial.values)} ({index!s} = {i}) is {v.value:#x}, "
                                 f"which does not fit in u{width}", formula)
            partial.values.append(v.value)
        return [(v, formula) for v in partial.values]

    def declare_table(self, decl: Tree) -> None:
        name, t, elements = decl.children
        typ = self.eval_type(t)
        if not isinstance(typ, Array) or typ.length is None:
            raise self.error("a table has an array type such as u8[256]", t)
        items = self.elements(name, elements, typ.elem_width)
        values = [v for v, _ in items]
        if len(values) != typ.length:
            verb = "lists" if elements.data == "listed" else "computes"
            raise self.error(f"table {name!s} declares {typ.length} entries but {verb} {len(values)}", name)
        for v, e in items:
            if not fits(v, typ.elem_width):
                raise self.error(f"table entry {v:#x} does not fit in u{typ.elem_width}", e)
        mem = Memory(self.prefix + str(name), typ.elem_width, typ.length, "table", tuple(values))
        self.module.tables.append(mem)
        self.define(name, ("mem", mem))

    def declare_perm(self, decl: Tree) -> None:
        name, t, elements = decl.children
        typ = self.eval_type(t)
        if not isinstance(typ, Word):
            raise self.error("a perm has a word type such as u64", t)
        values = [v for v, _ in self.elements(name, elements, None)]
        if len(values) != typ.width or sorted(values) != list(range(typ.width)):
            if elements.data == "comprehension" and len(values) == typ.width:
                outside = [v for v in values if not 0 <= v < typ.width]
                twice = sorted({v for v in values if values.count(v) > 1})
                bad, what = (outside, f"outside 0..{typ.width - 1}") if outside else (twice, "more than once")
                shown = ", ".join(str(v) for v in bad[:4]) + (", ..." if len(bad) > 4 else "")
                raise self.error(f"perm {name!s}: the formula gives position(s) {shown} {what}", elements)
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
        sub = SpecElaborator(path, knobs, self.module, f"{self.prefix}{alias}.", self.cache, self.stack,
                             self.word_bits)
        sub.run()
        self.define(alias, ("use", sub))

    def find_spec(self, name: str, node) -> Path:
        p = find_used_spec(self.path, name)
        if p is None:
            raise self.error(f"no spec named {name} (looked for {name}.ae beside this spec, in "
                             f"primitives/ and schemes/ and in the spec library {specs_dir()})", node)
        return p

    def check_assert(self, stmt: Tree, evaluate) -> None:
        cond, message = stmt.children
        value = evaluate(cond)
        if not isinstance(value, CInt):
            raise self.error("assert needs a compile-time condition", cond)
        if not value.value:
            raise self.error(f"assertion failed: {message[1:-1]}", stmt)

    # -- compile-time evaluation (no runtime values allowed)
    def const_eval(self, expr):
        return const_eval(self, expr)

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
