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
  `lsls a, x, #p; lsrs c, a, #(q - r)`;
- a funnel read by one XOR: `lsls a, x, #p; lsrs b, y, #q; mov a -> f; orrs f, b; ...;
  eors e, f` where a and b have no bit in common (q >= 32 - p: `lsls #p` clears bits 0..p-1,
  `lsrs #q` bits 32-q..31; either shift may come first) and f is read nowhere else ->
  `eors e, a; eors e, b` (an OR of disjoint values is their XOR, and XOR is associative). This
  is a limb of a multi-limb rotation or shift added into a sum (`t ^ (t >>> 19) ^ (t >>> 28)`
  on 64-bit words): the instructions are as many, but each shifted half is added into the
  sum on its own, so the scheduler can make it right before its XOR and the two halves need
  not be live together (one temporary per sum instead of two, the hand-written form).

Preserves the value of every register read later; the flags only where something reads them
(EORS and ORRS set N and Z from their result and leave C: the last XOR of the sum sets them
from the same value as before).
"""
from __future__ import annotations

from collections import Counter

from aedsl.codegen.liveness import defs_uses, flags_dead_after
from aedsl.codegen.mir import Imm, MFunction, MInst, R, is_vreg


def _shift(inst: MInst, mn: str):
    """(dst, src, amount) of `mn dst, src, #amount` on virtual registers, else None."""
    if inst.mn != mn or len(inst.ops) != 3 or not isinstance(inst.ops[2], Imm):
        return None
    d, s = inst.ops[0], inst.ops[1]
    if not (isinstance(d, R) and isinstance(s, R) and is_vreg(d.reg)):
        return None
    return d.reg, s.reg, inst.ops[2].value


def _disjoint(a: tuple, b: tuple) -> bool:
    """Shifts (mnemonic, amount) whose results have no bit in common: one `lsls #p` (bits p..31)
    and one `lsrs #q` (bits 0..31-q) with 32 - q <= p."""
    (ma, na), (mb, nb) = a, b
    if ma == mb:
        return False
    p, q = (na, nb) if ma == "lsls" else (nb, na)
    return 32 - q <= p


def _shift_any(inst: MInst):
    """(mnemonic, dst, src, amount) of an immediate `lsls` or `lsrs` on virtual registers."""
    for mn in ("lsls", "lsrs"):
        sh = _shift(inst, mn)
        if sh:
            return (mn, *sh)
    return None


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

        defs_of: dict[int, list[int]] = {}
        for i, (d, u) in enumerate(du):
            for r in d:
                defs_of.setdefault(r, []).append(i)

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
                        and flags_dead_after(insts, i, target):
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
                            and flags_dead_after(insts, i, target):
                        new = (MInst("lsrs", [inst.ops[0], R(a[0]), Imm(b[2] - c[2])], depth=inst.depth,
                                     loc=inst.loc) if b[2] > c[2] else
                               MInst("mov", [R(a[0]), inst.ops[0]], depth=inst.depth, loc=inst.loc))
                        change = (j, i, new)
            if change is None and inst.mn == "eors":
                change = _funnel_xor(insts, i, du, defs_of, nuse, single, clean_between, target)
            if change is not None and not any(k in changes for k in change[:-1]):
                for k in change[:-2]:
                    changes[k] = None
                changes[change[-2]] = change[-1]
        if not changes:
            return removed
        out = []
        for i, x in enumerate(insts):
            new = changes.get(i, x)
            if isinstance(new, list):
                out += new
            elif new is not None:
                out.append(new)
        removed += len(insts) - len(out)
        mf.insts = out


def _funnel_xor(insts, i, du, defs_of, nuse, single, clean_between, target):
    """The funnel rule at `eors e, f` (insts[i]): (indices of the instructions removed, i, what
    replaces insts[i]), or None. The two shifts move down to their XORs (`lsls a; eors e, a;
    lsrs b; eors e, b`) where nothing between writes their sources or reads the flags and no
    one reads the carry they leave before it is set again."""
    e, f = insts[i].ops
    if not (isinstance(f, R) and is_vreg(f.reg) and isinstance(e, R) and e.reg != f.reg):
        return None
    f = f.reg
    where = defs_of.get(f, [])
    if len(where) != 2 or nuse[f] != 2:
        return None
    m, j = where
    mov, orr = insts[m], insts[j]
    if not (mov.mn == "mov" and orr.mn == "orrs" and m < j < i and orr.ops[0] == R(f)
            and isinstance(mov.ops[0], R) and isinstance(orr.ops[1], R)):
        return None
    a, b = mov.ops[0].reg, orr.ops[1].reg
    if a == b or not (single(a) and single(b)):
        return None
    da, db = defs_of[a][0], defs_of[b][0]
    sa, sb = _shift_any(insts[da]), _shift_any(insts[db])
    if not (sa and sb and da < m and db < j and _disjoint((sa[0], sa[3]), (sb[0], sb[3]))):
        return None
    if not (clean_between(da, i, sa[2]) and clean_between(db, i, sb[2])
            and flags_dead_after(insts, i, target)):
        return None
    at = dict(depth=insts[i].depth, loc=insts[i].loc)
    new = [insts[da], MInst("eors", [e, R(a)], **at), insts[db], MInst("eors", [e, R(b)], **at)]
    return (da, db, m, j, i, new)
