"""Write-back homes: a spilled variable that a function loads from a word of its caller's memory
at entry and stores back to that same word at exit lives in that word in between.

The shape (an in-place primitive: `x0 = s[0] ... loop ... s[0] = x0`, as Ascon-p's `permute`):
a group of spilled registers that share a slot (`regalloc._share_slots`: the loop-carried value
and the values the body yields for it) whose first reference is a load `mov M, v` and whose
last is a store `mov w, M` of the same word M through one pointer p, the load before the
function's first label, branch or call and the store after its last one. The allocator would
give the group a stack slot, copy M into it at entry and the slot back to M at exit; here M
itself is the slot, so both copies become `mov M, M` and go (`regalloc.allocate` deletes them
with the other self-moves). Every other reference of the group reads or writes M as it would
the slot.

Why that preserves the function's meaning:
- every path from the entry to a reference of the group passes the load (it is before any
  label or branch), and every path from one to the exit passes the store (after the last), so
  M holds the group's value wherever the slot would, and at the exit the value the store wrote;
- nothing else reads or writes memory that may be M from p's definition to the exit: the
  other memory operands there are frame words (p is an incoming argument, not a frame
  address), constant tables named by a symbol (read only), or words through p itself that do
  not overlap M; any other pointer may alias M, so its presence rejects the home; no call;
- p keeps one value over that range: defined once (a copy of an incoming argument) and
  otherwise only moved by post-increment reads before the first label (`mov @p+, v`, which the
  MSP430 pass autoincrement_straight makes of a state loaded word by word). Those are turned
  back into displacements from p's first value (`normalize_pointer`), so one operand `k(p)`
  names M everywhere; p is then kept in a register (`MFunction.no_spill`).

Where p itself would be spilled this round, it is kept in a register instead only when at
least MIN_HOMES groups get a home through it: a register for the function's length against
a load and a store per group (msp430f1611 Ascon-p6: twelve groups; a twelfth register lost
costs it 55 cycles and 8 bytes, the copies cost 132 cycles and 120 bytes).
"""
from __future__ import annotations

import bisect

from .liveness import defs_uses
from .mir import Inc, Ind, Mem, MFunction, R, frame_kind, is_vreg, regs_in
from .target import Target

MIN_HOMES = 2


class _Pointer:
    """What a home through pointer vreg `p` needs to know of it: the index of its one definition,
    the byte offset from its first value at each post-increment read, and whether it qualifies."""

    def __init__(self, fn: MFunction, target: Target, p: int, first_barrier: int, defs_at):
        self.p, self.ok, self.incs, self.step, self.order = p, False, {}, target.word_bytes, []
        ds = defs_at.get(p, [])
        plain = [i for i in ds if not any(isinstance(o, Inc) and o.reg == p for o in fn.insts[i].ops)]
        if len(plain) != 1:
            return
        d0 = plain[0]
        inst = fn.insts[d0]
        incoming = set(fn.incoming)
        if not (inst.mn == target.move_mn and len(inst.ops) == 2 and inst.ops[1] == R(p)
                and inst.ops[0] in incoming):
            return
        off = 0
        for i in sorted(set(ds) - {d0}):
            x = fn.insts[i]
            if i < d0 or i > first_barrier or x.mn != target.move_mn or not isinstance(x.ops[0], Inc):
                return
            self.incs[i] = off
            off += target.word_bytes
        self.d0, self.ok, self.order = d0, True, sorted(self.incs)

    def offset_at(self, i: int) -> int:
        """p's value before instruction i runs, as an offset from its first value."""
        return self.step * bisect.bisect_left(self.order, i)

    def word(self, i: int, op) -> int | None:
        """The offset from p's first value of the word that operand `op` of instruction i names
        through p (None: not through p)."""
        if isinstance(op, Inc) and op.reg == self.p:
            return self.incs.get(i)
        if isinstance(op, Ind) and op.reg == self.p:
            return self.offset_at(i)
        if isinstance(op, Mem) and op.base == self.p and isinstance(op.disp, int):
            return self.offset_at(i) + op.disp
        return None


def _flow(fn: MFunction, target: Target) -> tuple[list[int], list[int]]:
    """(the labels, branches and calls of `fn`, its returns), as instruction indices."""
    marks, rets = [], []
    for i, x in enumerate(fn.insts):
        if x.mn == "label":
            marks.append(i)
        elif x.mn != "comment":
            d = target.desc(x)
            if d.branch == "ret":
                rets.append(i)
            elif d.branch or d.memory == "call":
                marks.append(i)
    return marks, rets


def possible(fn: MFunction, target: Target) -> bool:
    """Whether `fn` has the shape at all, cheaply: a word loaded through a pointer register
    before its first label, branch or call and a word stored through that register after its
    last one (the pipeline allocates a function twice only then)."""
    mv = target.move_mn
    marks, _ = _flow(fn, target)
    if not marks:
        return False
    loaded = {_base(x.ops[0]) for x in fn.insts[:marks[0]] if x.mn == mv and isinstance(x.ops[1], R)}
    stored = {_base(x.ops[1]) for x in fn.insts[marks[-1]:] if x.mn == mv and isinstance(x.ops[0], R)}
    return any(p is not None and is_vreg(p) for p in loaded & stored)


def _base(op) -> int | None:
    """The pointer register of a memory operand (None for any other operand)."""
    if isinstance(op, Mem):
        return op.base
    return op.reg if isinstance(op, (Ind, Inc)) else None


def find(fn: MFunction, target: Target, groups: list[list[int]], spilled: set[int],
         taken: set) -> tuple[dict[int, tuple[int, int]], set[int]]:
    """The write-back homes of `groups` (index -> (pointer vreg, word offset from its first
    value)) and the spilled pointers to keep in registers for them (see the module docstring).
    `taken`: the memory operands other groups live in (the allocator's homes, kept up to date)."""
    insts = fn.insts
    barriers, rets = _flow(fn, target)
    if not barriers or not rets or any(target.desc(insts[i]).memory == "call" for i in barriers):
        return {}, set()
    first_barrier, last_barrier = barriers[0], barriers[-1]
    refs: dict[int, list[int]] = {}
    for i, inst in enumerate(insts):
        if inst.mn not in ("label", "comment"):
            for o in inst.ops:
                for r in regs_in(o):
                    refs.setdefault(r, []).append(i)
    defs_at = _defs(fn, target)
    mv = target.move_mn
    pointers: dict[int, _Pointer] = {}
    found: dict[int, tuple[int, int]] = {}
    for gi, group in enumerate(groups):
        members = set(group)
        sites = sorted({i for m in group for i in refs.get(m, ())})
        if len(sites) < 2:
            continue
        lo, hi = sites[0], sites[-1]
        load, store = insts[lo], insts[hi]
        if not (lo < first_barrier and last_barrier < hi < rets[0] and load.mn == mv and store.mn == mv):
            continue
        if not (isinstance(load.ops[1], R) and load.ops[1].reg in members
                and isinstance(store.ops[0], R) and store.ops[0].reg in members):
            continue
        src, dst = load.ops[0], store.ops[1]
        p = _base(src)
        if p is None or not is_vreg(p) or p in members:
            continue
        if p not in pointers:
            pointers[p] = _Pointer(fn, target, p, first_barrier, defs_at)
        ptr = pointers[p]
        if not ptr.ok or ptr.d0 > lo:
            continue
        word = ptr.word(lo, src)
        if word is None or ptr.word(hi, dst) != word or Mem(p, word) in taken:
            continue
        if _clear(fn, target, ptr, word, lo, hi):
            found[gi] = (p, word)
            taken.add(Mem(p, word))
    keep: set[int] = set()
    for p in {p for p, _ in found.values()}:
        n = sum(1 for q, _ in found.values() if q == p)
        if p in spilled and n < MIN_HOMES:
            for gi in [g for g, (q, _) in found.items() if q == p]:
                taken.discard(Mem(*found.pop(gi)))
        elif p in spilled:
            keep.add(p)
    return found, keep


def _clear(fn: MFunction, target: Target, ptr: _Pointer, word: int, lo: int, hi: int) -> bool:
    """Whether nothing but the group's load and store touches memory that may be the word
    `word` through the pointer from the pointer's definition to the end (see the module
    docstring): frame words, symbol-named tables read, other words through the pointer. (A
    function with a call has no homes at all: `find` rejects it first.)"""
    wb = target.word_bytes
    for i in range(ptr.d0 + 1, len(fn.insts)):
        if i in (lo, hi):
            continue
        inst = fn.insts[i]
        if inst.mn in ("label", "comment"):
            continue
        d = target.desc(inst)
        for k, o in enumerate(inst.ops):
            if not isinstance(o, (Mem, Ind, Inc)) or frame_kind(o) is not None:
                continue
            w = ptr.word(i, o)
            if w is not None:
                if abs(w - word) < wb:
                    return False
                continue
            if isinstance(o, Mem) and isinstance(o.disp, str) and k not in d.writes:
                continue            # a constant table, read
            return False
    return True


def normalize_pointer(fn: MFunction, target: Target, p: int) -> None:
    """Post-increment reads through p become reads at their offset from p's first value, and
    every later operand through p is re-based on that value (p then keeps one value)."""
    ptr = _Pointer(fn, target, p, len(fn.insts), _defs(fn, target))
    if not ptr.incs:
        return
    for i, inst in enumerate(fn.insts):
        if inst.mn in ("label", "comment"):
            continue
        new = []
        for o in inst.ops:
            w = ptr.word(i, o)
            new.append(Mem(p, w) if w is not None else o)
        inst.ops = new


def _defs(fn: MFunction, target: Target) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for i, inst in enumerate(fn.insts):
        if inst.mn in ("label", "comment"):
            continue
        for r in defs_uses(inst, target)[0]:
            out.setdefault(r, []).append(i)
    return out
