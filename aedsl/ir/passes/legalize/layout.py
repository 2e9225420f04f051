"""Word layout of legalized values and memories, and the conversion of calls across it.

A value of width w becomes `word_widths(w, W)` words, little-endian (word 0 = bits 0..W-1, a
last narrower word when W does not divide w); a memory with elements wider than W becomes an
array of W-bit words, element i at words n*i .. n*i+n-1. `Interface` converts the arguments,
results and memory contents of a call of an original function to those of its legalized form
(for tests and engines).

Preserves: the value of every scalar and memory element (split_int and join_ints are inverses
on values of the given width).
"""
from __future__ import annotations

from ...nodes import Memory, Module
from ...ops import mask


def word_widths(width: int, W: int) -> list[int]:
    if width <= W:
        return [width]
    n = -(-width // W)
    return [W] * (n - 1) + [width - W * (n - 1)]


def split_int(x: int, width: int, W: int) -> list[int]:
    return [(x >> (W * i)) & mask(w) for i, w in enumerate(word_widths(width, W))]


def join_ints(words: list[int], W: int) -> int:
    return sum(x << (W * i) for i, x in enumerate(words))


class Interface:
    """Converts calls of the original functions to calls of the legalized ones (for tests and
    engines): scalars split into words, wide memory elements into n words each."""

    def __init__(self, original: Module, W: int):
        self.module = original
        self.W = W

    def _elem_words(self, m: Memory) -> int:
        return len(word_widths(m.elem_width, self.W))

    def split_args(self, fn: str, args: list) -> list:
        out = []
        for p, a in zip(self.module.function(fn).params, args):
            if isinstance(p, Memory):
                n = self._elem_words(p)
                out.append([w for x in a for w in split_int(x, p.elem_width, self.W)] if n > 1 else list(a))
            else:
                out.extend(split_int(a, p.width, self.W))
        return out

    def join_args(self, fn: str, args: list) -> list:
        """The memories of a legalized call, converted back (scalars are dropped as None)."""
        out = []
        i = 0
        for p in self.module.function(fn).params:
            if isinstance(p, Memory):
                n = self._elem_words(p)
                a = args[i]
                out.append([join_ints(a[k:k + n], self.W) for k in range(0, len(a), n)] if n > 1 else a)
                i += 1
            else:
                n = len(word_widths(p.width, self.W))
                out.append(join_ints(args[i:i + n], self.W))
                i += n
        return out

    def join_results(self, fn: str, results) -> tuple:
        out = []
        i = 0
        for w in self.module.function(fn).result_widths:
            n = len(word_widths(w, self.W))
            out.append(join_ints(list(results[i:i + n]), self.W))
            i += n
        return tuple(out)


def legal_memory(m: Memory, W: int) -> Memory:
    """The word form of memory `m` (itself if its elements fit in a word)."""
    n = len(word_widths(m.elem_width, W))
    if n == 1:
        return m
    data = None if m.data is None else tuple(x for v in m.data for x in split_int(v, m.elem_width, W))
    return Memory(m.name, W, None if m.length is None else m.length * n, m.kind, data)

