"""Induction variables and walking pointers in counted loops, shared by the targets.

An *affine* value is a * index + c of an active counted loop (`affine_of`, recorded by the
arithmetic handlers through `note_affine`). A memory access `mem[a*i + c]` then goes through a
*walking pointer* (`walker`): a register set up in the loop's preheader to the address of an
element and advanced by a * step * stride in the latch (`loop_latch`), the access at a constant
displacement from it. The target decides which walkers can be shared (`walker_key`,
`walker_reaches`), where a new one starts (`walker_origin`) and emits the set-up and the advance
(`walker_setup`, `walker_advance`); `affine_ok` decides whether a value is recorded at all.

A loop over the blocks of byte buffers up to a run-time bound (`end_offsets`) counts a
register up to zero instead, the buffers' bases moved to their ends (`rebase_to_end`,
`count_to_zero`): no bound read and compared each turn.
"""
from __future__ import annotations

from dataclasses import replace

from aedsl.ir.nodes import Memory, Op
from aedsl.ir.nodes import walk_ops

from ..mir import R


class LoopAddressing:
    """Selector mixin: `affine` (vreg -> (loop, a, c)) and `loop_facts` (per active counted loop:
    (constant upper bound or None, whether the body makes a call))."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.affine: dict = {}
        self.loop_facts: list = []

    def select_for(self, op: Op) -> None:
        lo, hi = (self.const_of(self.get(a)) for a in op.args[:2])
        unroll = op.attrs.get("unroll", 1)
        counted = not (lo is not None and hi is not None and (unroll == 0 or hi <= lo))
        if counted:
            calls = any(o.opcode == "call" for r in op.regions for o in walk_ops(r))
            self.loop_facts.append((hi, calls))
        try:
            super().select_for(op)
        finally:
            if counted:
                self.loop_facts.pop()

    # --- induction variables -------------------------------------------------------------------
    def affine_of(self, limbs: list):
        """(loop, a, c) if the value is a * index + c of an active counted loop."""
        if len(limbs) != 1 or not isinstance(limbs[0], R):
            return None
        for loop in self.loops:
            if len(loop.idx) == 1 and loop.idx[0] == limbs[0]:
                return loop, 1, 0
        a = self.affine.get(limbs[0].reg)
        return a if a is not None and any(a[0] is loop for loop in self.loops) else None

    def note_affine(self, out: list, x: list, mul: int, c: int, width: int) -> None:
        """Record out = mul * x + c when x = a * index + c0 of an active loop (and `affine_ok`)."""
        aff = self.affine_of(x)
        if aff is None or len(out) != 1 or not isinstance(out[0], R) or out[0] == x[0]:
            return
        loop, a0, c0 = aff
        a, c = a0 * mul, c0 * mul + c
        if self.affine_ok(loop, a, c, width):
            self.affine[out[0].reg] = (loop, a, c)

    # --- loops over byte-buffer blocks up to a run-time bound -----------------------------------
    # A target that emits `rebase_to_end` and `count_to_zero` sets this.
    END_REBASE = False
    BLOCK_ACCESS = frozenset({"load_be", "load_le", "store_be", "store_le"})

    def end_offsets(self, op: Op, clo, chi, step: int):
        """A counted loop `for i in lo..hi`, lo a constant and hi a one-limb run-time value,
        whose index the body reads only as `off = i << k` (a limb-wide shift, one k), each such
        off read only as the offset of byte-order blocks (`load_be/le`, `store_be/le`) of
        pointer byte buffers that nothing else in the body names (the message loop of a
        sponge or a stream mode). Such a loop keeps j = (i - hi) << k in a register instead of
        i: each buffer's base is moved to `base + (hi << k)` before the loop, so that
        `base' + j = base + (i << k)` modulo 2^LIMB (the address arithmetic), and the loop adds
        1 << k to j and ends on the add's zero result, after the turn i = hi - 1 (at no earlier
        turn: (hi - i) << k is below 2^LIMB while the blocks lie in the address space). The
        bound is read once, not compared each turn. Returns (k, the `shl` ops, the buffers) or
        None."""
        if not self.END_REBASE or clo is None or chi is not None or step != 1 or op.attrs.get("unroll", 1) != 1:
            return None
        if len(self.get(op.args[1])) != 1:
            return None
        body = op.regions[0]
        index = body.params[0]
        if any(y is index for y in body.yields):
            return None
        ops = list(walk_ops(body))
        shifts = [o for o in ops if any(a is index for a in o.args)]
        if not shifts or any(o.opcode != "shl" or o.args[0] is not index
                             or o.results[0].width != self.LIMB for o in shifts):
            return None
        k = shifts[0].attrs["by"]
        if any(o.attrs["by"] != k for o in shifts) or not 0 <= k < self.LIMB:
            return None
        offs = {id(o.results[0]) for o in shifts}
        if any(id(y) in offs for y in body.yields):
            return None
        buffers: list = []
        for o in ops:
            for j, a in enumerate(o.args):
                if id(a) not in offs:
                    continue
                if o.opcode not in self.BLOCK_ACCESS or j != 1 or not isinstance(o.args[0], Memory):
                    return None
                b = self.memory(o.args[0])
                if b.kind != "ptr" or b.stride != 1:
                    return None
                if not any(m is o.args[0] for m in buffers):
                    buffers.append(o.args[0])
        for o in ops:
            for j, a in enumerate(o.args):
                if any(a is m for m in buffers) and not (
                        o.opcode in self.BLOCK_ACCESS and j == 0 and id(o.args[1]) in offs):
                    return None
        return k, shifts, buffers

    def end_loop_setup(self, ends: tuple, hi: list, lo: int, span) -> tuple:
        """The preheader of an `end_offsets` loop: j and the moved bases (span: hi << k if
        already emitted, else None); the buffers bound to the moved bases and the shifts given j
        while the body is selected. Returns (j, the buffers' former bindings)."""
        k, shifts, buffers = ends
        binds = [self.memory(m) for m in buffers]
        if span is None:
            span = self.end_span(hi, k)
        j, moved = self.rebase_to_end(span, k, lo, [R(b.base) for b in binds])
        saved = {}
        for m, b, p in zip(buffers, binds, moved):
            saved[m] = b
            self.mems[m] = replace(b, base=p.reg)
        for o in shifts:
            self.given[id(o)] = [j]
        return j, saved

    def end_loop_latch(self, ends: tuple, j, saved: dict, top: str) -> None:
        """The latch of an `end_offsets` loop: j advanced and tested; the bindings restored."""
        k, shifts, _ = ends
        self.count_to_zero(j, k, top)
        self.mems.update(saved)
        for o in shifts:
            del self.given[id(o)]

    def end_span(self, hi: list, k: int):
        """Emit hi << k (the bytes the loop walks from index 0); returns its register."""
        raise NotImplementedError

    def rebase_to_end(self, span, k: int, lo: int, bases: list) -> tuple:
        """Emit j = (lo << k) - span and base + span for each base register; returns (j, the
        moved bases)."""
        raise NotImplementedError

    def count_to_zero(self, j, k: int, target: str) -> None:
        """Emit j += 1 << k and a branch to `target` unless j is then zero."""
        raise NotImplementedError

    def affine_ok(self, loop, a: int, c: int, width: int) -> bool:
        """Whether a * index + c (a `width`-bit IR value) may be recorded: over the loop's whole
        index range it stays in [0, 2^width), so the wrapped IR value equals the affine one."""
        k = next(k for k, lp in enumerate(self.loops) if lp is loop)
        hi = self.loop_facts[k][0]
        if loop.lo is None or hi is None or hi <= loop.lo:
            return False
        ends = (a * loop.lo + c, a * (hi - 1) + c)
        return min(ends) >= 0 and max(ends) < (1 << min(width, self.LIMB))

    # --- walking pointers ----------------------------------------------------------------------
    def walking(self, b, index: list):
        """(p, displacement) addressing element `index` of memory `b` through a walking pointer,
        or None when the index is no affine value of a loop with a constant start."""
        aff = self.affine_of(index)
        if aff is None or aff[0].lo is None or b.kind not in ("ptr", "local", "table"):
            return None
        loop, a, c = aff
        return self.walker(b, loop, a, c)

    def walker(self, b, loop, a: int, c: int):
        """(p, displacement): p walks element a * index + c0 of `b` (set up in the loop's preheader,
        advanced in its latch) and element a * index + c is at p + displacement."""
        walkers = loop.extra.setdefault("walkers", [])
        key = self.walker_key(b, a)
        for k, p, c0, _ in walkers:
            if k == key and self.walker_reaches(b, (c - c0) * b.stride):
                return p, (c - c0) * b.stride
        p = R(self.vreg())
        c0 = self.walker_origin(c)
        self.insert_before(loop.anchor, self.walker_setup(b, p, (a * loop.lo + c0) * b.stride, loop))
        walkers.append((key, p, c0, a * loop.step * b.stride))
        return p, (c - c0) * b.stride

    def loop_latch(self, loop) -> None:
        for _, p, _, delta in loop.extra.get("walkers", []):
            self.mf.insts.extend(self.walker_advance(p, delta))

    def walker_reaches(self, b, disp: int) -> bool:
        """Whether an access at p + disp can be addressed from an existing walker p."""
        return True

    def walker_origin(self, c: int) -> int:
        """The element offset c0 a new walker for element a * index + c points at."""
        return c
