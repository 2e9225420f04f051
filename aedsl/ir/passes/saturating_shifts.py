"""A wide shift by a public run-time amount that can reach the width is guarded: where the amount
is at least the width the shift gives 0, and the ops it feeds are computed from that 0, which
folds them away.

IR shape matched, in one block: `r = shl_var(x, k)` or `shr_var(x, k)` wider than WIDE_SHIFT_BITS (a
multi-word shift: a loop or a long run of word shifts), `k` public (ir/secrecy.py), computed
from a buffer's length (a byte count: a shift by a loop index or a parameter walks bits and
never saturates) and able to reach the width (`bounds.value_bound`), then the chain of pure
single-result ops that each read the previous one as its only use, up to a root whose result
may have any uses. The chain becomes `root = if k < W { the chain } else { the chain with
r = 0 }`, at the root's place; legalize's constfold and cse_dce then fold the else arm (this
pass has no clean-up steps of its own). Typical source: a first-bytes mask on a whole block,
`x & ~(~0 << 8 * count)` with `count` equal to the block size (NORX32-4-1's decryption: every
whole block built the 384-bit mask to AND with all ones). Only a shift inside a loop is guarded
(once per block the guard pays; once per message it is code for nothing, as around a nonce's
length). A shift that an enclosing `if` bounds below the width (`if n < rate` around
`1 << 8 * n`, what frontend/lazy_if.py branches over: the condition's bound is fed to
`value_bound`) is left alone, and so is a shift by a secret amount, which stays constant time as
it is.

Knob `saturating_shifts`: `on` (default) or `off`.

Preserves: every function's results and memory effects (a shift by at least the width is 0; the
chain's ops are pure and move only to the root's place, after every operand they read).
Assumes: nothing beyond the IR's own rules.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..bounds import value_bound
from ..nodes import Block, Function, Module, Op, Value, walk_ops
from ..secrecy import Secrecy
from .common import Names, clone_op, is_pure, is_wide_shift, switched_on, use_counts

NAME = "saturating_shifts"
KNOBS = (Knob("saturating_shifts", "pass", ("on", "off"), "on",
              doc="a wide shift by a public amount guarded by `amount < width`, its else arm folded: on or off"),)

def acts(knobs: dict) -> bool:
    return switched_on(knobs, "saturating_shifts")


class _Guard:
    def __init__(self, fn: Function, secrecy: Secrecy):
        self.fn, self.secrecy = fn, secrecy
        self.names = Names(fn)
        self.uses = use_counts(fn)
        self.defs = {r: op for op in walk_ops(fn.body) for r in op.results}

    def block(self, block: Block, held: list, in_loop: bool = False) -> None:
        """`held`: (condition, whether it holds) of each enclosing `if` arm; `in_loop`: inside
        a `for` (only a shift that runs once per block pays for its guard)."""
        for op in block.ops:
            if op.opcode == "if":
                for arm, truth in zip(op.regions, (True, False)):
                    self.block(arm, held + [(op.args[0], truth)], in_loop)
            else:
                for region in op.regions:
                    self.block(region, held, in_loop or op.opcode == "for")
        if not in_loop:
            return
        users: dict[int, list[Op]] = {}
        for op in block.ops:
            for a in op.args:
                users.setdefault(id(a), []).append(op)
        out: list[Op] = []
        chains: dict[int, list[Op]] = {}         # id(root op) -> its chain, the shift first
        inside: set[int] = set()
        for op in block.ops:
            if self._candidate(op, held):
                chain = [op]
                while True:
                    r = chain[-1].results[0]
                    nxt = users.get(id(r), [])
                    if (self.uses.get(id(r), 0) != 1 or len(nxt) != 1 or not is_pure(nxt[0])
                            or len(nxt[0].results) != 1 or nxt[0].regions or id(nxt[0]) in inside):
                        break
                    chain.append(nxt[0])
                if len(chain) > 1:
                    chains[id(chain[-1])] = chain
                    inside.update(id(o) for o in chain)
        for op in block.ops:
            if id(op) in chains:
                out.extend(self._guard(chains[id(op)]))
            elif id(op) not in inside:
                out.append(op)
        block.ops = out

    def _candidate(self, op: Op, held: list) -> bool:
        if not is_wide_shift(op):
            return False
        k, w = op.args[1], op.results[0].width
        if not isinstance(k, Value) or not self.secrecy.is_public(self.fn.name, k):
            return False
        if not self._from_length(k):
            return False                         # not a byte count
        known = self._known(held)
        return value_bound(k, self._defs_under(known), known=known) >= w

    def _known(self, held: list) -> dict:
        """Upper bounds the enclosing conditions give: `a < c` held bounds a by c - 1, `a <= c`
        by c (c a constant)."""
        known: dict = {}
        for cond, truth in held:
            d = self.defs.get(cond)
            if not truth or d is None or d.opcode not in ("ult", "ule") or not isinstance(d.args[1], Value):
                continue
            c = self.defs.get(d.args[1])
            if c is not None and c.opcode == "const":
                top = c.attrs["value"] - (d.opcode == "ult")
                a = d.args[0]
                known[a] = min(known.get(a, top), top)
        return known

    def _defs_under(self, known: dict) -> dict:
        """The definitions, less those of the values an enclosing condition bounds (`known`, so
        that `bounds.value_bound` takes the condition's bound for them)."""
        return {v: op for v, op in self.defs.items() if v not in known} if known else self.defs

    def _from_length(self, v, depth: int = 8) -> bool:
        """`v` is computed from a buffer's length (`len`): a count of bytes, which reaches a
        whole block. A shift by a loop index or a parameter walks bits and is left alone."""
        d = self.defs.get(v)
        if d is None or depth == 0:
            return False
        return d.opcode == "len" or any(isinstance(a, Value) and self._from_length(a, depth - 1) for a in d.args)

    def _guard(self, chain: list[Op]) -> list[Op]:
        shift, root = chain[0], chain[-1]
        k, w = shift.args[1], shift.results[0].width
        wc = self.names.value("w", k.width)
        lt = self.names.value("in_range", 1)
        head = [Op("const", [wc], [], {"value": w}, [], shift.loc), Op("ult", [lt], [k, wc], {}, [], shift.loc)]
        result = root.results[0]
        inner = self.names.value(result.name, result.width)
        then_ops = chain[:-1] + [Op(root.opcode, [inner], list(root.args), dict(root.attrs), [], root.loc)]
        zero = self.names.value("zero", w)
        vmap: dict[int, object] = {id(shift.results[0]): zero}
        else_ops = [Op("const", [zero], [], {"value": 0}, [], shift.loc)]
        else_ops += [clone_op(o, vmap, self.names) for o in chain[1:]]
        return head + [Op("if", [result], [lt], {}, [Block([], then_ops, [inner]),
                                                         Block([], else_ops, [vmap[id(root.results[0])]])],
                          root.loc)]


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    run_in_place(module, knobs)
    return module


def run_in_place(module: Module, knobs: dict | None = None) -> None:
    """The pass on a module the caller owns. The else arms it builds fold in the next constfold
    and cse_dce (legalize's clean-up)."""
    if not acts(knobs or {}):
        return
    secrecy = None
    for fn in module.functions:
        if not any(is_wide_shift(op) for op in walk_ops(fn.body)):
            continue
        if secrecy is None:
            secrecy = Secrecy(module)
        _Guard(fn, secrecy).block(fn.body, [])

