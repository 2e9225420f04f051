"""Shift, rotation, slice and concat handlers shared by the targets (see the package docstring).

The handlers split an op into the target's multi-limb primitives: `shl_multi(limbs, k, n_out,
known_bits=None)`, `shr_multi(limbs, k, n_out)`, `rotl_limb(limb, k)`, `rotl_limbs(limbs, s)` and
`_shift_var(op, left)` (a run-time amount); targets add their special cases by overriding a
handler and calling this one for the general case.
"""
from __future__ import annotations

from ..mir import Imm, R
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
        cost = getattr(self, "rotl_limbs_cost", None)
        if cost is None or not all(isinstance(v, R) for v in limbs):
            return self._rotl_by_limbs(limbs, k)
        # a rotation of a value rotated before (since the last label: the same registers still
        # hold it) may start from that rotation where the remaining amount is cheaper
        key = (width, tuple(v.reg for v in limbs))
        done = self._rotations.setdefault(key, [])
        src, by, best = limbs, k, cost(n, k % self.LIMB)
        for k0, out0 in done:
            c = cost(n, (k - k0) % self.LIMB)
            if c < best:
                src, by, best = out0, (k - k0) % width, c
        out = self._rotl_by_limbs(src, by)
        done.append((k, out))
        return out

    def _rotl_by_limbs(self, limbs: list, k: int) -> list:
        """A multi-limb value of whole limbs rotated left by 0 <= k < width."""
        n = len(limbs)
        q, s = divmod(k, self.LIMB)
        x = [limbs[(j - q) % n] for j in range(n)]
        if s == 0:
            return x
        return self.rotl_limbs(x, s)

    def limbwise_shift(self, op, left: bool) -> list | None:
        """A constant shift of a multi-limb value by less than a limb where no bit crosses a
        limb boundary (the bits that would are known zero, `known_zero`): each limb shifted
        on its own (`shift_limb`; nibble-sliced GF(2^4) doubling masks then shifts, so its
        shifts stay inside the limbs). None otherwise."""
        w = op.results[0].width
        k, L = op.attrs["by"], self.LIMB
        n = nlimbs(w, L)
        if n < 2 or w % L or not 0 < k < L:
            return None
        kz = self.known_zero(op.args[0])
        cross = (((1 << k) - 1) << (L - k)) if left else ((1 << k) - 1)   # of the limb giving bits
        for j in range(n - 1):
            giver = j if left else j + 1
            if (kz >> (L * giver)) & cross != cross:
                return None
        (a,) = self.args(op)
        return [self.shift_limb(x, k if left else -k) for x in a]

    def op_shl(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        out = self.limbwise_shift(op, True)
        if out is not None:
            self.put(op.results[0], self.mask(out, w))
            return
        kb = self.value_bound(op.args[0]).bit_length()      # a small value: no bits to drop
        out = self.mask(self.shl_multi(a, op.attrs["by"], nlimbs(w, self.LIMB),
                                       known_bits=kb if kb < self.LIMB else None), w)
        self.note_affine(out, a, 1 << op.attrs["by"], 0, w)
        self.put(op.results[0], out)

    def op_shr(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        out = self.limbwise_shift(op, False)
        if out is None:
            out = self.shr_multi(a, op.attrs["by"], nlimbs(w, self.LIMB))
        self.put(op.results[0], out)

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

    # A target whose instructions move one end bit of a limb into the carry flag (shifting the
    # limb by one) and the carry flag into one end of a register (shifting it by one) declares
    # which ends it can take a bit out of (CARRY_OUT: "low" and/or "high") and put it in at
    # (CARRY_IN: "high" and/or "low") and the two hooks below (MSP430: rra/rla out, rrc/rlc in).
    CARRY_OUT: tuple[str, ...] = ()
    CARRY_IN: tuple[str, ...] = ()

    def carry_out(self, r, end: str) -> None:
        """Hook: shift register r by one bit so that its `end` ("low"/"high") bit goes to the
        carry flag."""
        raise NotImplementedError

    def carry_in(self, r, end: str) -> None:
        """Hook: shift register r by one bit, the carry flag entering at its `end` bit."""
        raise NotImplementedError

    def shift_limb_cost(self, k: int) -> int:
        """Hook: instructions of `shift_limb(x, k)` (the default: one)."""
        return 1

    def op_perm(self, op):
        """A bit permutation (output bit p[i] = input bit i), the cheaper of two lowerings by
        instruction count: shift-and-mask groups (`perm_groups`) or, on a target with
        CARRY_OUT and CARRY_IN, a carry chain (`perm_carry`) by the cheapest pair of ends."""
        (a,) = self.args(op)
        w = op.results[0].width
        table = op.attrs["table"]
        groups = self.perm_groups_of(table)
        plans = [self.perm_carry_plan(table, w, out, into) for out in self.CARRY_OUT for into in self.CARRY_IN]
        if plans:
            plan = min(plans, key=lambda p: p[3])
            full = (1 << self.LIMB) - 1
            cost_groups = sum((m != full) + (self.shift_limb_cost(k) if k else 0) + 1
                              for (_, _, k), m in groups.items())
            if plan[3] < cost_groups:
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

    def perm_carry_plan(self, table, w: int, out: str, into: str) -> tuple:
        """The carry chain of a bit permutation: the source bits leave their limbs one by one
        at end `out` (lowest bit first for "low", highest first for "high"), limb after limb,
        and each enters end `into` of the register collecting its destination bits. A register
        collects a run of consecutive destination bits of one limb that arrive in the order
        that end makes consecutive (increasing for "high": each new bit pushes the earlier
        ones down; decreasing for "low"): a segment [limb, first, last]. A bit continues the
        segment of its limb that ends just before it (several may be open at once: bit j going
        to j * 12 mod 47 fills a word as four interleaved runs); otherwise it starts one. Returns (order: the source bits in the order they leave, steps:
        their segments, segments, instruction estimate: two per bit, a copy per source limb,
        per segment a clear, a shift into place and an or; (out, into))."""
        L = self.LIMB
        order = list(range(len(table)))
        if out == "high":
            order.reverse()
        step = 1 if into == "high" else -1
        segs: list[list[int]] = []
        ends: dict[tuple[int, int], int] = {}          # (limb, next position) -> open segment
        steps = []
        for i in order:
            limb, pos = divmod(table[i], L)
            k = ends.pop((limb, pos), None)
            if k is None:
                segs.append([limb, pos, pos])
                k = len(segs) - 1
            segs[k][2] = pos
            ends[(limb, pos + step)] = k
            steps.append(k)
        cost = 2 * len(table) + nlimbs(w, L) + (1 if out == "high" and w % L else 0)
        for _, _, last in segs:
            cost += 1 + self.shift_limb_cost(self.carry_place(last, into)) + 1
        return order, steps, segs, cost, (out, into)

    def carry_flushes(self, seg: list, into: str) -> bool:
        """Whether no bit a segment's register held before the segment's first bit reaches the
        placed result. Entering at the top (rrc), the old bits are pushed down, and the right
        shift that places the segment drops those below it: all of them when the segment
        reaches bit 0. Entering at the bottom (rlc), symmetrically, when it reaches the top."""
        _, first, last = seg
        return min(first, last) == 0 if into == "high" else max(first, last) == self.LIMB - 1

    def carry_place(self, last: int, into: str) -> int:
        """The left shift (negative: right) that moves a segment from where the chain leaves it
        (its last bit at the top of the register for "high", at bit 0 for "low") to its place."""
        return -(self.LIMB - 1 - last) if into == "high" else last

    def perm_carry(self, a: list, w: int, plan) -> list:
        """The chain of `plan`. A segment's register is taken just before its first bit and
        put in place (shift, or into its result limb) just after its last, so that only the
        segments open at a step hold registers (Spongent's pLayer: about 4 of its 12 at once),
        not all of them for the whole chain. Between two steps nothing reads the carry.

        The register starts cleared (zeros where the segment does not reach), except where
        none of its old bits can reach the result (`carry_flushes`): then it starts undefined
        (`undef`, no instruction; ten of the pLayer's twelve clears)."""
        L = self.LIMB
        order, steps, segs, _, (end_out, end_in) = plan
        last_step = {k: n for n, k in enumerate(steps)}
        regs: dict = {}
        res: list = [Imm(0)] * nlimbs(w, L)
        src = None
        for n, (i, k) in enumerate(zip(order, steps)):
            q = i // L
            if k not in regs:
                regs[k] = self.undef() if self.carry_flushes(segs[k], end_in) else self.copy(Imm(0))
            if src is None or i // L != src[0]:
                top = min(L, w - q * L)               # the limb's bits (the top limb may be partial)
                if end_out == "high" and top < L:     # its highest bit to the top first
                    src = (q, self.copy(self.shift_limb(a[q], L - top)))
                else:
                    src = (q, self.copy(a[q]))
            self.carry_out(src[1], end_out)
            self.carry_in(regs[k], end_in)
            if last_step[k] == n:
                limb, _, last = segs[k]
                sh = self.carry_place(last, end_in)
                x = self.shift_limb(regs[k], sh) if sh else regs[k]
                res[limb] = x if res[limb] == Imm(0) else self.bitop(self.BITWISE["or"], res[limb], x)
        return res

    def op_slice(self, op):
        (a,) = self.args(op)
        w = op.results[0].width
        lo = op.attrs["lo"]
        q, r = divmod(lo, self.LIMB)
        top = False
        if r and r + w <= self.LIMB:
            # a field inside one limb: that limb alone, shifted down
            out = [self.shift_limb(a[q], -r)]
            top = r + w == self.LIMB        # the logical shift already cleared the bits above it
        else:
            out = self.shr_multi(a, lo, nlimbs(w, self.LIMB))
        # mask only when bits above the slice can be set
        if lo + w < op.args[0].width and not top:
            out = self.mask(out, w)
        self.put(op.results[0], out)

    def op_concat(self, op):
        """The fields shifted into place and or-ed together, most significant first (a bit
        entering a shift register at the top: `shift_in_at_top`)."""
        out = self.shift_in_at_top(op)
        if out is None:
            out = self.concat_limbs([(v, v.width) for v in op.args], op.results[0].width)
        self.put(op.results[0], out)

    def shift_in_at_top(self, op) -> list | None:
        """cat(b, v[w-1:1]) for one bit b and a w-bit v of whole limbs: a shift register's step,
        v shifted right by one with b entering at the top. On a target whose carry enters at
        the high end (`CARRY_IN`), `bit_to_carry` puts b in C and a carry chain from the top
        limb down does the rest: each limb takes C in at its top and gives its low bit to
        the next (MSP430: bit; rrc per limb, against shifting b to bit w-1 and or-ing it in).
        None where the op is not of that shape."""
        if "high" not in getattr(self, "CARRY_IN", ()) or len(op.args) != 2:
            return None
        b, y = op.args
        w = op.results[0].width
        d = self.defs.get(y)
        if (b.width != 1 or w % self.LIMB or d is None or d.opcode != "slice"
                or d.attrs["lo"] != 1 or d.args[0].width != w):
            return None
        bit = self.sliced_bit(b) or (self.get(b)[0], 0)      # else b itself, in bit 0
        if isinstance(bit[0], Imm):
            return None
        out = [self.copy(x) for x in self.get(d.args[0])]     # the chain changes them in place
        self.bit_to_carry(*bit)
        for limb in reversed(out):
            self.carry_in(limb, "high")
        return out

    def concat_limbs(self, parts: list, w: int) -> list:
        """The limbs of the concatenation of `parts` ((value, width), most significant first;
        value None: a part of zeros), each part's limbs fetched when it is placed."""
        n = nlimbs(w, self.LIMB)
        out: list = [Imm(0)] * n
        off = w
        for v, width in parts:
            off -= width
            if v is None:
                continue
            limbs = self.get(v)
            q, s = divmod(off, self.LIMB)
            pn = min(n - q, nlimbs(width + s, self.LIMB))
            part = self.shl_multi(limbs, s, pn, known_bits=width if width <= self.LIMB else None)
            for j, x in enumerate(part):
                out[q + j] = self.bitop(self.BITWISE["or"], out[q + j], x)
        return out
