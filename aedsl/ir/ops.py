"""The IR's op semantics, in one table: for every opcode its operand count, its kind (pure,
memory read, effect, control) and what it computes on Python ints.

Everything that needs an op's meaning reads it from here: the reference interpreter
(`interp.py`, which calls these functions from the Python source it generates), constant
folding in the passes (`passes/common.evaluate`) and the selectors' folding of immediates
(`aedsl.codegen.select_base.fold`).

    spec = OPS["add"]
    f = spec.bind((16, 16), 16, {})      # operand widths, result width, attrs
    f(0xFFFF, 2)                          # -> 1
    evaluate("addc", [0xFFFF, 2, 0], (16, 16, 1), 16, {})   # -> [1, 1]

`bind(widths, w, attrs)` specialises an op once (masks, shift amounts, permutation tables are
computed there) and returns a function of the operand values; the interpreter binds each op of
a program once and calls the function per execution. Values are ints masked to their width;
memories are Python lists of ints (one per element); the accelerator token of `accel_start` is a
tuple (op name, operand values). A function returns an int for ops with one result, a tuple
for `addc`/`subb` and `accel_result` (one entry per result), None for stores.

Semantics fixed here (nodes.py summarises them): arithmetic wraps mod 2^width; `udiv` by zero
gives 0 and `umod` by zero gives the dividend; shifts by >= width give 0; rotates are mod the
width; `load_be`/`load_le` with a count read only that many bytes (the others are zero), stores
with a count write only that many; a byte access beyond its buffer raises InterpError, a `load`
or `store` out of range Python's IndexError. `call`, `for` and `if` have no function here: their
meaning is their regions' and the callee's (the interpreter runs those).

Kinds: "pure" (result depends only on operands and attrs; may be removed, duplicated, merged),
"read" (reads a memory: kept in place; a `load` from a read-only table is pure, see
passes/common.is_pure), "effect" (stores, calls, accelerator ops: always kept, in order),
"control" (`for`, `if`: effects are those of their regions).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable


class InterpError(Exception):
    """A run-time fault of the evaluated program (an access beyond a buffer, no accelerator
    model installed, a bad argument)."""


def mask(w: int) -> int:
    return (1 << w) - 1


@dataclass(frozen=True)
class OpSpec:
    """One opcode. `arity` = (least, most) operands, most None = any number; `results` = result
    count, None = variable (a call's, a loop's, a legalized `accel_result`'s); `bind` as in the
    module docstring (None for `call`, `for`, `if`)."""
    name: str
    arity: tuple[int, int | None]
    results: int | None
    kind: str
    bind: Callable | None

    @property
    def pure(self) -> bool:
        return self.kind == "pure"

    @property
    def has_effect(self) -> bool:
        return self.kind == "effect"

    @property
    def variadic(self) -> bool:
        return self.arity[1] is None


OPS: dict[str, OpSpec] = {}


def _op(name: str, arity, results: int | None, kind: str = "pure"):
    """Register the decorated binder as the semantics of `name`."""
    if isinstance(arity, int):
        arity = (arity, arity)

    def register(bind):
        OPS[name] = OpSpec(name, arity, results, kind, bind)
        return bind
    return register


# --- constants, bitwise, arithmetic ---------------------------------------------------------------

@_op("const", 0, 1)
def _const(widths, w, attrs):
    value = attrs["value"] & mask(w)
    return lambda: value


@_op("xor", 2, 1)
def _xor(widths, w, attrs):
    return operator.xor


@_op("and", 2, 1)
def _and(widths, w, attrs):
    return operator.and_


@_op("or", 2, 1)
def _or(widths, w, attrs):
    return operator.or_


@_op("not", 1, 1)
def _not(widths, w, attrs):
    m = mask(w)
    return lambda x: x ^ m


@_op("neg", 1, 1)
def _neg(widths, w, attrs):
    m = mask(w)
    return lambda x: -x & m


@_op("add", 2, 1)
def _add(widths, w, attrs):
    m = mask(w)
    return lambda x, y: (x + y) & m


@_op("sub", 2, 1)
def _sub(widths, w, attrs):
    m = mask(w)
    return lambda x, y: (x - y) & m


@_op("mul", 2, 1)
def _mul(widths, w, attrs):
    m = mask(w)
    return lambda x, y: (x * y) & m


@_op("umulh", 2, 1)
def _umulh(widths, w, attrs):
    return lambda x, y: (x * y) >> w


@_op("udiv", 2, 1)
def _udiv(widths, w, attrs):
    return lambda x, y: x // y if y else 0


@_op("umod", 2, 1)
def _umod(widths, w, attrs):
    return lambda x, y: x % y if y else x


@_op("addc", 3, 2)
def _addc(widths, w, attrs):
    m = mask(w)

    def addc(x, y, carry):
        s = x + y + carry
        return s & m, s >> w
    return addc


@_op("subb", 3, 2)
def _subb(widths, w, attrs):
    m = mask(w)

    def subb(x, y, borrow):
        d = x - y - borrow
        return d & m, int(d < 0)
    return subb


# --- shifts and rotates ---------------------------------------------------------------------------

@_op("shl", 1, 1)
def _shl(widths, w, attrs):
    k, m = attrs["by"], mask(w)
    return lambda x: (x << k) & m


@_op("shr", 1, 1)
def _shr(widths, w, attrs):
    k = attrs["by"]
    return lambda x: x >> k


def _rotate(left: int, w: int):
    k = left % w if w else 0
    if k == 0:
        return lambda x: x
    m, back = mask(w), w - k
    return lambda x: ((x << k) | (x >> back)) & m


@_op("rotl", 1, 1)
def _rotl(widths, w, attrs):
    return _rotate(attrs["by"], w)


@_op("rotr", 1, 1)
def _rotr(widths, w, attrs):
    return _rotate(w - attrs["by"] % w if w else 0, w)


@_op("shl_var", 2, 1)
def _shl_var(widths, w, attrs):
    m = mask(w)
    return lambda x, k: (x << k) & m if k < w else 0


@_op("shr_var", 2, 1)
def _shr_var(widths, w, attrs):
    return operator.rshift


# --- comparisons and select -----------------------------------------------------------------------

@_op("eq", 2, 1)
def _eq(widths, w, attrs):
    return lambda x, y: int(x == y)


@_op("ne", 2, 1)
def _ne(widths, w, attrs):
    return lambda x, y: int(x != y)


@_op("ult", 2, 1)
def _ult(widths, w, attrs):
    return lambda x, y: int(x < y)


@_op("ule", 2, 1)
def _ule(widths, w, attrs):
    return lambda x, y: int(x <= y)


@_op("ugt", 2, 1)
def _ugt(widths, w, attrs):
    return lambda x, y: int(x > y)


@_op("uge", 2, 1)
def _uge(widths, w, attrs):
    return lambda x, y: int(x >= y)


@_op("select", 3, 1)
def _select(widths, w, attrs):
    return lambda c, a, b: a if c else b


# --- width changes and bit moves -----------------------------------------------------------------

@_op("zext", 1, 1)
def _zext(widths, w, attrs):
    return lambda x: x


@_op("trunc", 1, 1)
def _trunc(widths, w, attrs):
    m = mask(w)
    return lambda x: x & m


@_op("slice", 1, 1)
def _slice(widths, w, attrs):
    lo, m = attrs["lo"], mask(w)
    return lambda x: (x >> lo) & m


@_op("concat", (1, None), 1)
def _concat(widths, w, attrs):
    # the first operand is the most significant
    shifts = []
    pos = sum(widths)
    for xw in widths:
        pos -= xw
        shifts.append(pos)
    shifts = tuple(shifts)
    if len(shifts) == 2:
        s0 = shifts[0]
        return lambda x, y: (x << s0) | y

    def concat(*xs):
        r = 0
        for x, s in zip(xs, shifts):
            r |= x << s
        return r
    return concat


@lru_cache(maxsize=512)
def _perm_rows(table: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The bit permutation `table` (output bit table[i] = input bit i) a byte at a time: for
    input byte k, the output bits each of its 256 values sets."""
    rows = []
    for k in range(0, len(table), 8):
        dests = table[k:k + 8]
        row = [0] * 256
        for v in range(1, 256):
            low = v & -v
            b = low.bit_length() - 1
            row[v] = row[v ^ low] | (1 << dests[b] if b < len(dests) else 0)
        rows.append(tuple(row))
    return tuple(rows)


@_op("perm", 1, 1)
def _perm(widths, w, attrs):
    # output bit table[i] = input bit i, looked up a byte at a time (_perm_rows)
    table = tuple(attrs["table"])
    rows, m = _perm_rows(table), mask(len(table))

    def perm(x):
        r = 0
        for row, b in zip(rows, (x & m).to_bytes(len(rows), "little")):
            r |= row[b]
        return r
    return perm


# --- memory ---------------------------------------------------------------------------------------

@_op("len", 1, 1, "read")
def _len(widths, w, attrs):
    return len


# The low `bits` bits (at most 4) of the address of byte `off` of a byte buffer; made by
# passes/align_versioning.py, whose branches compute the same results whatever it gives. The
# interpreter places every byte buffer at an address that is a multiple of 16.
@_op("addr_low", 2, 1, "read")
def _addr_low(widths, w, attrs):
    m = mask(attrs["bits"])
    return lambda mem, off: off & m


@_op("load", 2, 1, "read")
def _load(widths, w, attrs):
    return operator.getitem


@_op("store", 3, 0, "effect")
def _store(widths, w, attrs):
    return operator.setitem


def _span(mem, off, nbytes, count, what):
    n = nbytes if count is None else min(count, nbytes)
    if off + n > len(mem):
        raise InterpError(f"{what} of {n} bytes at {off} beyond a buffer of {len(mem)}")
    return n


@_op("load_be", (2, 3), 1, "read")
def _load_be(widths, w, attrs):
    nbytes = attrs["bytes"]

    def load_be(mem, off, count=None):
        n = _span(mem, off, nbytes, count, "load")
        v = 0
        for k in range(nbytes):
            v = (v << 8) | (mem[off + k] if k < n else 0)
        return v
    return load_be


@_op("load_le", (2, 3), 1, "read")
def _load_le(widths, w, attrs):
    nbytes = attrs["bytes"]

    def load_le(mem, off, count=None):
        n = _span(mem, off, nbytes, count, "load")
        v = 0
        for k in range(n):
            v |= mem[off + k] << (8 * k)
        return v
    return load_le


@_op("store_be", (3, 4), 0, "effect")
def _store_be(widths, w, attrs):
    nbytes = attrs["bytes"]

    def store_be(mem, off, value, count=None):
        n = _span(mem, off, nbytes, count, "store")
        for k in range(n):
            mem[off + k] = (value >> (8 * (nbytes - 1 - k))) & 0xFF
    return store_be


@_op("store_le", (3, 4), 0, "effect")
def _store_le(widths, w, attrs):
    nbytes = attrs["bytes"]

    def store_le(mem, off, value, count=None):
        n = _span(mem, off, nbytes, count, "store")
        for k in range(n):
            mem[off + k] = (value >> (8 * k)) & 0xFF
    return store_le


# --- accelerator ----------------------------------------------------------------------------------

# What the accelerator operations compute: installed by the layer that knows the specs
# (`aedsl.engines.accel_model.install()`: the software spec each accelerator replaces). The IR
# itself does not know what an accelerator computes.
ACCEL_MODEL: list = []


def install_accel_model(run) -> None:
    """Make `run(op_name, args) -> int` the semantics of `accel_start`/`accel_result`."""
    ACCEL_MODEL[:] = [run]


def _accel(token) -> int:
    op, args = token
    if not ACCEL_MODEL:
        raise InterpError(f"accelerator operation {op!r}: no accelerator model is installed "
                          "(aedsl.engines.accel_model.install())")
    return ACCEL_MODEL[0](op, args)


@_op("accel_start", (0, None), 1, "effect")
def _accel_start(widths, w, attrs):
    name = attrs["op"]
    if "words" not in attrs:
        return lambda *args: (name, args)
    # legalized (passes/legalize): each logical operand arrives as words, word 0 lowest
    counts, word_bits = tuple(attrs["words"]), attrs["word_bits"]

    def start(*words):
        out, i = [], 0
        for n in counts:
            out.append(sum(x << (word_bits * k) for k, x in enumerate(words[i:i + n])))
            i += n
        return name, tuple(out)
    return start


@_op("accel_result", 1, None, "effect")
def _accel_result(widths, w, attrs):
    # `w` is the first result's width; a legalized op has one result per word (word 0 lowest)
    # and the binder takes the list of result widths in attrs["result_widths"] (see bind_op).
    if "word_bits" not in attrs:
        return lambda token: (_accel(token),)
    word_bits = attrs["word_bits"]
    masks = tuple(mask(rw) for rw in attrs["result_widths"])

    def result(token):
        value = _accel(token)
        return tuple((value >> (word_bits * k)) & m for k, m in enumerate(masks))
    return result


# --- structure (no function: their regions and callees carry the meaning) -----------------------

OPS["call"] = OpSpec("call", (0, None), None, "effect", None)
OPS["for"] = OpSpec("for", (2, None), None, "control", None)
OPS["if"] = OpSpec("if", (1, 1), None, "control", None)


# --- entry points ---------------------------------------------------------------------------------

def bind(opcode: str, widths, result_widths, attrs: dict):
    """The function computing `opcode` with these operand widths, result widths and attrs."""
    spec = OPS.get(opcode)
    if spec is None or spec.bind is None:
        raise ValueError(f"no evaluation for op {opcode!r}")
    w = result_widths[0] if result_widths else 0
    if opcode == "accel_result":
        attrs = dict(attrs, result_widths=tuple(result_widths))
    return spec.bind(tuple(widths), w, attrs)


def bind_op(op):
    """`bind` for an IR op (aedsl.ir.nodes.Op); memory operands count as width 0."""
    return bind(op.opcode, [getattr(a, "width", 0) for a in op.args],
                [r.width for r in op.results], op.attrs)


def evaluate(opcode: str, args, widths, w: int, attrs: dict) -> list[int]:
    """The results of a pure op on constant operands (given their widths and the result width w)."""
    spec = OPS.get(opcode)
    if spec is None or not spec.pure:
        raise ValueError(f"cannot evaluate {opcode}")
    r = spec.bind(tuple(widths), w, attrs)(*args)
    return list(r) if spec.results != 1 else [r]
