"""Combining ARMv6-M instructions on virtual registers, before scheduling and allocation.

Selection builds each value from small pieces (a field is two shifts, an index a further
shift, a 0/1 bit negated into a mask), so adjacent pieces sometimes fold into fewer
instructions. Each rule rewrites a chain whose intermediate virtual register has exactly one
definition and one use, in one basic block, where no instruction in between writes the chain's
source and the condition flags the removed instruction would have set are not read before
they are set again:

- `lsrs a, x, #31; rsbs d, a, #0` (bit 31 of x negated: 0 or all ones) -> `asrs d, x, #31`;
- `lsls a, x, #p; lsrs b, a, #q; lsls c, b, #r` with r <= q <= p (a field moved up by r: the
  bits a right shift by q - r brings below bit r are the zeros lsls #p put there) ->
  `lsls a, x, #p; lsrs c, a, #(q - r)`.

Preserves the value of every register read later; the flags only where something reads them.
"""
from __future__ import annotations

from collections import Counter

from aedsl.codegen.liveness import defs_uses
from aedsl.codegen.mir import Imm, MFunction, MInst, R, is_vreg


def _flags_dead_after(insts: list, i: int, target) -> bool:
    """No instruction after insts[i] reads the flags before one sets them (within the block;
    the block's end counts as a read)."""
    for inst in insts[i + 1:]:
        if inst.mn == "comment":
            continue
        if inst.mn == "label":
            return False
        d = target.desc(inst)
        if d.flags_in or d.branch:
            return False
        if d.flags_out:
            return True
    return False


def _shift(inst: MInst, mn: str):
    """(dst, src, amount) of `mn dst, src, #amount` on virtual registers, else None."""
    if inst.mn != mn or len(inst.ops) != 3 or not isinstance(inst.ops[2], Imm):
        return None
    d, s = inst.ops[0], inst.ops[1]
    if not (isinstance(d, R) and isinstance(s, R) and is_vreg(d.reg)):
        return None
    return d.reg, s.reg, inst.ops[2].value


def combine(mf: MFunction, target) -> int:
    """Apply the rules above until none applies; returns how many instructions were removed."""
    removed = 0
    while True:
        insts = mf.insts
        ndef: Counter = Counter()
        nuse: Counter = Counter()
        def_at: dict[int, int] = {}
        du = [defs_uses(inst, target) for inst in insts]
        for i, (d, u) in enumerate(du):
            for r in d:
                ndef[r] += 1
                def_at[r] = i
            for r in u:
                nuse[r] += 1

        def single(r):
            return is_vreg(r) and ndef[r] == 1 and nuse[r] == 1

        def clean_between(a: int, b: int, src: int) -> bool:
            """insts[a+1 .. b-1]: no label or branch, no write of src, no read of the flags."""
            for k in range(a + 1, b):
                inst = insts[k]
                if inst.mn == "label" or (inst.mn != "comment" and (target.desc(inst).branch
                                                                    or target.desc(inst).flags_in)):
                    return False
                if src in du[k][0]:
                    return False
            return True

        changes: dict[int, MInst | None] = {}
        for i, inst in enumerate(insts):
            change = None
            if inst.mn == "rsbs" and isinstance(inst.ops[1], R) and single(inst.ops[1].reg):
                j = def_at[inst.ops[1].reg]
                sh = _shift(insts[j], "lsrs")
                if sh and sh[2] == 31 and j < i and clean_between(j, i, sh[1]) \
                        and _flags_dead_after(insts, i, target):
                    new = MInst("asrs", [inst.ops[0], R(sh[1]), Imm(31)], depth=inst.depth, loc=inst.loc)
                    change = (j, i, new)
            c = _shift(inst, "lsls")
            if c and single(c[1]):
                j = def_at[c[1]]
                b = _shift(insts[j], "lsrs")
                if b and j < i and single(b[1]):
                    k = def_at[b[1]]
                    a = _shift(insts[k], "lsls")
                    if a and k < j and c[2] <= b[2] <= a[2] and clean_between(j, i, b[1]) \
                            and _flags_dead_after(insts, i, target):
                        new = (MInst("lsrs", [inst.ops[0], R(a[0]), Imm(b[2] - c[2])], depth=inst.depth,
                                     loc=inst.loc) if b[2] > c[2] else
                               MInst("mov", [R(a[0]), inst.ops[0]], depth=inst.depth, loc=inst.loc))
                        change = (j, i, new)
            if change is not None and change[0] not in changes and change[1] not in changes:
                changes[change[0]] = None
                changes[change[1]] = change[2]
        if not changes:
            return removed
        mf.insts = [changes.get(i, x) for i, x in enumerate(insts) if changes.get(i, x) is not None]
        removed += sum(1 for x in changes.values() if x is None)
