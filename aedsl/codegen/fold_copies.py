"""Copies folded into their only reader (after register allocation; target-neutral: reads
InstrDesc and the cost model).

Shape matched: within one basic block of allocated machine IR, a copy `move S, t` (the
target's move mnemonic, which sets no flags, or an instruction its table marks as a copy: MSP430's
peripheral read `movio`) into a register t, then instructions that do not
mention t, then the one instruction X that reads t, at one operand position the target does not
reserve for registers and that X does not write, with t dead after X. X then reads S itself and
the copy goes:

  mov 74(sp), r15 ; mov r15, &0x09c8     ->  mov 74(sp), &0x09c8
  mov #5, r15 ; add r15, r12             ->  add #5, r12
  mov @r13+, r14 ; mov r14, 6(sp)        ->  mov @r13+, 6(sp)
  movio &0x09ca, r15 ; mov r15, 118(sp)  ->  mov &0x09ca, 118(sp)   (the AES module's output FIFO)

On a target whose instructions take registers only (ARMv6-M's ALU), nothing but another copy
can read S, and that only where the cost model gives S's form a cost at that position.

Moving the read of S from the copy to X must not change what it reads or what else sees: the
instructions in between write no register S mentions (and, for `@p+`, read none), and if S is
memory they access no memory at all (a peripheral's FIFO read must not pass another access,
nor a load a store). X's other operands must not mention a register `@p+` moves. The rewrite
is taken only where the cost model says X over S costs no more bytes and no more cycles than
the copy and X together, and less of one.

Preserves: X reads the value the copy put in t; t is dead after X, so no other reader saw it;
every other register, memory word and the flags are as before.
"""
from __future__ import annotations

from .liveness import Cfg, block_liveness, defs_uses, live_after
from .mir import Inc, Ind, Mem, MFunction, MInst, R, regs_in
from .target import Target

MAX_GAP = 8                     # instructions searched after the copy for its reader


def _any_memory_access(inst: MInst, target: Target) -> bool:
    d = target.desc(inst)
    return bool(d.memory) or d.branch == "call" or any(isinstance(o, (Mem, Ind, Inc)) for o in inst.ops)


def _cost(inst: MInst, target: Target):
    """(bytes, cycles), or None where the cost model knows no such operand form."""
    try:
        return target.cost(inst)
    except (KeyError, ValueError, TypeError):
        return None


def fold_copies(mf: MFunction, target: Target) -> int:
    """Rewrite in place; returns the number of copies folded."""
    insts = mf.insts
    move_mn = target.move_mn
    cfg = Cfg(insts, target)
    du = [defs_uses(x, target) for x in insts]
    live_out = block_liveness(cfg, du, lambda r: True)
    drop: set[int] = set()
    for bi, (a, b) in enumerate(cfg.blocks):
        after = None
        for i in range(a, b):
            c = insts[i]
            if (c.mn in ("label", "comment") or not (c.mn == move_mn or target.desc(c).copy)
                    or target.desc(c).flags_out or len(c.ops) != 2 or not isinstance(c.ops[1], R)
                    or i in drop):
                continue
            src, t = c.ops[0], c.ops[1].reg
            if isinstance(src, R) and src.reg == t:
                continue
            src_regs = set(regs_in(src))
            moves = src_regs if isinstance(src, Inc) else set()
            in_memory = isinstance(src, (Mem, Ind, Inc))
            for k in range(i + 1, min(b, i + 1 + MAX_GAP)):
                x = insts[k]
                if x.mn in ("label", "comment"):
                    continue
                defs, uses = du[k]
                if t in uses or t in defs:
                    if after is None:
                        after = live_after(du, a, b, live_out[bi])
                    pos = [p for p, o in enumerate(x.ops) if t in regs_in(o)]
                    d = target.desc(x)
                    if (t in defs or t in after[k] or len(pos) != 1 or not isinstance(x.ops[pos[0]], R)
                            or pos[0] in d.reg_only or pos[0] in d.writes or pos[0] not in d.reads
                            or d.memory or d.branch or k in drop
                            or any(r in moves for o in x.ops for r in regs_in(o))):
                        break
                    ops = list(x.ops)
                    ops[pos[0]] = src
                    new = x.with_ops(ops)
                    old_c, old_x, cost = _cost(c, target), _cost(x, target), _cost(new, target)
                    if None in (old_c, old_x, cost):
                        break
                    was = (old_c[0] + old_x[0], old_c[1] + old_x[1])
                    if cost[0] <= was[0] and cost[1] <= was[1] and cost != was:
                        insts[k] = new
                        du[k] = defs_uses(new, target)
                        drop.add(i)
                    break
                if any(r in src_regs for r in defs) or any(r in moves for r in uses):
                    break
                if in_memory and _any_memory_access(x, target):
                    break
    if drop:
        mf.insts = [x for j, x in enumerate(insts) if j not in drop]
    return len(drop)
