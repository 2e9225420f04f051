"""Shift, rotation, slice and concat handlers shared by the targets (see the package docstring).

The handlers split an op into the target's multi-limb primitives: `shl_multi(limbs, k, n_out,
known_bits=None)`, `shr_multi(limbs, k, n_out)`, `rotl_limb(limb, k)`, `rotl_limbs(limbs, s)` and
`_shift_var(op, left)` (a run-time amount); targets add their special cases by overriding a
handler and calling this one for the general case.
"""
from __future__ import annotations

from ..mir import Imm
from ..select_base import nlimbs


class ShiftOps:
    """Selector mixin: shifts, rotations, slices and concatenations over limbs."""

    def rotl_multi(self, limbs: list, width: int, k: int) -> list:
        """limbs rotated left by a constant k: a value of no whole number of limbs as two shifts
        or-ed, one limb by the target's `rotl_limb(limb, k)`, whole limbs by renaming, and the
        remaining 0 < s < LIMB bits of a multi-limb value by the target's `rotl_limbs(x, s)`."""
        k %= width
        if k == 0:
            return list(limbs)
        n = len(limbs)
        if width % self.LIMB:
            a = self.shl_multi(limbs, k, n)
            b = self.shr_multi(limbs, width - k, n)
            return self.mask([self.bitop(self.BITWISE["or"], x, y) for x, y in zip(a, b)], width)
        if n == 1:
            return [self.rotl_limb(limbs[0], k)]
        q, s = divmod(k, self.LIMB)
        x = [limbs[(j - q) % n] for j in range(n)]
        if s == 0:
            return x
        return self.rotl_limbs(x, s)

    def op_shl(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        out = self.mask(self.shl_multi(a, op.attrs["by"], nlimbs(w, self.LIMB)), w)
        self.note_affine(out, a, 1 << op.attrs["by"], 0, w)
        self.put(op.results[0], out)

    def op_shr(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        self.put(op.results[0], self.shr_multi(a, op.attrs["by"], nlimbs(w, self.LIMB)))

    def op_rotl(self, op):
        (a,) = self.args(op)
        self.put(op.results[0], self.rotl_multi(a, op.results[0].width, op.attrs["by"]))

    def op_rotr(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        self.put(op.results[0], self.rotl_multi(a, w, (w - op.attrs["by"] % w) % w))

    def op_shl_var(self, op):
        self._shift_var(op, True)

    def op_shr_var(self, op):
        self._shift_var(op, False)

    def shift_limb(self, limb, k: int):
        """One limb shifted left by k (right by -k), bits leaving the limb dropped. Targets with
        a cheaper single-limb form (MSP430's swpb for 8 and more) override it."""
        if k >= 0:
            return self.shl_multi([limb], k, 1)[0]
        return self.shr_multi([limb], -k, 1)[0]

    def op_perm(self, op):
        """A bit permutation (output bit p[i] = input bit i), as masks and single-limb shifts:
        the bits that go from source limb s to destination limb d moving by the same k bits
        within their limbs are one group, `out[d] |= shift(a[s] & mask, k)`. A permutation of
        cells (bytes, nibbles) or of whole words has few groups; one with no structure costs
        one group per bit, each a mask, a shift within one limb and an or."""
        (a,) = self.args(op)
        w = op.results[0].width
        L = self.LIMB
        n = nlimbs(w, L)
        groups: dict[tuple[int, int, int], int] = {}
        for i, dest in enumerate(op.attrs["table"]):
            key = (i // L, dest // L, dest % L - i % L)
            groups[key] = groups.get(key, 0) | (1 << (i % L))
        out: list = [Imm(0)] * n
        full = (1 << L) - 1
        for (src, dst, k), mask in sorted(groups.items(), key=lambda g: (g[0][1], g[0][0], g[0][2])):
            x = a[src]
            if mask != full:
                x = self.bitop(self.BITWISE["and"], x, Imm(mask))
            x = self.shift_limb(x, k) if k else x
            out[dst] = x if out[dst] == Imm(0) else self.bitop(self.BITWISE["or"], out[dst], x)
        self.put(op.results[0], out)

    def op_slice(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        lo = op.attrs["lo"]
        q, r = divmod(lo, self.LIMB)
        if r and r + w <= self.LIMB:
            # a field inside one limb: that limb alone, shifted down
            out = [self.shift_limb(a[q], -r)]
        else:
            out = self.shr_multi(a, lo, nlimbs(w, self.LIMB))
        # mask only when bits above the slice can be set
        if lo + w < op.args[0].width:
            out = self.mask(out, w)
        self.put(op.results[0], out)

    def op_concat(self, op):
        """The fields shifted into place and or-ed together, most significant first."""
        w = op.results[0].width
        n = nlimbs(w, self.LIMB)
        out: list = [Imm(0)] * n
        off = w
        for v in op.args:
            off -= v.width
            limbs = self.get(v)
            q, s = divmod(off, self.LIMB)
            pn = min(n - q, nlimbs(v.width + s, self.LIMB))
            part = self.shl_multi(limbs, s, pn, known_bits=v.width if v.width <= self.LIMB else None)
            for j, x in enumerate(part):
                out[q + j] = self.bitop(self.BITWISE["or"], out[q + j], x)
        self.put(op.results[0], out)
