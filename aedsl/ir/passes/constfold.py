"""Constant folding and algebraic simplification.

Folds every pure op whose operands are all constants (the op table, ops.py), loads from
tables at constant indices, and these identities (w = the width, c a constant):
  x^0, x|0, x&~0, x+0, x-0, x*1, shifts/rotates by 0 (rotates mod w), zext to the same width,
  slice of the whole word  -> x
  x^x, x-x -> 0;  x&0, x*0 -> 0;  x|~0 -> ~0;  shl/shr by >= w -> 0;  x&x, x|x -> x
  x*2^k -> shl k;  udiv by 2^k -> shr k;  umod by 2^k -> and (2^k - 1);
  x - ((x >> k) << k) -> x & (2^k - 1)  (a length less its whole blocks: OCB3's `n - 16 * full`)
  not(not x) -> x;  rotate of a rotate -> one rotate;  rotate of a concat of bytes by a part
  boundary (the rotation its one use) -> the parts in rotated order;  (x ^ c1) ^ c2 -> x ^ (c1 ^ c2)
  slice of concat -> the part (or a slice of it) when the bits lie in one part
  slice of slice -> one slice;  slice of zext -> a slice of x or zero;  trunc = slice at 0
  zext/trunc chains -> one zext/trunc (or x);  select on a constant -> the chosen operand
  eq/ne/ult/... of the same value -> constant;  perm by the identity table -> x
  x > 0, x >= 1 (or 0 < x, 1 <= x; unsigned) -> x != 0;  x <= 0, x < 1 -> x == 0;  x < 0 -> 0,
  x >= 0 -> 1, and likewise against the largest value of x's width
  `if` on a constant condition -> the chosen region's ops;  `for` with lo >= hi -> its inits.
  x & c where x is a concat (or an xor/or of concats): the parts holding no bit of c -> zero.
  ((x >> a) ^ (x >> b)) & c, a > b  -> ((x ^ (x << (a - b))) >> a) & c  when c holds no bit of
  [w - a, w - b) (the bits the left shift pushes out) and a - b < b (less shifting: an LFSR's two
  taps of byte lanes, (x >> 7) ^ (x >> 5) under 0x0101); mirrored for << (c holds no bit of
  [b, a)); also for | and &. A shift here is shl/shr or its legalized form, a slice beside zeros.
No op with effects is removed or reordered; ops made unused are left to cse_dce.

Preserves: every function's results and memory effects.
Assumes: table contents (`Memory.data`) are fixed, as the IR defines.
"""
from __future__ import annotations

from ..bounds import rounded_down
from ..nodes import Block, Function, Memory, Module, Op, Value
from ..ops import mask
from .common import Subst, Names, concat_parts, evaluate, is_pure, resolve, substitute, use_counts

NAME = "constfold"


# An unsigned comparison with its operands swapped: `k < x` is `x > k`.
_FLIP = {"ult": "ugt", "ugt": "ult", "ule": "uge", "uge": "ule"}


def _pow2(c: int) -> int | None:
    return c.bit_length() - 1 if c > 0 and c & (c - 1) == 0 else None


class _Folder:
    def __init__(self, fn: Function):
        self.names = Names(fn)
        self.consts: dict[int, int] = {}      # id(value) -> constant
        self.defs: dict[int, Op] = {}         # id(value) -> defining pure op
        self.subst = Subst()
        self.out: list[Op] = []
        self.uses = use_counts(fn)            # id(value) -> uses when the pass started

    # -- helpers that append new ops -------------------------------------------------------
    def const(self, value: int, width: int) -> Value:
        v = self.names.value("c", width)
        self.emit(Op("const", [v], [], {"value": value & mask(width)}))
        return v

    def emit(self, op: Op) -> None:
        self.out.append(op)
        if op.opcode == "const":
            self.consts[id(op.results[0])] = op.attrs["value"]
        if is_pure(op):
            for r in op.results:
                self.defs[id(r)] = op

    def replace(self, op: Op, value) -> None:
        self.subst.bind(op.results[0], value)

    def rewrite(self, op: Op, opcode: str, args: list, attrs: dict) -> None:
        """Replace `op` by a new op (fold that one again: chains collapse)."""
        new = Op(opcode, [self.names.value(op.results[0].name, op.results[0].width)], args, attrs,
                 loc=op.loc)
        self.replace(op, new.results[0])
        self.fold(new)

    # -- the walk ---------------------------------------------------------------------------
    def block(self, block: Block) -> None:
        saved = self.out
        self.out = []
        for op in block.ops:
            op.args = [resolve(self.subst, a) for a in op.args]
            self.fold(op)
        block.ops = self.out
        self.out = saved
        block.yields = [resolve(self.subst, y) for y in block.yields]

    def fold(self, op: Op) -> None:
        code = op.opcode
        if code == "if":
            c = self.consts.get(id(op.args[0]))
            if c is not None:
                region = op.regions[0 if c else 1]
                for inner in region.ops:
                    inner.args = [resolve(self.subst, a) for a in inner.args]
                    self.fold(inner)
                for r, y in zip(op.results, region.yields):
                    self.subst.bind(r, resolve(self.subst, y))
                return
        if code == "for":
            lo, hi = (self.consts.get(id(a)) for a in op.args[:2])
            if lo is not None and hi is not None and lo >= hi:
                for r, y in zip(op.results, op.args[2:]):
                    self.subst.bind(r, y)
                return
        if op.regions:
            for r in op.regions:
                self.block(r)
            self.emit(op)
            return
        if not is_pure(op) or code == "const" or not op.results:
            if code == "load" and isinstance(op.args[0], Memory):
                pass
            else:
                self.emit(op)
                return
        if code == "load":
            idx = self.consts.get(id(op.args[1]))
            data = op.args[0].data
            if idx is not None and data is not None and 0 <= idx < len(data):
                self.replace(op, self.const(data[idx], op.results[0].width))
            else:
                self.emit(op)
            return
        vals = [self.consts.get(id(a)) for a in op.args]
        if all(v is not None for v in vals):
            results = evaluate(op, vals)
            for r, v in zip(op.results, results):
                self.subst.bind(r, self.const(v, r.width))
            return
        if len(op.results) == 1 and self.simplify(op, vals):
            return
        self.emit(op)

    def narrow(self, v: Value, demanded: int, depth: int = 0) -> Value | None:
        """`v` with the parts of its concats that hold no demanded bit made zero (through xor/or
        of such values), or None if nothing changes: after word legalization a wide shift under
        a mask (`(x >> 7) & 0x0101...`, an LFSR of byte lanes) then drops the bits it would fetch
        from the neighbouring word. Through a slice of a part, its source is narrowed to the bits
        the slice passes on."""
        d = self.defs.get(id(v))
        if d is None or depth > 4:
            return None
        w = v.width
        if d.opcode == "concat":
            parts, changed = [], False
            for p, pos in concat_parts(d):
                need = (demanded >> pos) & mask(p.width)
                if need == 0 and self.consts.get(id(p)) != 0:
                    parts.append(self.const(0, p.width))
                    changed = True
                    continue
                s = self.defs.get(id(p))
                if need and s is not None and s.opcode == "slice":
                    # a slice of a value whose undemanded bits may go too ((x ^ (x << 2)) >> 7
                    # under 0x0101: the bits the shift brings in from the next word)
                    inner = self.narrow(s.args[0], need << s.attrs["lo"], depth + 1)
                    if inner is not None:
                        q = self.names.value(p.name, p.width)
                        self.fold(Op("slice", [q], [inner], dict(s.attrs), loc=s.loc))
                        parts.append(resolve(self.subst, q))
                        changed = True
                        continue
                parts.append(p)
            if not changed:
                return None
            new = Op("concat", [self.names.value(v.name, w)], parts, {}, loc=d.loc)
        elif d.opcode in ("xor", "or"):
            args = [self.narrow(p, demanded, depth + 1) for p in d.args]
            if all(n is None for n in args):
                return None
            new = Op(d.opcode, [self.names.value(v.name, w)],
                     [n if n is not None else p for n, p in zip(args, d.args)], {}, loc=d.loc)
        else:
            return None
        self.fold(new)
        return resolve(self.subst, new.results[0])

    def shift_of(self, v: Value) -> tuple[Value, str, int] | None:
        """(x, "shl" | "shr", k) when v is x shifted by 0 < k < w: a shift op, or the form word
        legalization leaves, cat(0, x[w-1:k]) or cat(x[w-1-k:0], 0)."""
        d = self.defs.get(id(v))
        w = v.width
        if d is None:
            return None
        if d.opcode in ("shl", "shr") and 0 < d.attrs["by"] < w:
            return d.args[0], d.opcode, d.attrs["by"]
        if d.opcode != "concat" or len(d.args) != 2:
            return None
        hi, lo = d.args
        for zero, part, code in ((hi, lo, "shr"), (lo, hi, "shl")):
            if self.consts.get(id(zero)) != 0:
                continue
            s = self.defs.get(id(part))
            if s is None or s.opcode != "slice" or s.args[0].width != w:
                continue
            k = zero.width
            if code == "shr" and s.attrs["lo"] == k or code == "shl" and s.attrs["lo"] == 0:
                return s.args[0], code, k
        return None

    def merge_shifts(self, v: Value, c: int) -> Value | None:
        """v = (x >> a) op (x >> b) (op xor/or/and, a > b, read only here) as
        (x op (x << (a - b))) >> a, when c (the mask v is read under) holds none of the bits
        where the two differ ([w - a, w - b)) and a - b < b; mirrored for <<. None otherwise."""
        d = self.defs.get(id(v))
        if d is None or d.opcode not in ("xor", "or", "and") or self.uses.get(id(v), 1) != 1:
            return None
        sa, sb = (self.shift_of(p) for p in d.args)
        if sa is None or sb is None or sa[0] is not sb[0] or sa[1] != sb[1] or sa[2] == sb[2]:
            return None
        if any(self.uses.get(id(p), 1) != 1 for p in d.args):
            return None
        x, code, _ = sa
        w = v.width
        a, b = max(sa[2], sb[2]), min(sa[2], sb[2])
        diff = a - b
        lost = (mask(a - b) << (w - a)) if code == "shr" else (mask(a - b) << b)
        if diff >= b or c & lost:
            return None
        inner_code = "shl" if code == "shr" else "shr"
        moved = self.names.value("t", w)
        self.fold(Op(inner_code, [moved], [x], {"by": diff}, loc=d.loc))
        both = self.names.value("t", w)
        self.fold(Op(d.opcode, [both], [x, resolve(self.subst, moved)], {}, loc=d.loc))
        out = self.names.value(v.name, w)
        self.fold(Op(code, [out], [resolve(self.subst, both)], {"by": a}, loc=d.loc))
        return resolve(self.subst, out)

    def simplify(self, op: Op, vals: list) -> bool:
        """Apply one identity; True if `op` was replaced."""
        code = op.opcode
        w = op.results[0].width
        m = mask(w)
        a = op.args
        x = a[0]
        c = vals[1] if len(vals) > 1 else None
        c0 = vals[0]
        d = self.defs.get(id(x))
        if code in ("xor", "and", "or", "add", "mul") and c0 is not None and c is None:
            # Commutative: keep the constant second.
            a = [a[1], a[0]]
            x = a[0]
            c0, c = None, vals[0]
            d = self.defs.get(id(x))
        if code == "xor":
            if c == 0:
                return self._to(op, x)
            if a[0] is a[1]:
                return self._to(op, self.const(0, w))
            if c is not None and d is not None and d.opcode == "xor" and id(d.args[1]) in self.consts:
                k = self.consts[id(d.args[1])] ^ c
                self.rewrite(op, "xor", [d.args[0], self.const(k, w)], {})
                return True
        elif code == "and":
            if c == 0:
                return self._to(op, self.const(0, w))
            if c == m or a[0] is a[1]:
                return self._to(op, x)
            if c is not None:
                narrowed = self.narrow(x, c)
                if narrowed is not None:
                    self.rewrite(op, "and", [narrowed, a[1]], {})
                    return True
                merged = self.merge_shifts(x, c)
                if merged is not None:
                    self.rewrite(op, "and", [merged, a[1]], {})
                    return True
        elif code == "or":
            if c == 0 or a[0] is a[1]:
                return self._to(op, x)
            if c == m:
                return self._to(op, self.const(m, w))
        elif code == "add":
            if c == 0:
                return self._to(op, x)
        elif code == "sub":
            if c == 0:
                return self._to(op, x)
            if a[0] is a[1]:
                return self._to(op, self.const(0, w))
            k = rounded_down(a[1], x, lambda v: self.defs.get(id(v)))
            if k is not None and 0 < k < w:     # x - (x >> k << k): the low k bits of x
                self.rewrite(op, "and", [x, self.const((1 << k) - 1, w)], {})
                return True
        elif code == "mul":
            if c == 1:
                return self._to(op, x)
            if c == 0:
                return self._to(op, self.const(0, w))
            if c is not None and _pow2(c) is not None:
                self.rewrite(op, "shl", [x], {"by": _pow2(c)})
                return True
        elif code in ("udiv", "umod") and c is not None and _pow2(c) is not None:
            if code == "udiv":
                self.rewrite(op, "shr", [x], {"by": _pow2(c)})
            else:
                self.rewrite(op, "and", [x, self.const(c - 1, w)], {})
            return True
        elif code in ("shl", "shr"):
            k = op.attrs["by"]
            if k == 0:
                return self._to(op, x)
            if k >= w:
                return self._to(op, self.const(0, w))
            if d is not None and d.opcode == code and d.attrs["by"] + k < w:
                self.rewrite(op, code, [d.args[0]], {"by": d.attrs["by"] + k})
                return True
        elif code in ("shl_var", "shr_var") and c is not None:
            if c >= w:
                return self._to(op, self.const(0, w))
            self.rewrite(op, code[:3], [x], {"by": c})
            return True
        elif code in ("rotl", "rotr"):
            k = op.attrs["by"] % w
            left = k if code == "rotl" else (w - k) % w
            if left == 0:
                return self._to(op, x)
            if d is not None and d.opcode in ("rotl", "rotr"):
                k2 = d.attrs["by"] % w
                left2 = k2 if d.opcode == "rotl" else (w - k2) % w
                total = (left + left2) % w
                if total == 0:
                    return self._to(op, d.args[0])
                self.rewrite(op, "rotl", [d.args[0]], {"by": total})
                return True
            if (d is not None and d.opcode == "concat" and all(p.width % 8 == 0 for p in d.args)
                    and any(pos == w - left for _, pos in concat_parts(d)) and self.uses.get(id(x), 1) == 1):
                # rotl(cat(.., p, q, ..)) by a part boundary: the same parts in another order
                # (parts of whole bytes only: nibbles keep their order for sbox_fusion, which
                # reads two adjacent ones as one byte). Only when the rotation is the concat's
                # one use: a concat used as it is too is made anyway, and its rotation is one
                # instruction on a 32-bit word, where a second concat repacks every part
                # (AES's MixColumns on a packed column: the column and two rotations of it).
                top = [p for p, pos in concat_parts(d) if pos >= w - left]
                self.rewrite(op, "concat", [p for p, pos in concat_parts(d) if pos < w - left] + top, {})
                return True
            if code == "rotr" or op.attrs["by"] != left:
                # One canonical form (rotl by 0 < k < w) so CSE finds equal rotates.
                self.rewrite(op, "rotl", [x], {"by": left})
                return True
        elif code == "not":
            if d is not None and d.opcode == "not":
                return self._to(op, d.args[0])
        elif code in ("eq", "ule", "uge") and a[0] is a[1]:
            return self._to(op, self.const(1, 1))
        elif code in ("ne", "ult", "ugt") and a[0] is a[1]:
            return self._to(op, self.const(0, 1))
        elif code in _FLIP and (c0 is None) != (c is None):
            return self.compare_bound(op, code, a, c0, c)
        elif code == "select":
            if c0 is not None:
                return self._to(op, a[1] if c0 else a[2])
            if a[1] is a[2]:
                return self._to(op, a[1])
        elif code == "zext":
            if x.width == w:
                return self._to(op, x)
            if d is not None and d.opcode == "zext":
                self.rewrite(op, "zext", [d.args[0]], {})
                return True
        elif code == "trunc":
            self.rewrite(op, "slice", [x], {"lo": 0})
            return True
        elif code == "slice":
            return self.simplify_slice(op, x, op.attrs["lo"], w, d)
        elif code == "perm":
            if list(op.attrs["table"]) == list(range(w)):
                return self._to(op, x)
        elif code == "concat" and len(a) == 1:
            return self._to(op, x)
        return False

    def simplify_slice(self, op: Op, x: Value, lo: int, w: int, d: Op | None) -> bool:
        if lo == 0 and w == x.width:
            return self._to(op, x)
        if lo >= x.width:
            return self._to(op, self.const(0, w))
        if d is None:
            return False
        if d.opcode == "slice":
            self.rewrite(op, "slice", [d.args[0]], {"lo": lo + d.attrs["lo"]})
            return True
        if d.opcode == "zext":
            inner = d.args[0]
            if lo >= inner.width:
                return self._to(op, self.const(0, w))
            if lo + w <= inner.width:
                self.rewrite(op, "slice", [inner], {"lo": lo})
            else:
                # Bits above the inner value are zero: slice what exists, then widen.
                part = self.names.value("s", inner.width - lo)
                self.fold(Op("slice", [part], [inner], {"lo": lo}))
                self.rewrite(op, "zext", [resolve(self.subst, part)], {})
            return True
        if d.opcode == "concat":
            for part, pos in concat_parts(d):
                if pos <= lo and lo + w <= pos + part.width:
                    self.rewrite(op, "slice", [part], {"lo": lo - pos})
                    return True
            # Spanning several parts: a concat of the slices of those parts. Not where the
            # concat is used elsewhere and a part would be cut: that re-slices the part at a
            # new offset, a second shifted copy of bits the concat already holds (a shift
            # register's step of one bit would become a shift of its original by k bits)
            if self.uses.get(id(x), 1) > 1 and any(
                    max(pos, lo) > pos or min(pos + p.width, lo + w) < pos + p.width
                    for p, pos in concat_parts(d) if pos < lo + w and lo < pos + p.width
                    and id(p) not in self.consts):
                return False
            pieces = []
            for part, pos in concat_parts(d):
                top, bot = max(pos, lo), min(pos + part.width, lo + w)
                if top < bot:
                    p = self.names.value("s", bot - top)
                    self.fold(Op("slice", [p], [part], {"lo": top - pos}))
                    pieces.append(resolve(self.subst, p))
            self.rewrite(op, "concat", pieces, {})
            return True
        if d.opcode in ("shl", "shr") and lo + w <= x.width:
            k = d.attrs["by"]
            src = d.args[0]
            start = lo - k if d.opcode == "shl" else lo + k
            if start >= 0 and start + w <= src.width:
                self.rewrite(op, "slice", [src], {"lo": start})
                return True
        return False

    def compare_bound(self, op: Op, code: str, a: list, c0, c) -> bool:
        """An unsigned comparison of x with a constant at the end of x's range (k on the left is
        moved right: `0 < x` is `x > 0`): always true or false against 0 or the maximum, and
        a test against zero where the constant is 0 or 1 (`x > 0`, `x >= 1` -> `x != 0`;
        `x <= 0`, `x < 1` -> `x == 0`), which `if` lowers to a branch on x itself."""
        if c is None:
            code, x, k = _FLIP[code], a[1], c0
        else:
            x, k = a[0], c
        top = mask(x.width)
        always = {("ult", 0): 0, ("uge", 0): 1, ("ugt", top): 0, ("ule", top): 1}
        if (code, k) in always:
            return self._to(op, self.const(always[code, k], 1))
        zero_test = {("ugt", 0): "ne", ("uge", 1): "ne", ("ule", 0): "eq", ("ult", 1): "eq"}
        if (code, k) not in zero_test:
            return False
        self.rewrite(op, zero_test[code, k], [x, self.const(0, x.width)], {})
        return True

    def _to(self, op: Op, value) -> bool:
        self.replace(op, value)
        return True


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    run_in_place(module, knobs)
    return module


def run_in_place(module: Module, knobs: dict | None = None) -> None:
    """The pass on a module the caller owns (the pipeline's later steps: no copy)."""
    for fn in module.functions:
        f = _Folder(fn)
        f.block(fn.body)
        substitute(fn.body, f.subst)
