"""Lowering of the ops that carry values across a boundary: calls, loops, conditionals and
the accelerator.

Calls pass and return every wide scalar as its words (word 0 first), in operand order. A loop's
carried values and an `if`'s results become their words; a loop index wider than W keeps only
its low word (its high words are zero constants defined before the loop). accel_start/
accel_result keep their logical operands: the word operands carry the attr `words` (word count
per logical operand) and `word_bits`, and the result is split into words.

Preserves: the values crossing each boundary (as their words) and the order of effects.
"""
from __future__ import annotations

from ...nodes import Block, Op, Value
from .layout import word_widths


class Control:
    def l_call(self, op):
        results = [self.names.value(r.name, ww) for r in op.results for ww in word_widths(r.width, self.W)]
        self.out.append(Op("call", results, self.scalar_args(op.args), dict(op.attrs), [], op.loc))
        i = 0
        for r in op.results:
            n = len(word_widths(r.width, self.W))
            self.bind(r, results[i:i + n])
            i += n

    def l_accel_start(self, op):
        args = self.scalar_args(op.args)
        attrs = dict(op.attrs)
        attrs["words"] = tuple(len(self.get(a)) for a in op.args)
        attrs["word_bits"] = self.W
        tok = self.op("accel_start", 0, args, attrs, op.results[0].name)
        self.bind(op.results[0], [tok])

    def l_accel_result(self, op):
        r = op.results[0]
        widths = word_widths(r.width, self.W)
        attrs = dict(op.attrs)
        attrs["word_bits"] = self.W
        res = self.op("accel_result", widths, [self.get(op.args[0])[0]], attrs, r.name)
        self.bind(r, res)

    def _group(self, values: list[Value], flat: list[Value]) -> None:
        i = 0
        for v in values:
            n = len(word_widths(v.width, self.W))
            self.bind(v, flat[i:i + n])
            i += n

    def l_for(self, op):
        lo, hi, *inits = op.args
        body = op.regions[0]
        index = body.params[0]
        new_index = index if index.width <= self.W else self.names.value(index.name, self.W)
        idx_words = [new_index] + [self.const(0, ww) for ww in word_widths(index.width, self.W)[1:]]
        # The index's high words are constants defined before the loop (outside the region).
        self.bind(index, idx_words)
        saved = self.out
        self.out = []
        params = []
        for p in body.params[1:]:
            ws = [self.names.value(p.name, ww) for ww in word_widths(p.width, self.W)] \
                if p.width > self.W else [p]
            self.bind(p, ws)
            params.extend(ws)
        for inner in body.ops:
            self.lower(inner)
        yields = [x for y in body.yields for x in self.get(y)]
        new_body = Block([new_index] + params, self.out, yields)
        self.out = saved
        results = [self.names.value(r.name, ww) for r in op.results for ww in word_widths(r.width, self.W)]
        self.out.append(Op("for", results, [self.low(lo), self.low(hi)] + self.scalar_args(inits),
                           dict(op.attrs), [new_body], op.loc))
        self._group(op.results, results)

    def l_if(self, op):
        regions = [self.block(r) for r in op.regions]
        results = [self.names.value(r.name, ww) for r in op.results for ww in word_widths(r.width, self.W)]
        self.out.append(Op("if", results, [self.get(op.args[0])[0]], dict(op.attrs), regions, op.loc))
        self._group(op.results, results)

