"""Jumps to the next instruction deleted (after the MIR passes; target-neutral: reads InstrDesc).

Shape matched: an unconditional jump whose target label comes next, with only labels and
comments between. Structured lowering leaves one where a region is empty or ends where the
code after it begins: a loop's exit branch to a `jmp` past an `if`'s empty other arm, so
every message with associated data took a taken branch to the next address (Ascon-128's
associated-data loop on ARMv6-M: `bcs .Ldone; .. .Ldone: b .Lendif; .Lendif:`).

Preserves: every path executes the same other instructions in the same order (the jump
transfers to where execution falls through anyway); a jump sets no register or flag.
"""
from __future__ import annotations

from .mir import Lbl, MFunction
from .target import Target


def remove_jumps_to_next(mf: MFunction, target: Target) -> int:
    """Delete the jumps described above; returns how many."""
    insts = mf.insts
    keep = []
    removed = 0
    for i, inst in enumerate(insts):
        if inst.mn not in ("label", "comment") and target.desc(inst).branch == "jump":
            dest = next((op.name for op in inst.ops if isinstance(op, Lbl)), None)
            following = set()
            for nxt in insts[i + 1:]:
                if nxt.mn == "label":
                    following.add(nxt.ops[0].name)
                elif nxt.mn != "comment":
                    break
            if dest is not None and dest in following:
                removed += 1
                continue
        keep.append(inst)
    mf.insts = keep
    return removed
