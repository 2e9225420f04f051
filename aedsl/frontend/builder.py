"""The state of one function being lowered to IR: the stack of blocks new ops go into, fresh SSA
names, the function's local arrays, and the variable scopes (a variable is a name for its latest
value)."""
from __future__ import annotations

from ..ir.nodes import Block, Memory, Op, Value
from .syntax import pos


class FunctionBuilder:
    def __init__(self, spec):
        self.spec = spec
        self.counters: dict[str, int] = {}
        self.scopes: list[dict] = []
        self.blocks: list[Block] = []
        self.locals: list[Memory] = []

    def error(self, message, node):
        return self.spec.error(message, node)

    # -- IR
    def loc(self, node) -> tuple:
        return (self.spec.display, *pos(node))

    def fresh(self, hint: str, width: int) -> Value:
        n = self.counters.get(hint, 0)
        self.counters[hint] = n + 1
        return Value(f"{hint}.{n}" if n or hint == "t" else hint, width)

    def emit(self, opcode, result_width, args=(), attrs=None, regions=(), node=None, hint="t"):
        results = [] if result_width is None else [self.fresh(hint, result_width)]
        loc = self.loc(node) if node is not None else None
        op = Op(opcode, results, list(args), dict(attrs or {}), list(regions), loc)
        self.blocks[-1].ops.append(op)
        return results[0] if results else None

    def unique_local(self, name: str) -> str:
        taken = {m.name for m in self.locals}
        if name not in taken:
            return name
        k = 1
        while f"{name}.{k}" in taken:
            k += 1
        return f"{name}.{k}"

    # -- scopes
    def local(self, name: str):
        """The innermost local binding of `name`, or None."""
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

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
