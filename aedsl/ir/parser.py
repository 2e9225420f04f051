"""Text -> IR: reads what aedsl/ir/printer.py writes, so that `print_module(parse_module(t)) == t`.

    module = parse_module(Path("speck.ir").read_text())

The grammar is aedsl/ir/ir_text.lark. The three header comments of the printer carry the module's
name and knobs (`// module NAME  knobs: k=v ...`), its consts (`// consts: k=v ...`) and its
domains (`// domains: key_len={16} nonce_len=7..14`); they are read here, before Lark, because
they are comments to everyone else. Source positions (`Op.loc`) are not in the text and come back
as None.

Names resolve by scope: a value is visible after its definition in its block and in the blocks
nested below; a `for` region's parameters (index, carried values) only inside it. Memories
resolve to the function's parameters and locals first, then the module's tables. A name used
before it is defined is an `IRSyntaxError` with the line, not a silent new value.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from .nodes import TOKEN, Block, Function, Memory, Module, Op, Value


class IRSyntaxError(Exception):
    """The text is not IR as the printer writes it (message says where)."""


@lru_cache(maxsize=1)
def _lark() -> Lark:
    grammar = (Path(__file__).with_name("ir_text.lark")).read_text()
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True)


def _int(tok: Token) -> int:
    return int(str(tok), 0)


def _plain(text: str):
    """A knob value as the elaborator stores it: int when it is a number, else the name."""
    return int(text) if re.fullmatch(r"-?[0-9]+", text) else text


def _header(text: str, module: Module) -> None:
    for line in text.splitlines():
        if not line.startswith("//"):
            if line.strip():
                break  # the header is the leading comment lines only
            continue
        m = re.match(r"// module (\S+)(?:  knobs: (.*))?$", line)
        if m:
            module.name = m.group(1)
            module.knobs = {k: _plain(v) for k, v in _pairs(m.group(2) or "")}
        elif line.startswith("// consts: "):
            module.consts = {k: int(v) for k, v in _pairs(line[len("// consts: "):])}
        elif line.startswith("// domains: "):
            module.domains = {k: _domain(v) for k, v in _pairs(line[len("// domains: "):])}


def _pairs(text: str):
    for item in text.split():
        k, _, v = item.partition("=")
        yield k, v


def _domain(text: str):
    if ".." in text:
        lo, hi = text.split("..")
        return range(int(lo), int(hi))
    inner = text.strip("{}")
    return tuple(int(x) for x in inner.split(",")) if inner else ()


class _Scope:
    """Value names visible at a point: a chain of dicts, innermost last."""

    def __init__(self, memories: dict[str, Memory]):
        self.frames: list[dict[str, Value]] = [{}]
        self.memories = memories

    def define(self, tok: Token, width: int) -> Value:
        v = Value(str(tok)[1:], width)
        self.frames[-1][v.name] = v
        return v

    def value(self, tok: Token) -> Value:
        name = str(tok)[1:]
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        raise IRSyntaxError(f"line {tok.line}: %{name} is used before it is defined")

    def operand(self, tok: Token):
        if tok.type == "MEM":
            name = str(tok)[1:]
            if name not in self.memories:
                raise IRSyntaxError(f"line {tok.line}: no memory @{name}")
            return self.memories[name]
        return self.value(tok)


def _width(tok: Token) -> int:
    return TOKEN if tok.type == "TOKEN" else int(str(tok)[1:])


def _memory(name_tok: Token, memtype: Tree, kind: str, data=None) -> Memory:
    name = str(name_tok)[1:]
    if memtype.data == "bytes_type":
        return Memory(name, 8, None, kind, data)
    wtype, length = memtype.children
    return Memory(name, int(str(wtype)[1:]), _int(length), kind, data)


def _attrs(tree: Tree | None) -> dict:
    if tree is None:
        return {}
    out = {}
    for attr in tree.children:
        key, val = attr.children
        if val.data == "int_attr":
            out[str(key)] = _int(val.children[0])
        elif val.data == "str_attr":
            out[str(key)] = str(val.children[0])[1:-1]
        else:
            out[str(key)] = tuple(_int(x) for x in val.children if x is not None)
    return out


class _FunctionBuilder:
    def __init__(self, tree: Tree, tables: dict[str, Memory]):
        self.tree = tree
        self.memories = dict(tables)
        self.scope = _Scope(self.memories)

    def build(self) -> Function:
        name, *rest = self.tree.children
        params, result_widths, locals_, ops = [], [], [], []
        ret = None
        for item in rest:
            if item is None:
                continue
            if isinstance(item, Token):  # a result type
                result_widths.append(int(str(item)[1:]))
            elif item.data == "mem_param":
                m = _memory(item.children[0], item.children[1], "param")
                self.memories[m.name] = m
                params.append(m)
            elif item.data == "typed":
                params.append(self.typed(item))
            elif item.data == "local":
                m = _memory(item.children[0], item.children[1], "local")
                self.memories[m.name] = m
                locals_.append(m)
            elif item.data == "op":
                ops.append(item)
            elif item.data == "ret":
                ret = item
        body = Block()
        body.ops = [self.op(o) for o in ops]
        body.yields = [self.scope.value(t) for t in ret.children if t is not None]
        return Function(str(name)[1:], params, result_widths, body, locals_)

    def typed(self, tree: Tree) -> Value:
        name, typ = tree.children
        return self.scope.define(name, _width(typ))

    def region(self, params: list[Value], op_trees: list[Tree], yld: Tree, before=None) -> Block:
        self.scope.frames.append({})
        try:
            block_params = [self.typed(p) for p in params]
            if before:
                before(block_params)
            ops = [self.op(o) for o in op_trees]
            yields = [self.scope.value(t) for t in yld.children if t is not None]
        finally:
            self.scope.frames.pop()
        return Block(block_params, ops, yields)

    def op(self, tree: Tree) -> Op:
        results_tree, body = tree.children
        result_trees = results_tree.children if results_tree is not None else []
        kind = body.data
        kids = body.children
        if kind == "for_op":
            index, lo, hi, *rest = kids
            carried = [c for c in rest if isinstance(c, Tree) and c.data == "carried"]
            attrs_tree = next((c for c in rest if isinstance(c, Tree) and c.data == "attrs"), None)
            ops = [c for c in rest if isinstance(c, Tree) and c.data == "op"]
            yld = rest[-1]
            args = [self.scope.value(lo), self.scope.value(hi)]
            args += [self.scope.value(c.children[1]) for c in carried]
            region = self.region([index] + [c.children[0] for c in carried], ops, yld)
            op = Op("for", [], args, _attrs(attrs_tree), [region])
        elif kind == "if_op":
            cond, attrs_tree, *rest = kids
            # rest: ops of then, yld, ops of else, yld
            split = next(i for i, c in enumerate(rest) if c.data == "yld")
            then = self.region([], rest[:split], rest[split])
            els = self.region([], rest[split + 1:-1], rest[-1])
            op = Op("if", [], [self.scope.value(cond)], _attrs(attrs_tree), [then, els])
        elif kind == "call_op":
            callee, *rest = kids
            attrs_tree = rest[-1]
            args = [self.scope.operand(t) for t in rest[:-1] if t is not None]
            op = Op("call", [], args, {"callee": str(callee)[1:], **_attrs(attrs_tree)})
        elif kind == "const_op":
            op = Op("const", [], [], {"value": _int(kids[0])})
        else:
            opcode, *rest = kids
            attrs_tree = rest[-1]
            args = [self.scope.operand(t) for t in rest[:-1] if t is not None]
            op = Op(str(opcode), [], args, _attrs(attrs_tree))
        # Results are defined after the operands (and regions) are resolved: an op never sees
        # its own results.
        op.results = [self.typed(r) for r in result_trees]
        return op


def parse_module(text: str) -> Module:
    """Parse the printer's text form of a module; raises IRSyntaxError on anything else."""
    try:
        tree = _lark().parse(text)
    except UnexpectedInput as e:
        raise IRSyntaxError(f"line {e.line}, column {e.column}: unexpected input\n"
                            f"{e.get_context(text)}") from None
    module = Module(name="", knobs={})
    _header(text, module)
    tables: dict[str, Memory] = {}
    for item in tree.children:
        if item.data == "table":
            name, memtype, *data = item.children
            m = _memory(name, memtype, "table", tuple(_int(x) for x in data if x is not None))
            tables[m.name] = m
            module.tables.append(m)
    for item in tree.children:
        if item.data == "func":
            module.functions.append(_FunctionBuilder(item, tables).build())
    return module
