"""A small loop whose byte-buffer blocks step by whole words is compiled twice: once for buffers
at word-aligned addresses, with no alignment test per block, and once as written.

The IR shape (general, not tied to a scheme): an innermost `for` loop whose body (its nested
`if` regions included) has block accesses `load_be/le @b, off` and `store_be/le @b, off, x`
without a count (or with a constant count that covers the block), on byte buffers (`bytes`
parameters), of a whole number of target words, at offsets `off = k * i + e`: i the loop
index, k a multiple of the word size in bytes (a constant multiple: `shl i`, `mul i, c`, sums
with such terms) and e loop-invariant (defined before the loop, or a constant). Then every
turn's address is aligned exactly when the address of byte e of b is, which one test before the
loop decides: `addr_low @b, e [bits]` (the address's low bits) equal to zero, for every
distinct (b, e) of the loop.

The loop becomes `if all aligned { copy } else { loop }`: the copy's qualifying accesses carry
the attribute `aligned` (the address is a multiple of the word and the whole block is accessed),
so the selectors emit their word path with no test and no byte fallback (ARMv6-M: the
`tst`/branch pairs around each block's LDR/STR + REV; MSP430: `bit #1` and its jump). The else
branch is the loop as it was. A message loop that calls its permutation (Ascon-128's,
Ascon-AEAD128's) pays its two tests once per message instead of once per block.

Measured on stm32f030 (seed 001's workload): Ascon-128 42 503 -> 42 198 cycles for 184 B more
(2 522 -> 2 706), Ascon-AEAD128 30 280 -> 30 024 for 192 B; Romulus-N's AD loop (41 word ops)
is left alone: one 16-byte block a message there, so the copy only costs its 222 B. MSP430's
test is a `bit #1` and a jump: its backend defaults to `off` (Ascon-128 on msp430f1611, AD = M =
1024: 908 857 -> 907 975 cycles for 386 B).

Knob `align_versioning`: `auto` (speed mode: loops of at most VERSION_MAX_OPS word operations,
an op on an n-word value counting n, so a loop with an inlined block cipher or wide 128-bit
arithmetic on a 16-bit target is not doubled; off in size mode), `on` (any loop), `off`. Knob
`word_align`: the alignment in bytes the target's word accesses need (ARMv6-M 4, MSP430 2; the
backends set it); the pass does nothing without it.

Preserves: every function's results and memory effects (both branches run the same loop; the
attribute only states a fact the branch condition established). The interpreter places every
byte buffer at an address that is a multiple of 16 (ops.py, `addr_low`), so it runs the copy.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Function, Memory, Module, Op, Value, walk_ops
from .common import Names, clone_op, const_defs, is_size_mode, knob_int

NAME = "align_versioning"
KNOBS = (Knob("align_versioning", "pass", ("auto", "on", "off"), "auto",
              doc="compile a small loop whose byte-buffer blocks step by whole words twice: for "
                  "aligned buffers with no test per block, and as written (auto: speed mode, "
                  "loops of at most 32 word operations)"),
         Knob("word_align", "pass", ("2", "4"), None,
              doc="the alignment in bytes of the target's word accesses (the backend sets it)"))
VERSION_MAX_OPS = 32        # `auto`: the largest body doubled (word operations, nested regions included)
BLOCK_OPS = ("load_be", "load_le", "store_be", "store_le")


def _mode(knobs: dict) -> str:
    mode = str((knobs or {}).get("align_versioning", "auto"))
    if mode not in ("auto", "on", "off"):
        raise ValueError(f"knob align_versioning={mode!r}: expected auto, on or off")
    return mode


def acts(knobs: dict) -> bool:
    mode = _mode(knobs)
    if knob_int(knobs, "word_align") is None or mode == "off":
        return False
    return mode == "on" or not is_size_mode(knobs)


class _Versioner:
    def __init__(self, fn: Function, wb: int, limit: int | None):
        self.wb, self.limit = wb, limit
        self.names = Names(fn)
        self.consts = const_defs(fn)

    def block(self, block: Block) -> None:
        out: list[Op] = []
        for op in block.ops:
            if op.opcode == "for" and not any(o.opcode == "for" for o in walk_ops(op.regions[0])):
                found = self.tests(op)
                if found:
                    out.extend(self.version(op, *found))
                    continue
            for r in op.regions:
                self.block(r)
            out.append(op)
        block.ops = out

    # --- which loops, which accesses -------------------------------------------------------------

    def qualifying(self, op: Op) -> bool:
        """A block access of whole words on a byte buffer parameter, with no count or a constant
        one that covers the block."""
        if op.opcode not in BLOCK_OPS or op.attrs.get("aligned"):
            return False
        m = op.args[0]
        n_args = 2 if op.opcode.startswith("load") else 3
        nbytes = op.attrs["bytes"]
        if len(op.args) > n_args and self.consts.get(id(op.args[n_args]), -1) < nbytes:
            return False
        return (isinstance(m, Memory) and m.kind == "param" and m.length is None
                and nbytes % self.wb == 0)

    def tests(self, loop: Op):
        """(the (buffer, e, offset width) to test, the positions in `walk_ops` order of the accesses
        they cover), or None when the loop has no such access."""
        body = loop.regions[0]
        if self.limit is not None and self.word_ops(body) > self.limit:
            return None
        index = body.params[0]
        defs = {id(r): o for o in walk_ops(body) for r in o.results}
        defs.update((id(p), None) for p in body.params[1:])     # carried: not invariant
        tests: list[tuple[Memory, object, int]] = []
        covered: set[int] = set()
        for pos, o in enumerate(walk_ops(body)):
            if not self.qualifying(o):
                continue
            form = self.linear(o.args[1], index, defs)
            if form is None or form[0] % self.wb:
                continue
            e = form[1] if isinstance(form[1], Value) else form[1] % self.wb
            key = (o.args[0], e, o.args[1].width)
            if not any(t[0] is key[0] and self.same(t[1], key[1]) for t in tests):
                tests.append(key)
            covered.add(pos)
        return (tests, covered) if tests else None

    def word_ops(self, body: Block) -> int:
        """The size of a copy of `body`, in target words operated on: an op on a value of n
        words counts n (a u128 XOR is 8 MSP430 instructions), a call 1."""
        bits = 8 * self.wb
        return sum(max([1] + [-(-r.width // bits) for r in o.results]) for o in walk_ops(body))

    @staticmethod
    def same(a, b) -> bool:
        return a is b if isinstance(a, Value) or isinstance(b, Value) else a == b

    def linear(self, v, index: Value, defs: dict):
        """(k, e) with v = k * index + e for every turn, e a loop-invariant Value or an int; None
        when v has no such form (or e would be a sum of two values)."""
        if v is index:
            return 1, 0
        if id(v) in self.consts:
            return 0, self.consts[id(v)]
        if id(v) not in defs:
            return 0, v                     # defined before the loop
        d = defs[id(v)]
        if d is None:
            return None                     # a value the loop carries
        if d.opcode in ("shl", "mul"):
            x = self.linear(d.args[0], index, defs)
            if d.opcode == "shl":
                f = 1 << d.attrs["by"]
            else:
                f = self.consts.get(id(d.args[1]))
            if x is None or f is None or x[1] != 0:
                return None                 # keep e unscaled: the test reads it as it is
            return x[0] * f, 0
        if d.opcode == "add":
            x, y = (self.linear(a, index, defs) for a in d.args)
            if x is None or y is None:
                return None
            values = [e for e in (x[1], y[1]) if isinstance(e, Value)]
            ints = [e for e in (x[1], y[1]) if not isinstance(e, Value)]
            if len(values) > 1 or values and any(ints):
                return None                 # e would be a sum: one value alone, or an int
            return x[0] + y[0], values[0] if values else sum(ints)
        return None

    # --- the rewrite ----------------------------------------------------------------------------

    def version(self, loop: Op, tests, covered: set[int]) -> list[Op]:
        pre: list[Op] = []
        bits = (self.wb - 1).bit_length()
        low = None
        for mem, e, width in tests:
            if not isinstance(e, Value):
                c = self.names.value("e", width)
                pre.append(Op("const", [c], [], {"value": e % (1 << width)}, [], loop.loc))
                e = c
            al = self.names.value("al", bits)
            pre.append(Op("addr_low", [al], [mem, e], {"bits": bits}, [], loop.loc))
            if low is not None:             # one test of the OR of the addresses' low bits
                both = self.names.value("al", bits)
                pre.append(Op("or", [both], [low, al], {}, [], loop.loc))
                al = both
            low = al
        zero = self.names.value("z", bits)
        pre.append(Op("const", [zero], [], {"value": 0}, [], loop.loc))
        cond = self.names.value("aligned", 1)
        pre.append(Op("eq", [cond], [low, zero], {}, [], loop.loc))
        copy = clone_op(loop, {}, self.names)
        for pos, o in enumerate(walk_ops(copy.regions[0])):
            if pos in covered:
                o.attrs["aligned"] = 1
        plain_results = [self.names.value(r.name, r.width) for r in loop.results]
        plain = Op("for", plain_results, list(loop.args), dict(loop.attrs), loop.regions, loop.loc)
        fast = Block([], [copy], list(copy.results))
        slow = Block([], [plain], list(plain_results))
        pre.append(Op("if", list(loop.results), [cond], {}, [fast, slow], loop.loc))
        return pre


def run(module: Module, knobs: dict) -> Module:
    if not acts(knobs):
        return module
    module = module.clone()
    wb = knob_int(knobs, "word_align")
    limit = None if _mode(knobs) == "on" else VERSION_MAX_OPS
    for fn in module.functions:
        _Versioner(fn, wb, limit).block(fn.body)
    return module
