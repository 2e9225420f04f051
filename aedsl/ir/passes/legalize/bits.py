"""Lowering of wide bit moves and bitwise ops: every result word is assembled from the source
words' bit ranges.

xor/and/or/not/select act per word. Shifts and rotates by constants, slice, concat, zext and
trunc place the source words at bit offsets and cut each result word out as a `concat` of
`slice`s (zero constants in the gaps): word moves stay plain moves, byte moves stay byte slices
(MSP430 `swpb`/`mov.b`), and a word rotated within itself becomes a `rotl`. perm: one wide
`perm` of the joined words, sliced back into words (its lowering is the selector's choice).
shl_var/shr_var: a barrel shifter (one select per amount bit) and a final select for amounts >=
the width.

Preserves: every result bit (each comes from the same source bit, or is zero, as in the wide op).
"""
from __future__ import annotations

from ...nodes import Value
from .layout import split_int, word_widths


class Bits:
    # -- bit assembly -------------------------------------------------------------------------
    def pieces(self, v: Value, shift: int = 0) -> list[tuple[Value, int]]:
        return [(w, i * self.W + shift) for i, w in enumerate(self.get(v))]

    def extract(self, pieces: list[tuple[Value, int]], lo: int, width: int, base: str) -> Value:
        """Bits lo .. lo+width-1 (width <= W) of the value made of `pieces`, zero elsewhere."""
        segs = []  # (dest_lo, value, src_lo, length)
        for v, pos in pieces:
            a, b = max(lo, pos), min(lo + width, pos + v.width)
            if a < b:
                segs.append((a - lo, v, a - pos, b - a))
        segs.sort(key=lambda s: s[0])
        if len(segs) == 2 and segs[0][1] is segs[1][1] and segs[0][1].width == width \
                and segs[0][2] + segs[0][3] == width and segs[1][2] == 0 \
                and segs[0][3] + segs[1][3] == width:
            return self.op("rotr", width, [segs[0][1]], {"by": segs[0][2]}, base)
        parts = []  # most significant first
        top = width
        for dest, v, src, length in reversed(segs):
            if dest + length < top:
                parts.append(self.const(0, top - dest - length))
            parts.append(v if src == 0 and length == v.width else
                         self.op("slice", length, [v], {"lo": src}, base))
            top = dest
        if top > 0:
            parts.append(self.const(0, top))
        return parts[0] if len(parts) == 1 else self.op("concat", width, parts, {}, base)

    def assemble(self, pieces, width: int, base: str) -> list[Value]:
        return [self.extract(pieces, i * self.W, w, base)
                for i, w in enumerate(word_widths(width, self.W))]

    # -- wide pure ops ----------------------------------------------------------------------
    def l_const(self, op, w, base):
        return [self.const(x, ww) for x, ww in zip(split_int(op.attrs["value"], w, self.W),
                                                   word_widths(w, self.W))]

    def _bitwise(self, op, w, base):
        cols = zip(*[self.get(a) for a in op.args])
        return [self.op(op.opcode, col[0].width, list(col), None, base) for col in cols]

    l_xor = l_and = l_or = l_not = _bitwise

    def l_select(self, op, w, base):
        c = self.get(op.args[0])[0]
        return [self.op("select", x.width, [c, x, y], None, base)
                for x, y in zip(self.get(op.args[1]), self.get(op.args[2]))]

    def l_shl(self, op, w, base):
        return self.assemble(self.pieces(op.args[0], op.attrs["by"]), w, base)

    def l_shr(self, op, w, base):
        return self.assemble(self.pieces(op.args[0], -op.attrs["by"]), w, base)

    def _rot(self, op, w, base):
        k = op.attrs["by"] % w
        if op.opcode == "rotr":
            k = (w - k) % w
        x = op.args[0]
        return self.assemble(self.pieces(x, k) + self.pieces(x, k - w), w, base)

    l_rotl = l_rotr = _rot

    def l_slice(self, op, w, base):
        return self.assemble(self.pieces(op.args[0], -op.attrs["lo"]), w, base)

    def l_zext(self, op, w, base):
        return self.assemble(self.pieces(op.args[0]), w, base)

    l_trunc = l_zext

    def l_concat(self, op, w, base):
        pieces = []
        pos = w
        for a in op.args:
            pos -= a.width
            pieces += self.pieces(a, pos)
        return self.assemble(pieces, w, base)

    def l_perm(self, op, w, base):
        """A permutation wider than one word stays one `perm` of the joined words, sliced back
        into words: the selector knows the target's instructions and chooses between the
        shift-and-mask groups and a carry chain (`codegen/select/shifts.py`, `op_perm`)."""
        W = self.W
        src = self.get(op.args[0])
        joined = self.op("concat", w, list(reversed(src)), None, base)
        moved = self.op("perm", w, [joined], {"table": op.attrs["table"]}, base)
        outs, lo = [], 0
        for ww in word_widths(w, W):
            outs.append(self.op("slice", ww, [moved], {"lo": lo}, base))
            lo += ww
        return outs

    def _shift_var(self, op, w, base):
        code = op.opcode
        x, amount = op.args
        amt = self.get(amount)
        if w <= self.W:
            # A narrow value shifted by a wide amount: only the low word matters unless the
            # others are non-zero (then the result is 0).
            hi = self.reduce("or", [self.op("ne", 1, [a, self.const(0, a.width)]) for a in amt[1:]])
            s = self.op(code, w, [self.get(x)[0], amt[0]], None, base)
            return [self.op("select", w, [hi, self.const(0, w), s], None, base)]
        words = self.get(x)
        b = 0
        while (1 << b) < w:
            a0 = amt[0]
            if b < a0.width:
                bit = self.op("slice", 1, [a0], {"lo": b})
                by = 1 << b
                moved = self.assemble([(v, p + by if code == "shl_var" else p - by)
                                       for v, p in self.pieces_of(words)], w, base)
                words = [self.op("select", y.width, [bit, y, z], None, base) for y, z in zip(moved, words)]
            b += 1
        # amount >= w -> 0
        limit = [self.const(v, ww) for v, ww in zip(split_int(w, amount.width, self.W),
                                                     word_widths(amount.width, self.W))] \
            if w < (1 << amount.width) else None
        if limit is None:
            return words
        big = self.add_words(amt, limit, sub=True)[1]   # amount < w
        return [self.op("select", y.width, [big, y, self.const(0, y.width)], None, base) for y in words]

    l_shl_var = l_shr_var = _shift_var

    def pieces_of(self, words: list[Value]) -> list[tuple[Value, int]]:
        return [(v, i * self.W) for i, v in enumerate(words)]
