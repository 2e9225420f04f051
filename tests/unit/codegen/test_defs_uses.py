"""`liveness.defs_uses`, the back end's hottest function, against its definition written out
plainly: for every instruction description of both targets and every operand kind in every
position (a register, @Rn, @Rn+, a memory operand with and without a base, an immediate), the
registers written and read, flags included, in the same order."""
import itertools

import pytest

from aedsl import chips
from aedsl.backends.registry import target_for
from aedsl.codegen.liveness import FLAGS, defs_uses
from aedsl.codegen.mir import Imm, Inc, Ind, Mem, MFunction, MInst, R

KINDS = (R(4), Ind(5), Inc(6), Mem(7, 2), Mem(None, 0x200), Imm(3))


def reference(inst, target, flags):
    d = target.desc(inst)
    defs, uses = [], []
    for i, op in enumerate(inst.ops):
        read, written = i in d.reads, i in d.writes
        if read:
            if isinstance(op, (R, Ind)):
                uses.append(op.reg)
            elif isinstance(op, Inc):
                uses += [op.reg]
                defs += [op.reg]
            elif isinstance(op, Mem) and op.base is not None:
                uses.append(op.base)
        if written:
            if isinstance(op, R):
                defs.append(op.reg)
            elif not read and isinstance(op, (Ind, Inc)):
                uses.append(op.reg)
            elif not read and isinstance(op, Mem) and op.base is not None:
                uses.append(op.base)
    if flags and d.flags_in:
        uses.append(FLAGS)
    if flags and d.flags_out:
        defs.append(FLAGS)
    return defs, uses


@pytest.mark.parametrize("chip", ["msp430f1611", "stm32f030"])
def test_defs_uses_is_its_definition(chip):
    c = chips.load(chip)
    target = target_for(c).machine(c, MFunction("f"))
    checked = 0
    for mn, d in sorted(target.instrs.items()):
        n = max(d.reads + d.writes, default=-1) + 2          # one position past the described ones
        for ops in itertools.product(KINDS, repeat=min(n, 3)):
            inst = MInst(mn, list(ops))
            for flags in (False, True):
                assert defs_uses(inst, target, flags) == reference(inst, target, flags), (mn, ops, flags)
                checked += 1
    assert checked > 1000
    assert defs_uses(MInst("label", []), target) == ([], [])
