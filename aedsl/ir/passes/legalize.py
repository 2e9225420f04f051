"""Word legalization: split every value wider than the target word W into W-bit words.

Knob `word_bits` (the target's word: 16 for MSP430, 32 for ARMv6-M). Without it the pass does
nothing. Words are little-endian: word 0 holds bits 0..W-1; a width that is not a multiple of W
ends with a narrower word (u48 at W=32 = u32 + u16).

- xor/and/or/not/select: per word. add/sub: a carry chain of `addc`/`subb` (ops with a second
  u1 result, the carry/borrow; see nodes.py). neg = 0 - x. ult/ule/ugt/uge: the borrow of a
  subtraction chain; eq/ne: per word, combined with and/or.
- shifts/rotates by constants, slice, concat, zext, trunc: each result word is assembled from
  the source words' bit ranges as a `concat` of `slice`s (zero constants in the gaps), so word
  moves stay plain moves, byte moves stay byte slices (MSP430 `swpb`/`mov.b`), and a word rotated
  within itself becomes `rotl`. shl_var/shr_var of a wide value: a barrel shifter (one select
  per amount bit) and a final select for amounts >= the width.
- mul of a wide value: schoolbook over W x W -> 2W partial products (`mul` low half, `umulh` high
  half, see nodes.py), accumulated with carry chains, mod 2^width.
- perm of a wide value: per (source word, destination word, shift) group one shift and a mask.
- memories whose elements are wider than W (round keys, wide tables) become arrays of W-bit
  words, element i at words n*i .. n*i+n-1 (little-endian). Wide load/store: n word accesses.
  load_be/le and store_be/le of more than W/8 bytes, a whole number of words: one access of
  the block, whose value is the only kind wider than W left (a load's result read only by
  `slice`s to words, a store's operand a `concat` of words), so backends keep their block
  path; other sizes: one access per word, with the partial `count` distributed over the words.
- scalar parameters and results wider than W become several (word 0 first); `Interface` converts
  arguments, results and memory contents between the original and the legalized function.
- accel_start/accel_result keep their logical operands: their word operands carry the attr
  `words` (word count per logical operand) and `word_bits`, and the result is split into words.

Assumes (documented limits of the targets, whose RAM is far below 2^W bytes): indices, byte
offsets, byte counts and loop bounds fit in one word, so only their low word is used; `len`
results are produced as one word. udiv/umod of values wider than W are not supported (constfold
turns divisions by powers of two into shifts first) and raise LegalizeError.
Ends with constfold and cse_dce (word assembly leaves trivial slices and repeated constants).
Preserves: each function's behaviour under the word-splitting `Interface`.
"""
from __future__ import annotations

from ..nodes import Block, Function, Memory, Module, Op, Value
from ..ops import mask
from .common import Names, knob_int

NAME = "legalize"


class LegalizeError(Exception):
    pass


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


class _Legalizer:
    def __init__(self, module: Module, fn: Function, W: int, memories: dict[int, Memory]):
        self.module = module
        self.fn = fn
        self.W = W
        self.names = Names(fn)
        self.words: dict[int, list[Value]] = {}   # id(original value) -> its words
        self.memories = memories                  # id(original memory) -> legalized memory
        self.out: list[Op] = []
        self.keep: list = []                      # keep originals alive (ids are dict keys)

    # -- emitting ---------------------------------------------------------------------------
    def op(self, opcode: str, width, args: list, attrs: dict | None = None, base: str = "w"):
        """Emit an op; `width` int -> one result, list -> several. Returns the result(s)."""
        widths = width if isinstance(width, list) else [width]
        results = [self.names.value(base, w) for w in widths]
        self.out.append(Op(opcode, results, list(args), attrs or {}))
        return results if isinstance(width, list) else results[0]

    def const(self, value: int, width: int) -> Value:
        return self.op("const", width, [], {"value": value & mask(width)}, "c")

    def get(self, v: Value) -> list[Value]:
        return self.words[id(v)]

    def mem(self, m: Memory) -> Memory:
        return self.memories.get(id(m), m)

    def bind(self, v: Value, words: list[Value]) -> None:
        self.keep.append(v)
        self.words[id(v)] = words

    def low(self, v: Value) -> Value:
        """The low word of an index-like value (see the module's assumptions)."""
        return self.get(v)[0]

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

    # -- arithmetic helpers (on word lists) -------------------------------------------------
    def add_words(self, a: list[Value], b: list[Value], sub: bool = False, base: str = "w"):
        """Word lists of equal widths -> (sum words, final carry/borrow)."""
        carry = self.const(0, 1)
        out = []
        for x, y in zip(a, b):
            s, carry = self.op("subb" if sub else "addc", [x.width, 1], [x, y, carry], None, base)
            out.append(s)
        return out, carry

    def reduce(self, opcode: str, vals: list[Value]) -> Value:
        acc = vals[0]
        for v in vals[1:]:
            acc = self.op(opcode, acc.width, [acc, v])
        return acc

    # -- the walk -----------------------------------------------------------------------------
    def run(self) -> None:
        params = []
        for p in self.fn.params:
            if isinstance(p, Memory):
                params.append(self.mem(p))
            else:
                ws = [self.names.value(p.name, w) for w in word_widths(p.width, self.W)] \
                    if p.width > self.W else [p]
                self.bind(p, ws)
                params.extend(ws)
        self.fn.params = params
        self.fn.locals = [self.mem(m) for m in self.fn.locals]
        self.fn.body = self.block(self.fn.body, bind_params=False)
        self.fn.result_widths = [w for r in self.fn.result_widths for w in word_widths(r, self.W)]

    def block(self, block: Block, bind_params: bool = True) -> Block:
        saved = self.out
        self.out = []
        params = []
        if bind_params:
            for p in block.params:
                ws = [self.names.value(p.name, w) for w in word_widths(p.width, self.W)] \
                    if p.width > self.W else [p]
                self.bind(p, ws)
                params.extend(ws)
        for op in block.ops:
            self.lower(op)
        yields = [w for y in block.yields for w in self.get(y)]
        new = Block(params, self.out, yields)
        self.out = saved
        return new

    def lower(self, op: Op) -> None:
        code = op.opcode
        W = self.W
        r = op.results[0] if op.results else None
        w = r.width if r is not None else 0
        base = r.name if r is not None else "w"
        wide = w > W or any(isinstance(a, Value) and a.width > W for a in op.args)
        handler = getattr(self, "l_" + code, None)
        if code in ("for", "if", "call", "accel_start", "accel_result", "load", "store",
                    "load_be", "load_le", "store_be", "store_le", "len"):
            handler(op)
            return
        if not wide:
            # Narrow already: keep the op, with operands renamed to their (single) words.
            new = Op(code, [], [self.get(a)[0] if isinstance(a, Value) else self.mem(a) for a in op.args],
                     dict(op.attrs), [], op.loc)
            new.results = op.results
            for res in op.results:
                self.bind(res, [res])
            self.out.append(new)
            return
        if handler is None:
            raise LegalizeError(f"legalize: {code} on u{max([w] + [a.width for a in op.args if isinstance(a, Value)])} "
                                f"is not supported at word size {W}")
        words = handler(op, w, base)
        self.bind(r, words)

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

    def l_add(self, op, w, base):
        return self.add_words(self.get(op.args[0]), self.get(op.args[1]), base=base)[0]

    def l_sub(self, op, w, base):
        return self.add_words(self.get(op.args[0]), self.get(op.args[1]), sub=True, base=base)[0]

    def l_neg(self, op, w, base):
        zero = [self.const(0, ww) for ww in word_widths(w, self.W)]
        return self.add_words(zero, self.get(op.args[0]), sub=True, base=base)[0]

    def _compare(self, op, w, base):
        a, b = self.get(op.args[0]), self.get(op.args[1])
        code = op.opcode
        if code in ("eq", "ne"):
            per = [self.op(code, 1, [x, y]) for x, y in zip(a, b)]
            return [self.reduce("and" if code == "eq" else "or", per)]
        if code in ("ugt", "ule"):
            a, b = b, a
        borrow = self.add_words(a, b, sub=True)[1]   # a < b
        if code in ("ult", "ugt"):
            return [borrow]
        return [self.op("xor", 1, [borrow, self.const(1, 1)])]

    l_eq = l_ne = l_ult = l_ule = l_ugt = l_uge = _compare

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
        W = self.W
        src = self.get(op.args[0])
        groups: dict[tuple[int, int, int], int] = {}
        for i, dest in enumerate(op.attrs["table"]):
            key = (i // W, dest // W, dest % W - i % W)
            groups[key] = groups.get(key, 0) | (1 << (dest % W))
        outs = []
        for j, ww in enumerate(word_widths(w, W)):
            terms = []
            for (k, jj, delta), m in sorted(groups.items()):
                if jj != j:
                    continue
                x = src[k]
                x = self.extract([(x, delta)], 0, ww, base)  # shifted into this word's width
                terms.append(self.op("and", ww, [x, self.const(m, ww)], None, base))
            outs.append(self.reduce("or", terms) if terms else self.const(0, ww))
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

    # -- memory, control, calls -------------------------------------------------------------
    def scalar_args(self, args) -> list:
        out = []
        for a in args:
            out.extend([self.mem(a)] if isinstance(a, Memory) else self.get(a))
        return out

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


def _legal_memory(m: Memory, W: int) -> Memory:
    n = len(word_widths(m.elem_width, W))
    if n == 1:
        return m
    data = None if m.data is None else tuple(x for v in m.data for x in split_int(v, m.elem_width, W))
    return Memory(m.name, W, None if m.length is None else m.length * n, m.kind, data)


def run(module: Module, knobs: dict) -> Module:
    W = knob_int(knobs, "word_bits")
    module = module.clone()
    if W is None:
        return module
    memories: dict[int, Memory] = {}
    keep = []
    for t in module.tables:
        memories[id(t)] = _legal_memory(t, W)
    for f in module.functions:
        for m in f.params + f.locals:
            if isinstance(m, Memory):
                memories[id(m)] = _legal_memory(m, W)
                keep.append(m)
    for f in module.functions:
        _Legalizer(module, f, W, memories).run()
    module.tables = [memories[id(t)] for t in module.tables]
    # Word assembly leaves full-width slices, zero concats and repeated constants: clean up.
    from . import constfold, cse_dce
    constfold.fold_in_place(module)
    cse_dce.optimize_in_place(module)
    return module
