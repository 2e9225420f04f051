"""Lowering of wide multiplication to partial products.

Schoolbook over W x W -> 2W partial products (`mul` for the low half, `umulh` for the high
half, see nodes.py), words narrower than W zero-extended first; each product is added into the
accumulator at its word position with a carry chain, and products at or above the result's top
word are not formed.

Preserves: the product mod 2^width.
"""
from __future__ import annotations

from .layout import word_widths


class Products:
    def l_mul(self, op, w, base):
        W = self.W
        widths = word_widths(w, W)
        n = len(widths)
        aw = [x if x.width == W else self.op("zext", W, [x]) for x in self.get(op.args[0])]
        bw = [x if x.width == W else self.op("zext", W, [x]) for x in self.get(op.args[1])]
        acc = [self.const(0, W) for _ in range(n)]
        for i in range(n):
            for j in range(n - i):
                lo = self.op("mul", W, [aw[i], bw[j]], None, "pp")
                parts = [(i + j, lo)]
                if i + j + 1 < n:
                    parts.append((i + j + 1, self.op("umulh", W, [aw[i], bw[j]], None, "pp")))
                for k, t in parts:
                    row = [t] + [self.const(0, W) for _ in range(n - k - 1)]
                    acc = acc[:k] + self.add_words(acc[k:], row, base="acc")[0]
        return [x if x.width == ww else self.op("slice", ww, [x], {"lo": 0}, base)
                for x, ww in zip(acc, widths)]
