"""The IR: word-level dataflow in SSA form, with structured control flow and explicit memory.

A `Module` holds tables (read-only memories) and functions. A `Function` has parameters (scalar
`Value`s and `Memory` references), local memories, and a body `Block`. A `Block` is a list of
`Op`s plus the values it yields (a function body yields its return values). Loops and
conditionals are ops that own blocks (regions), like MLIR's scf.for / scf.if: loop-carried
scalars are the loop block's parameters, and every op result has an explicit width in bits.

Memory is never SSA: arrays, byte buffers and tables are named `Memory` objects read and written
by `load`/`store` (one element) and `load_be`/`load_le`/`store_be`/`store_le` (a word assembled
from bytes of a byte memory). Ops with effects (stores, calls, accelerator ops) keep their order.

A pass is a pure function `Module -> Module`; `clone()` gives a pass a copy it may change.

Opcodes (operands in `args`, constants in `attrs`; ops.py holds each one's exact semantics):
  const               attrs value                       -> uW
  not, neg            x                                 -> uW
  xor and or add sub mul udiv umod   x, y (same width)  -> uW   (add/sub/mul mod 2^W)
  shl shr rotl rotr   x; attrs by (a constant amount)   -> uW
  shl_var shr_var     x, amount (any width)             -> uW   (amount >= W gives 0)
  eq ne ult ule ugt uge   x, y                          -> u1
  select              c (u1), a, b                      -> uW   (a if c else b)
  zext trunc          x                                 -> uW   (to the result width)
  slice               x; attrs lo                       -> uW   (bits lo .. lo+W-1 of x)
  concat              x1, x2, ... (first = most significant) -> u(sum of widths)
  perm                x; attrs table (output bit p[i] = input bit i) -> uW
  len                 mem                               -> u32  (its length in elements)
  addr_low            mem (bytes), offset; attrs bits   -> u(bits) (the low bits of the address of
                      byte `offset`; the interpreter's buffers sit at multiples of 16)
  load                mem, index                        -> u(elem width)
  store               mem, index, value                 -> (none)
  load_be load_le     mem (bytes), offset[, count]; attrs bytes -> u(8*bytes)
                      (with count: only `count` bytes are read, the rest are zero; BE keeps
                       the bytes read at the top of the word, LE at the bottom)
  store_be store_le   mem, offset, value[, count]       -> (none)  (first `count` bytes only)
  call                args...; attrs callee             -> the callee's results
  for                 lo, hi, init...; region body(index, carried...) yields carried
                      attrs unroll (1 = as written, 0 = fully)  -> carried values at exit
  if                  c, ; regions then, else (each yields the results)  -> results
  accel_start         args...; attrs op (e.g. "aes128.encrypt")  -> token (width 0)
  accel_result        token                             -> u(the op's output width)
  addc                x, y, carry_in (u1)               -> uW sum, u1 carry out   } made by word
  subb                x, y, borrow_in (u1)              -> uW diff, u1 borrow out } legalization
  umulh               x, y (same width)                 -> uW   (high half of the 2W-bit product)
  After legalization accel_start carries attrs words (word count per logical operand) and
  word_bits, and accel_result has one result per word (word 0 = least significant).
The accelerator pair is asynchronous: the operation runs on the chip's accelerator between
`accel_start` and `accel_result` (latency from the chip file), so a scheduler may move independent
ops into the gap.
"""
from __future__ import annotations

from dataclasses import dataclass, field

TOKEN = 0  # width of an accelerator token


class Value:
    """An SSA value: a name (unique inside its function) and a width in bits."""

    __slots__ = ("name", "width")

    def __init__(self, name: str, width: int):
        self.name = name
        self.width = width

    def __repr__(self) -> str:
        return f"%{self.name}:u{self.width}"


class Memory:
    """A named memory: an array of `length` elements of `elem_width` bits.

    kind: "param" (passed by reference), "local" (function-local, zeroed on entry) or "table"
    (module-level, read-only, `data` holds its contents). `length` None = a byte buffer whose
    length is known only at run time (`bytes`).
    """

    __slots__ = ("name", "elem_width", "length", "kind", "data")

    def __init__(self, name: str, elem_width: int, length: int | None, kind: str,
                 data: tuple[int, ...] | None = None):
        self.name = name
        self.elem_width = elem_width
        self.length = length
        self.kind = kind
        self.data = data

    def type_str(self) -> str:
        return "bytes" if self.length is None else f"u{self.elem_width}[{self.length}]"

    def __repr__(self) -> str:
        return f"@{self.name}:{self.type_str()}"


Operand = Value | Memory


@dataclass
class Block:
    params: list[Value] = field(default_factory=list)
    ops: list["Op"] = field(default_factory=list)
    yields: list[Value] = field(default_factory=list)


@dataclass
class Op:
    opcode: str
    results: list[Value]
    args: list[Operand] = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    regions: list[Block] = field(default_factory=list)
    # Source position (path, line, column) of the statement this op came from, for diagnostics
    # and for printing `--loc`; not part of the semantics.
    loc: tuple[str, int, int] | None = None


@dataclass
class Function:
    name: str
    params: list[Operand]
    result_widths: list[int]
    body: Block
    locals: list[Memory] = field(default_factory=list)


@dataclass
class Module:
    """One spec with its knobs bound, plus everything it uses (functions of a used spec are named
    `<alias>.<fn>`). `consts` holds the spec's compile-time constants an engine needs
    (block_bits, key_bits, ...); `domains` the declared `domain` sets (key_len, nonce_len, ...)."""

    name: str
    knobs: dict[str, object]
    tables: list[Memory] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    consts: dict[str, int] = field(default_factory=dict)
    domains: dict[str, tuple[int, ...]] = field(default_factory=dict)
    memory_types: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    # the functions as the user calls them, before any pass (word legalization splits wide
    # parameters; the exported interface keeps the original ones): set by the compile driver
    interfaces: dict[str, "Function"] = field(default_factory=dict)
    # the spec's own knobs as declared (name -> aedsl.knobs.Knob), set by the frontend
    knob_decls: dict = field(default_factory=dict)

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    def has_function(self, name: str) -> bool:
        return any(f.name == name for f in self.functions)

    def clone(self) -> "Module":
        """A copy a pass may change: every Block, Op and Function new, with new lists and attrs
        dicts; Values and Memories shared (nothing changes one in place: a pass makes new ones),
        as are the attrs' own values, the source positions and the interfaces (the functions
        as the user calls them, never rewritten). As `copy.deepcopy` but without walking every
        Value again (it was most of the IR passes' time)."""
        def block(b: Block) -> Block:
            return Block(list(b.params), [op(o) for o in b.ops], list(b.yields))

        def op(o: Op) -> Op:
            return Op(o.opcode, list(o.results), list(o.args), dict(o.attrs),
                      [block(r) for r in o.regions], o.loc)

        def function(f: Function) -> Function:
            return Function(f.name, list(f.params), list(f.result_widths), block(f.body), list(f.locals))

        return Module(self.name, dict(self.knobs), list(self.tables), [function(f) for f in self.functions],
                      dict(self.consts), dict(self.domains), dict(self.memory_types), dict(self.interfaces),
                      dict(self.knob_decls))


def walk_ops(block: Block):
    """Every op in `block` and its regions, depth first, in program order."""
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from walk_ops(region)
