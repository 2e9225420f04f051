"""Lowering of memory accesses and lengths to word accesses.

Memories with elements wider than W are arrays of W-bit words (layout.legal_memory): a wide
load/store is n word accesses at element index * n + j. load_be/le and store_be/le of at most
W/8 bytes stay one access; of more than W/8 bytes, a whole number of words: one access of the
block, whose value is, with a wide `perm` (bits.py), the only kind wider than W left (a load's
result read only by `slice`s to words, a store's operand a `concat` of words), so backends keep
their block path; other sizes: one access per word, with a partial `count` distributed over the
words. `len` is one word.
Indices, offsets and counts use only their low word (the targets' RAM is far below 2^W bytes).

Preserves: every byte read and written, at the same offsets and in the same order, and the
faults of accesses beyond a buffer (a word whose part of the count is zero keeps the original
offset, which is in the buffer).
"""
from __future__ import annotations

from ...nodes import Memory, Op, Value
from .layout import word_widths


class MemoryAccess:
    def elem_index(self, m: Memory, index: Value, j: int, n: int) -> Value:
        idx = self.low(index)
        if n > 1:
            # Scale in a full word: a narrow index (a nibble picking one of 16 table lines) times
            # the words per element would wrap in its own width.
            if idx.width < self.W:
                idx = self.op("zext", self.W, [idx], None, "ix")
            idx = self.op("mul", idx.width, [idx, self.const(n, idx.width)], None, "ix")
            if j:
                idx = self.op("add", idx.width, [idx, self.const(j, idx.width)], None, "ix")
        return idx

    def l_load(self, op):
        m = op.args[0]
        r = op.results[0]
        ws = word_widths(m.elem_width, self.W)
        if len(ws) == 1:
            res = self.op("load", r.width, [self.mem(m), self.low(op.args[1])], None, r.name)
            self.bind(r, [res])
            return
        words = []
        for j, ww in enumerate(ws):
            x = self.op("load", self.W, [self.mem(m), self.elem_index(m, op.args[1], j, len(ws))], None, r.name)
            words.append(x if ww == self.W else self.op("slice", ww, [x], {"lo": 0}, r.name))
        self.bind(r, words)

    def l_store(self, op):
        m, index, value = op.args
        ws = word_widths(m.elem_width, self.W)
        if len(ws) == 1:
            self.out.append(Op("store", [], [self.mem(m), self.low(index), self.get(value)[0]], {}, [], op.loc))
            return
        for j, x in enumerate(self.get(value)):
            if x.width < self.W:
                x = self.op("zext", self.W, [x])
            self.out.append(Op("store", [], [self.mem(m), self.elem_index(m, index, j, len(ws)), x], {},
                               [], op.loc))

    def _byte_chunks(self, nbytes: int, big_endian: bool):
        """(word index, first byte offset, byte count) per word of an n-byte access."""
        per = self.W // 8
        chunks = []
        for i, ww in enumerate(word_widths(8 * nbytes, self.W)):
            length = ww // 8
            start = nbytes - i * per - length if big_endian else i * per
            chunks.append((i, start, length))
        return chunks

    def _chunk_access(self, off: Value, count: Value | None, start: int):
        """Offset and count of one word's part of a byte access (see the count rules)."""
        if start == 0:
            return off, count
        o = self.op("add", off.width, [off, self.const(start, off.width)], None, "off")
        if count is None:
            return o, None
        s = self.const(start, count.width)
        before = self.op("ule", 1, [count, s])             # nothing of this word is read
        c = self.op("select", count.width, [before, self.const(0, count.width),
                                            self.op("sub", count.width, [count, s])], None, "cnt")
        # With nothing to read keep the original offset (which is in the buffer).
        o = self.op("select", off.width, [before, off, o], None, "off")
        return o, c

    def _byte_access(self, op, load: bool):
        be = op.opcode.endswith("_be")
        nbytes = op.attrs["bytes"]
        m = self.mem(op.args[0])
        off = self.low(op.args[1])
        count_arg = op.args[2 if load else 3] if len(op.args) > (2 if load else 3) else None
        count = self.low(count_arg) if count_arg is not None else None
        if 8 * nbytes <= self.W:
            args = [m, off] + ([] if load else [self.get(op.args[2])[0]]) + ([count] if count is not None else [])
            if load:
                r = op.results[0]
                self.bind(r, [self.op(op.opcode, r.width, args, dict(op.attrs), r.name)])
            else:
                self.out.append(Op(op.opcode, [], args, dict(op.attrs), [], op.loc))
            return
        if (8 * nbytes) % self.W == 0:
            # One access of the whole block: its value is the only kind wider than W that
            # legalization leaves (a load's result read only by `slice`s to words, a store's
            # operand a `concat` of words), so a backend reads or writes the block as words
            # after one alignment and count test instead of word by word with the count
            # distributed (MSP430: ~330 -> ~40 cycles for a 16-byte partial store).
            tail = [count] if count is not None else []
            ws = word_widths(8 * nbytes, self.W)
            if load:
                r = op.results[0]
                wide = self.op(op.opcode, 8 * nbytes, [m, off] + tail, dict(op.attrs), r.name)
                lo, words = 0, []
                for ww in ws:
                    words.append(self.op("slice", ww, [wide], {"lo": lo}, r.name))
                    lo += ww
                self.bind(r, words)
            else:
                values = self.get(op.args[2])
                wide = self.op("concat", 8 * nbytes, list(reversed(values)), None, "blk")
                self.out.append(Op(op.opcode, [], [m, off, wide] + tail, dict(op.attrs), [], op.loc))
            return
        words = []
        values = None if load else self.get(op.args[2])
        for i, start, length in self._byte_chunks(nbytes, be):
            o, c = self._chunk_access(off, count, start)
            tail = [c] if c is not None else []
            if load:
                words.append(self.op(op.opcode, 8 * length, [m, o] + tail, {"bytes": length},
                                     op.results[0].name))
            else:
                self.out.append(Op(op.opcode, [], [m, o, values[i]] + tail, {"bytes": length}, [], op.loc))
        if load:
            self.bind(op.results[0], words)

    def l_load_be(self, op):
        self._byte_access(op, True)

    l_load_le = l_load_be

    def l_store_be(self, op):
        self._byte_access(op, False)

    l_store_le = l_store_be

    def l_len(self, op):
        r = op.results[0]
        ws = word_widths(r.width, self.W)
        first = self.op("len", ws[0], [self.mem(op.args[0])], None, r.name)
        self.bind(r, [first] + [self.const(0, ww) for ww in ws[1:]])
