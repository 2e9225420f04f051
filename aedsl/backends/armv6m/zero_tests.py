"""A compare with zero deleted where the instruction before it set the same flags (ARMv6-M,
after allocation).

Shape matched: `op r, ...; cmp r, #0; b<eq|ne|mi|pl> L`, where `op` writes r and sets N and Z
from the value it writes (every flag-setting data-processing instruction of Thumb-1: ADDS,
SUBS, ANDS, EORS, ORRS, BICS, MVNS, RSBS, ADCS, SBCS, the shifts and rotation, MULS; DDI0432C
A6.7: "N = result<31>; Z = IsZeroBit(result)"), with only comments between, and where nothing
reachable from the compare reads C or V before something sets the flags again (only EQ, NE,
MI and PL conditions, on every path the branches lead to). Selection leaves it where a test
of a value follows the value's computation: a loop's entry test on a scaled bound
(`lsls r0, r0, #3; cmp r0, #0; beq`), an alignment test of two pointers' low bits
(`orrs r1, r0; cmp r1, #0; beq`).

Preserves: N and Z as the compare would have set them (`cmp r, #0` sets N = r<31> and
Z = (r == 0), the same result `op` set them from); C and V differ (CMP #0 sets C = 1, V = 0),
so the rule holds only where no instruction reads them before they are set again.
"""
from __future__ import annotations

from aedsl.codegen.mir import Imm, Lbl, MFunction, R

# Mnemonics (machine IR) that write operand 0 and set N and Z from the value written.
SETS_NZ = frozenset({"adds", "subs", "adds8", "subs8", "ands", "eors", "orrs", "bics", "mvns",
                     "rsbs", "adcs", "sbcs", "lsls", "lsrs", "asrs", "rors", "lslv", "lsrv", "muls"})
# Conditional branches that read N or Z alone.
NZ_BRANCHES = frozenset({"beq", "bne", "bmi", "bpl"})


def _nz_only(insts: list, k: int, labels: dict, target, budget: list) -> bool:
    """Whether every path from insts[k] on reads only N and Z of the current flags before the
    flags are set again (a return or a call ends them). budget: branches left to follow."""
    while k < len(insts):
        x = insts[k]
        if x.mn in ("label", "comment"):
            k += 1
            continue
        d = target.desc(x)
        if d.flags_in and x.mn not in NZ_BRANCHES:
            return False
        if d.branch == "ret":
            return True
        if d.branch in ("cond", "jump"):
            dest = next((op.name for op in x.ops if isinstance(op, Lbl)), None)
            if dest not in labels or budget[0] == 0:
                return False
            budget[0] -= 1
            if not _nz_only(insts, labels[dest], labels, target, budget):
                return False
            if d.branch == "jump":
                return True
            k += 1
            continue
        if d.flags_out:
            return True
        k += 1
    return True


def delete_zero_tests(mf: MFunction, target) -> int:
    """Delete the compares described above; returns how many."""
    insts = mf.insts
    labels = {x.ops[0].name: k for k, x in enumerate(insts) if x.mn == "label"}
    gone = set()
    for k, x in enumerate(insts):
        if not (x.mn == "cmpi" and x.ops[1] == Imm(0) and isinstance(x.ops[0], R)):
            continue
        j = k - 1
        while j >= 0 and insts[j].mn == "comment":
            j -= 1
        if j < 0 or insts[j].mn not in SETS_NZ or insts[j].ops[0] != x.ops[0]:
            continue
        if _nz_only(insts, k + 1, labels, target, [8]):
            gone.add(id(x))
    if gone:
        mf.insts = [x for x in insts if id(x) not in gone]
    return len(gone)
