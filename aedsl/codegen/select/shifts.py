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

    # A target whose instructions move a limb's lowest bit into the carry flag and the carry flag
    # into a limb's top bit (MSP430 `rra` / `rrc`) sets CARRY_GATHER and the two hooks below.
    CARRY_GATHER = False

    def carry_out_low(self, r) -> None:
        """Hook: shift register r right by one, its lowest bit into the carry flag."""
        raise NotImplementedError

    def carry_in_high(self, r) -> None:
        """Hook: shift register r right by one, the carry flag into its top bit."""
        raise NotImplementedError

    def shift_limb_cost(self, k: int) -> int:
        """Hook: instructions of `shift_limb(x, k)` (the default: one)."""
        return 1

    def op_perm(self, op):
        """A bit permutation (output bit p[i] = input bit i), the cheaper of two lowerings by
        instruction count: shift-and-mask groups (`perm_groups`) or, on a target with
        CARRY_GATHER, a carry chain (`perm_carry`)."""
        (a,) = self.args(op)
        w = op.results[0].width
        table = op.attrs["table"]
        groups = self.perm_groups_of(table)
        if self.CARRY_GATHER:
            plan = self.perm_carry_plan(table, w)
            full = (1 << self.LIMB) - 1
            cost_groups = sum((m != full) + (self.shift_limb_cost(k) if k else 0) + 1
                              for (_, _, k), m in groups.items())
            if plan[2] < cost_groups:
                self.put(op.results[0], self.perm_carry(a, w, plan))
                return
        self.put(op.results[0], self.perm_groups(a, w, groups))

    def perm_groups_of(self, table) -> dict:
        L = self.LIMB
        groups: dict[tuple[int, int, int], int] = {}
        for i, dest in enumerate(table):
            key = (i // L, dest // L, dest % L - i % L)
            groups[key] = groups.get(key, 0) | (1 << (i % L))
        return groups

    def perm_groups(self, a: list, w: int, groups: dict) -> list:
        """The bits that go from source limb s to destination limb d moving by the same k bits
        within their limbs are one group, `out[d] |= shift(a[s] & mask, k)`. A permutation of
        cells (bytes, nibbles) or of whole words has few groups; one with no structure costs
        one group per bit, each a mask, a shift within one limb and an or."""
        L = self.LIMB
        out: list = [Imm(0)] * nlimbs(w, L)
        full = (1 << L) - 1
        for (src, dst, k), mask in sorted(groups.items(), key=lambda g: (g[0][1], g[0][0], g[0][2])):
            x = a[src]
            if mask != full:
                x = self.bitop(self.BITWISE["and"], x, Imm(mask))
            x = self.shift_limb(x, k) if k else x
            out[dst] = x if out[dst] == Imm(0) else self.bitop(self.BITWISE["or"], out[dst], x)
        return out

    def perm_carry_plan(self, table, w: int) -> tuple[list, list, int]:
        """The carry chain of a bit permutation: the source bits leave their limbs lowest first,
        limb after limb, and each enters the top of the register collecting its destination
        bits. A register collects a run of consecutive destination bits of one limb that arrive
        in increasing order (a segment: [limb, lowest, highest]); a new segment starts
        wherever that breaks. Returns (steps: source bit -> segment, segments, instruction
        estimate: two per bit, a copy per source limb, per segment a clear, a shift into place
        and an or)."""
        L = self.LIMB
        segs: list[list[int]] = []
        current: dict[int, int] = {}
        steps = []
        for i, dest in enumerate(table):
            limb, pos = divmod(dest, L)
            k = current.get(limb)
            if k is None or segs[k][2] != pos - 1:
                segs.append([limb, pos, pos])
                k = current[limb] = len(segs) - 1
            segs[k][2] = pos
            steps.append(k)
        cost = 2 * len(table) + nlimbs(w, L)
        for _, _, hi in segs:
            cost += 1 + (self.shift_limb_cost(-(L - 1 - hi)) if hi != L - 1 else 0) + 1
        return steps, segs, cost

    def perm_carry(self, a: list, w: int, plan) -> list:
        L = self.LIMB
        steps, segs, _ = plan
        regs = [self.copy(Imm(0)) for _ in segs]      # zeros below a segment that is not full
        src = None
        for i, k in enumerate(steps):
            if i % L == 0:
                src = self.copy(a[i // L])
            self.carry_out_low(src)
            self.carry_in_high(regs[k])
        out: list = [Imm(0)] * nlimbs(w, L)
        for (limb, _, hi), r in zip(segs, regs):
            x = self.shift_limb(r, -(L - 1 - hi)) if hi != L - 1 else r
            out[limb] = x if out[limb] == Imm(0) else self.bitop(self.BITWISE["or"], out[limb], x)
        return out

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
