"""The walk of word legalization: each value's words, emitting the new ops, and the
dispatch of every op to its lowering (`l_<opcode>`, in the other modules of this package).

An op none of whose values is wider than W is kept as it is, its operands renamed to their
single words; a wide op goes to its lowering, which returns the result's words. Memory,
control-flow, call and accelerator ops always go to theirs (their memories and wide operands
change form even when the op's own result is narrow).

Preserves: program order of all ops; each original value's bits, as the little-endian
concatenation of its words (`layout.word_widths`).
"""
from __future__ import annotations

from ...nodes import Block, Function, Memory, Module, Op, Value
from ...ops import mask
from ..common import Names
from .layout import word_widths


class LegalizeError(Exception):
    pass


class Walker:
    """The state of legalizing one function; the lowerings are mixed in (see __init__.py)."""

    def __init__(self, module: Module, fn: Function, W: int, memories: dict[int, Memory]):
        self.module = module
        self.fn = fn
        self.W = W
        self.names = Names(fn)
        self.words: dict[int, list[Value]] = {}   # id(original value) -> its words
        self.memories = memories                  # id(original memory) -> legalized memory
        self.out: list[Op] = []
        self.keep: list = []                      # keep originals alive (ids are dict keys)

    # -- emitting ---------------------------------------------------------------------------
    def op(self, opcode: str, width, args: list, attrs: dict | None = None, base: str = "w"):
        """Emit an op; `width` int -> one result, list -> several. Returns the result(s)."""
        widths = width if isinstance(width, list) else [width]
        results = [self.names.value(base, w) for w in widths]
        self.out.append(Op(opcode, results, list(args), attrs or {}))
        return results if isinstance(width, list) else results[0]

    def const(self, value: int, width: int) -> Value:
        return self.op("const", width, [], {"value": value & mask(width)}, "c")

    def get(self, v: Value) -> list[Value]:
        return self.words[id(v)]

    def mem(self, m: Memory) -> Memory:
        return self.memories.get(id(m), m)

    def bind(self, v: Value, words: list[Value]) -> None:
        self.keep.append(v)
        self.words[id(v)] = words

    def low(self, v: Value) -> Value:
        """The low word of an index-like value (see the module's assumptions)."""
        return self.get(v)[0]

    def reduce(self, opcode: str, vals: list[Value]) -> Value:
        acc = vals[0]
        for v in vals[1:]:
            acc = self.op(opcode, acc.width, [acc, v])
        return acc

    def scalar_args(self, args) -> list:
        out = []
        for a in args:
            out.extend([self.mem(a)] if isinstance(a, Memory) else self.get(a))
        return out

    # -- the walk -----------------------------------------------------------------------------
    def run(self) -> None:
        params = []
        for p in self.fn.params:
            if isinstance(p, Memory):
                params.append(self.mem(p))
            else:
                ws = [self.names.value(p.name, w) for w in word_widths(p.width, self.W)] \
                    if p.width > self.W else [p]
                self.bind(p, ws)
                params.extend(ws)
        self.fn.params = params
        self.fn.locals = [self.mem(m) for m in self.fn.locals]
        self.fn.body = self.block(self.fn.body, bind_params=False)
        self.fn.result_widths = [w for r in self.fn.result_widths for w in word_widths(r, self.W)]

    def block(self, block: Block, bind_params: bool = True) -> Block:
        saved = self.out
        self.out = []
        params = []
        if bind_params:
            for p in block.params:
                ws = [self.names.value(p.name, w) for w in word_widths(p.width, self.W)] \
                    if p.width > self.W else [p]
                self.bind(p, ws)
                params.extend(ws)
        for op in block.ops:
            self.lower(op)
        yields = [w for y in block.yields for w in self.get(y)]
        new = Block(params, self.out, yields)
        self.out = saved
        return new

    def lower(self, op: Op) -> None:
        code = op.opcode
        W = self.W
        r = op.results[0] if op.results else None
        w = r.width if r is not None else 0
        base = r.name if r is not None else "w"
        wide = w > W or any(isinstance(a, Value) and a.width > W for a in op.args)
        handler = getattr(self, "l_" + code, None)
        if code in ("for", "if", "call", "accel_start", "accel_result", "load", "store",
                    "load_be", "load_le", "store_be", "store_le", "len"):
            handler(op)
            return
        if not wide:
            # Narrow already: keep the op, with operands renamed to their (single) words.
            new = Op(code, [], [self.get(a)[0] if isinstance(a, Value) else self.mem(a) for a in op.args],
                     dict(op.attrs), [], op.loc)
            new.results = op.results
            for res in op.results:
                self.bind(res, [res])
            self.out.append(new)
            return
        if handler is None:
            raise LegalizeError(f"legalize: {code} on u{max([w] + [a.width for a in op.args if isinstance(a, Value)])} "
                                f"is not supported at word size {W}")
        words = handler(op, w, base)
        self.bind(r, words)
