"""Windows of wide values in a bitwise tree, a word multiple apart, made as one window.

IR shape matched: a tree of one bitwise opcode (`xor`, `and` or `or`; inner nodes read once, by
a node of the same opcode and width in the same block) with two or more *windows* of the same
kind, each read only there:
- a slice `x[a + w - 1 : a]` of a wider value whose bit a is no multiple of the target word
  (`word_bits`), the words it spans lying inside x; two such slices of the same width with the
  same a mod word are one kind (the sources may differ);
- after word legalization, the same window as a concat of slices of words,
  `cat(w1[k - 1 : 0], w0[15 : k])`; two concats are one kind when their parts have the same
  widths and are sliced at the same bits from sources of the same width.
A bit-level shift register XORs and ANDs many windows whose offsets differ by whole words
(Grain-128AEADv2 at 16 clocks a step: the LFSR feedback's s38 and s70, the products b3 b67,
b27 b59 and b68 b84, the output's b73 and b89). Each window costs a funnel shift (on MSP430 one
step per bit of distance); a group of k becomes the window of the operation of the words they
span, `(x[a' + 31 : a'] ^ y[b' + 31 : b'])[a + 15 - a' : a - a']` with a' = a rounded down to a
word, or `cat((w1 ^ v1)[k - 1 : 0], (w0 ^ v0)[15 : k])`: one funnel, and one operation a word
and member beyond the first. The tree is rebuilt as a left-deep chain of its remaining leaves,
the group's window where its first member stood; a tree without a group is left as it is.

A slice with another slice of the same value one to NEIGHBOUR_BITS bits away stays out of any
group: a target that shifts a bit at a time makes it from that neighbour in a few single-bit
steps (MSP430 `op_slice`), cheaper than any funnel.

Knob `concat_ops`: `on` (default) or `off`.

Preserves: the value of every tree's root (a bitwise operation acts on each bit alone, so it
commutes with slicing at the same bit and with concatenation on the same part boundaries, and
it is associative and commutative). The replaced windows become dead (the cleanup after the
pass removes them).
Assumes: nothing beyond the IR's own rules.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Function, Module, Op, Value
from .common import Names, knob_int, left_chain, switched_on, tree_inner, tree_leaves, use_counts

NAME = "concat_ops"
KNOBS = (Knob("concat_ops", "pass", ("on", "off"), "on",
              doc="windows a word multiple apart in one bitwise tree made as one window: on or off"),)
BITWISE = ("xor", "and", "or")
NEIGHBOUR_BITS = 3


def acts(knobs: dict) -> bool:
    return switched_on(knobs, "concat_ops")


class _Windows:
    def __init__(self, fn: Function, word: int):
        self.fn = fn
        self.names = Names(fn)
        self.word = word

    def block(self, block: Block) -> None:
        for op in block.ops:
            for r in op.regions:
                self.block(r)
        uses = use_counts(self.fn)
        defs = {id(r): op for op in block.ops for r in op.results}
        slices: dict[int, list[int]] = {}          # id(value) -> the bits it is sliced at
        for op in block.ops:
            if op.opcode == "slice":
                slices.setdefault(id(op.args[0]), []).append(op.attrs["lo"])
        inner = tree_inner(block, BITWISE, uses, defs)
        out: list[Op] = []
        dead: set[int] = set()
        for op in block.ops:
            if op.opcode not in BITWISE or id(op) in inner:
                out.append(op)
                continue
            leaves: list[Value] = []
            nodes: list[Op] = []
            tree_leaves(op, defs, inner, leaves, nodes)
            groups: dict[tuple, list[int]] = {}
            for i, v in enumerate(leaves):
                kind = self.kind(v, defs, uses, slices)
                if kind is not None:
                    groups.setdefault(kind, []).append(i)
            groups = {k: g for k, g in groups.items() if len(g) >= 2}
            if not groups:
                out.append(op)
                continue
            new: list[Value | None] = list(leaves)
            for kind, members in groups.items():
                new[members[0]] = self.merged(op, kind, [defs[id(leaves[i])] for i in members], defs, out)
                for i in members[1:]:
                    new[i] = None
            rest = [v for v in new if v is not None]
            if len(rest) == 1:
                out[-1].results = list(op.results)    # one group was the whole tree
            else:
                left_chain(op.opcode, rest, op.results[0], self.names, out, op.loc)
            dead.update(id(n) for n in nodes if n is not op)
        block.ops = [op for op in out if id(op) not in dead]

    def kind(self, v: Value, defs: dict, uses: dict, slices: dict) -> tuple | None:
        """The kind of window v is (see the module docstring), None if it is none."""
        d = defs.get(id(v))
        if d is None or uses.get(id(v), 0) != 1:
            return None
        if d.opcode == "slice":
            lo, src = d.attrs["lo"], d.args[0].width
            at = lo % self.word
            span = -(-(at + v.width) // self.word) * self.word
            if at == 0 or lo - at + span > src:
                return None
            if any(0 < abs(o - lo) <= NEIGHBOUR_BITS for o in slices.get(id(d.args[0]), ())):
                return None
            return ("slice", at, v.width, span)
        if d.opcode == "concat" and len(d.args) >= 2:
            parts = []
            for p in d.args:
                s = defs.get(id(p))
                if s is None or s.opcode != "slice":
                    return None
                parts.append((p.width, s.attrs["lo"], s.args[0].width))
            if all(lo == 0 and w == sw for w, lo, sw in parts):
                return None                        # whole words: no shift to share
            return ("concat", tuple(parts))
        return None

    def merged(self, root: Op, kind: tuple, members: list[Op], defs: dict, out: list[Op]) -> Value:
        """Append the ops of the group's one window; return it."""
        name = root.results[0].name
        if kind[0] == "slice":
            _, at, width, span = kind
            words = []
            for m in members:
                w = self.names.value(f"{name}.words", span)
                out.append(Op("slice", [w], [m.args[0]], {"lo": m.attrs["lo"] - at}, [], root.loc))
                words.append(w)
            win = self.names.value(f"{name}.window", width)
            out.append(Op("slice", [win], [self.fold(root, words, out)], {"lo": at}, [], root.loc))
            return win
        parts = []
        for k, (width, lo, _) in enumerate(kind[1]):
            words = [defs[id(m.args[k])].args[0] for m in members]
            p = self.names.value(f"{name}.part", width)
            out.append(Op("slice", [p], [self.fold(root, words, out)], {"lo": lo}, [], root.loc))
            parts.append(p)
        win = self.names.value(f"{name}.window", members[0].results[0].width)
        out.append(Op("concat", [win], parts, {}, [], root.loc))
        return win

    def fold(self, root: Op, values: list[Value], out: list[Op]) -> Value:
        """Append root's operation over `values` (two or more), left to right; its result."""
        r = self.names.value(f"{root.results[0].name}.words", values[0].width)
        left_chain(root.opcode, values, r, self.names, out, root.loc)
        return r


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    if not switched_on(knobs, "concat_ops"):
        return module
    word = knob_int(knobs, "word_bits", 32)
    for fn in module.functions:
        _Windows(fn, word).block(fn.body)
    return module
