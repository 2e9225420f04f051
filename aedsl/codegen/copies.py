"""Redundant-move elimination after register allocation (target-neutral: reads InstrDesc).

Shape matched: within one basic block of allocated machine IR, a copy `mov src, dst` (the
target's `move` instruction) whose destination already holds the value of its source. Spill code
and the coalescer's leftovers produce three common cases:

  mov r0, r12 ; mov r12, r0          the second copy moves the value back where it still is
  ldr r0, [sp, #24] ; ... ; ldr r0, [sp, #24]    a spilled pointer reloaded while r0 still has it
  mov #5, r4 ; ... ; mov #5, r4      a constant rematerialised into a register that holds it

Such a copy is deleted. A copy from a stack slot whose value some register already holds is
turned into a register copy when the target's cost model says that is cheaper (a reload from
the stack becomes a register move); so does any other instruction's read of such a slot (a
value stored to its slot and read back while its register still has it). A register copy
whose source got its value by an earlier copy reads the value's first holder instead when that
costs no more (`mov r0, r9 ; mov r7, r0` becomes `mov r0, r9 ; mov r7, r9`), so the
intermediate copy is left dead for DCE.

What is tracked: registers and the frame words the allocator and the ABI own (memory operands
whose displacement is a `Frame` of kind "slot" or "arg": no pointer of the program reaches
them). Knowledge is forgotten at labels (a block boundary), for a register when an instruction
defines it (and for every tracked frame word addressed through it), for a frame word when an
instruction other than the copy writes it, and entirely at a subroutine call. What it preserves:
every register and tracked frame word holds, after each instruction, the value it held before.
"""
from __future__ import annotations

from itertools import count

from .liveness import defs_uses
from .mir import Frame, Imm, Mem, MFunction, MInst, R
from .target import Target

TRACKED_FRAME = ("slot", "arg")


def _mem_key(op):
    if isinstance(op, Mem) and op.base is not None and isinstance(op.disp, Frame) and op.disp.kind in TRACKED_FRAME:
        return ("m", op.base, op.disp)
    return None


def _key(op):
    if isinstance(op, R):
        return ("r", op.reg)
    return _mem_key(op)


def remove_redundant_moves(mf: MFunction, target: Target) -> int:
    """Delete copies whose destination already holds their source's value and turn reloads of a
    value some register holds into cheaper register copies; returns the number of copies
    deleted or rewritten. Runs on allocated code (physical registers, spill slots as frame operands)."""
    move_mn = target.move_mn
    fresh = count()
    vals: dict[tuple, object] = {}
    since: dict[tuple, int] = {}          # when each register/frame word got its current value
    clock = count()
    out: list[MInst] = []
    deleted = 0

    def value_of(op):
        if isinstance(op, Imm):
            return ("imm", op.value)
        k = _key(op)
        if k is None:
            return None
        if k not in vals:
            vals[k] = next(fresh)
        return vals[k]

    def forget_reg(r: int):
        vals.pop(("r", r), None)
        for k in [k for k in vals if k[0] == "m" and k[1] == r]:
            del vals[k]

    def forget_mem_base(base):
        for k in [k for k in vals if k[0] == "m" and k[1] == base]:
            del vals[k]

    for inst in mf.insts:
        if inst.mn == "label":
            vals.clear()
            out.append(inst)
            continue
        if inst.mn == "comment":
            out.append(inst)
            continue
        desc = target.desc(inst)
        is_copy = inst.mn == move_mn and len(inst.ops) == 2
        src_val = dst_key = None
        if is_copy:
            src, dst = inst.ops
            src_val = value_of(src)
            dst_key = _key(dst)
            if src_val is not None and dst_key is not None and vals.get(dst_key) == src_val:
                deleted += 1
                continue
            if src_val is not None and isinstance(dst, R) and isinstance(src, Mem):
                holders = _holders(vals, src_val)
                if holders:
                    old = target.cost(inst)[1]
                    best = min(holders, key=lambda r: (target.cost(MInst(move_mn, [R(r), dst]))[1], r))
                    cand = MInst(move_mn, [R(best), dst], depth=inst.depth, loc=inst.loc)
                    if target.cost(cand)[1] < old:
                        inst = cand
                        deleted += 1
            elif src_val is not None and isinstance(dst, R) and isinstance(src, R):
                holders = _holders(vals, src_val)
                first = min(holders, key=lambda r: (since.get(("r", r), 0), r), default=src.reg)
                if first != src.reg and first != dst.reg:
                    cand = MInst(move_mn, [R(first), dst], depth=inst.depth, loc=inst.loc)
                    if target.cost(cand) <= target.cost(inst):
                        inst = cand
                        deleted += 1
        elif not desc.memory:           # an operation, not a target's load or store form
            inst = _read_from_holder(inst, desc, target, vals)
        defs, _ = defs_uses(inst, target)
        for r in defs:
            forget_reg(r)
        for i in desc.writes:
            op = inst.ops[i] if i < len(inst.ops) else None
            if isinstance(op, Mem):
                k = _mem_key(op)
                if k is not None:
                    vals.pop(k, None)
                else:
                    forget_mem_base(op.base)
            elif op is not None and not isinstance(op, R):
                vals = {k: v for k, v in vals.items() if k[0] != "m"}
        if desc.branch == "call":
            vals.clear()
        if is_copy and dst_key is not None:
            vals[dst_key] = src_val if src_val is not None else next(fresh)
            since[dst_key] = next(clock)
        out.append(inst)
    mf.insts = out
    return deleted


def _holders(vals: dict, value) -> list[int]:
    """The registers holding `value`, in register order."""
    return sorted(k[1] for k, v in vals.items() if v == value and k[0] == "r")


def _read_from_holder(inst: MInst, desc, target: Target, vals: dict) -> MInst:
    """`inst` with each tracked frame word it only reads (a source operand, not a register-only
    position) read from a register that holds the same value, where the cost model says that is
    cheaper (`mov r4, 46(sp) ; ... ; xor 46(sp), r6` reads r4)."""
    for i, op in enumerate(inst.ops):
        k = _mem_key(op)
        if k is None or k not in vals or i not in desc.reads or i in desc.writes or i in desc.reg_only:
            continue
        holders = _holders(vals, vals[k])
        if not holders:
            continue
        ops = list(inst.ops)
        ops[i] = R(holders[0])
        cand = inst.with_ops(ops)
        if target.cost(cand)[1] < target.cost(inst)[1]:
            inst = cand
    return inst
