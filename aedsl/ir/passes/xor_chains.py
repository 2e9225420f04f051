"""XOR trees rebuilt as left-deep chains, so no XOR is made only to be added to another.

IR shape matched: an `xor` whose operands are, recursively, `xor`s of the same block and width
read nowhere else (a *tree*), where some inner XOR is the right operand of its parent:
`r = s ^ (m ^ k)`, a round key made of a memory word and a carried word and added to a state
word. Such a tree is one XOR of its leaves; it is rebuilt as the chain `(s ^ m) ^ k` over the
same leaves in the same order. On a two-address target the chain is one accumulator that each
leaf is added into, read in place where it is a memory word or a spilled value (MSP430:
`xor @p, r; xor k, r`), where the tree made, held and added a third value (`m ^ k`). A tree
that is a left-deep chain already (every right operand a leaf) is left as it is, so the
order a spec wrote its sums in stands.

Before that, a wide XOR read only by word-aligned slices is split into the XORs of the slices:
`(m ^ k)[63:32]` becomes `m[63:32] ^ k[63:32]` (the round key of a 64-bit memory word and a
64-bit carried value read as two 32-bit words), so that each word is a tree of its own. Aligned
means on multiples of `word_bits` (the pass knob; 32 when unset, whole limbs on both targets).

The chain replaces the tree's root where it stands (every leaf is defined before the root);
the inner XORs are removed here. Knob `xor_chains`: `on` (default) or `off`.

Preserves: every function's results and memory effects (XOR is associative; a slice of an XOR
is the XOR of the slices; only pure XORs read nowhere else are removed).
Assumes: nothing beyond the IR's own rules.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Function, Module, Op, Value
from .common import Names, knob_int, left_chain, switched_on, tree_inner, tree_leaves, use_counts

NAME = "xor_chains"
KNOBS = (Knob("xor_chains", "pass", ("on", "off"), "on",
              doc="XOR trees as left-deep chains (no XOR made only to be added to another): on or off"),)


def acts(knobs: dict) -> bool:
    return switched_on(knobs, "xor_chains")


class _Chains:
    def __init__(self, fn: Function, align: int):
        self.fn = fn
        self.names = Names(fn)
        self.align = align

    def block(self, block: Block) -> None:
        for op in block.ops:
            for r in op.regions:
                self.block(r)
        while self.split_slices(block):
            pass
        self.chains(block)

    def split_slices(self, block: Block) -> bool:
        """slice(a ^ b) -> slice(a) ^ slice(b) where every use of a ^ b is an aligned slice in
        this block (the wide XOR then goes)."""
        readers: dict[int, list[Op]] = {}
        for op in block.ops:
            for a in op.args:
                readers.setdefault(id(a), []).append(op)
        uses = use_counts(self.fn)
        split: dict[int, Op] = {}
        out: list[Op] = []
        for op in block.ops:
            if op.opcode == "xor":
                r = op.results[0]
                users = readers.get(id(r), [])
                if users and uses.get(id(r), 0) == len(users) and all(
                        u.opcode == "slice" and u.attrs["lo"] % self.align == 0
                        and u.results[0].width % self.align == 0 for u in users):
                    split[id(r)] = op
                    continue
            if op.opcode == "slice" and id(op.args[0]) in split:
                x = split[id(op.args[0])]
                parts = []
                for a in x.args:
                    v = self.names.value(op.results[0].name, op.results[0].width)
                    out.append(Op("slice", [v], [a], dict(op.attrs), [], op.loc))
                    parts.append(v)
                out.append(Op("xor", list(op.results), parts, {}, [], x.loc))
                continue
            out.append(op)
        block.ops = out
        return bool(split)

    def chains(self, block: Block) -> None:
        defs = {id(r): op for op in block.ops for r in op.results}
        # inner nodes: xors read once, by an xor of the same width in this block
        inner = tree_inner(block, ("xor",), use_counts(self.fn), defs)
        out: list[Op] = []
        dead: set[int] = set()
        for op in block.ops:
            if op.opcode != "xor" or id(op) in inner:
                out.append(op)
                continue
            leaves: list[Value] = []
            nodes: list[Op] = []
            tree_leaves(op, defs, inner, leaves, nodes)
            if all(id(defs.get(id(n.args[1]))) not in inner for n in nodes):
                out.append(op)           # a left-deep chain already
                continue
            left_chain("xor", leaves, op.results[0], self.names, out, op.loc)
            dead.update(id(n) for n in nodes if n is not op)
        block.ops = [op for op in out if id(op) not in dead]


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    if not switched_on(knobs, "xor_chains"):
        return module
    align = knob_int(knobs, "word_bits", 32)
    for fn in module.functions:
        _Chains(fn, align).block(fn.body)
    return module
