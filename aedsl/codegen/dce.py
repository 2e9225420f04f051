"""Dead-code elimination on machine IR: drop instructions whose every result (registers, the
condition flags, spill slots) is dead and that write no other memory. Selection emits freely
(e.g. a lazy load materialised before a store although nothing reads it again), and spill code
stores a value to its slot after every definition although a later definition may overwrite it
before any reload; this pass cleans up.

Spill slots (`Frame("slot", k)` operands: frame words only the allocator's spill code reaches)
are tracked like registers: a whole-word copy into the slot defines it, any other access reads
it (a byte of it, a read-modify-write); a store to a slot that no path reads again is dead."""
from __future__ import annotations

from .liveness import FLAGS, Cfg, block_liveness, defs_uses
from .mir import Inc, Mem, MFunction, R, frame_kind, is_vreg
from .target import Target


def _slot(op) -> int | None:
    """The pseudo-register standing for a spill slot operand (FLAGS - 1 - k), else None."""
    if frame_kind(op) == "slot":
        return FLAGS - 1 - op.disp.key
    return None


def _slot_defs_uses(inst, target: Target, move_mn: str) -> tuple[list[int], list[int]]:
    if inst.mn in ("label", "comment"):
        return [], []
    d = target.desc(inst)
    defs: list[int] = []
    uses: list[int] = []
    for i, op in enumerate(inst.ops):
        s = _slot(op)
        if s is None:
            continue
        whole = inst.mn == move_mn and i in d.writes and i not in d.reads and op.disp.extra == 0
        if whole:
            defs.append(s)
        else:
            uses.append(s)
            if i in d.writes:
                defs.append(s)
    return defs, uses


def eliminate(fn: MFunction, target: Target, max_rounds: int = 10, extra=()) -> int:
    removed_total = 0
    alloc = set(target.allocatable) | set(extra)

    def relevant(r):
        return r <= FLAGS or is_vreg(r) or r in alloc

    slot_move = target.move(R(0), target.spill_operand(0)).mn

    def du_of(inst):
        d, u = defs_uses(inst, target, flags=True)
        sd, su = _slot_defs_uses(inst, target, slot_move)
        return d + sd, u + su

    for _ in range(max_rounds):
        insts = fn.insts
        cfg = Cfg(insts, target)
        du = [du_of(i) for i in insts]
        live_out = block_liveness(cfg, du, relevant)
        dead = set()
        for bi, (a, b) in enumerate(cfg.blocks):
            live = set(live_out[bi])
            for i in range(b - 1, a - 1, -1):
                inst = insts[i]
                d, u = du[i]
                if inst.mn not in ("label", "comment"):
                    desc = target.desc(inst)
                    writes_mem = any(isinstance(inst.ops[k], Mem) and _slot(inst.ops[k]) is None
                                     for k in desc.writes if k < len(inst.ops))
                    side = (desc.branch or desc.pseudo or writes_mem or not desc.writes and not desc.flags_out
                            or any(isinstance(o, Inc) for o in inst.ops))
                    if not side and d and all(relevant(r) and r not in live for r in d):
                        dead.add(i)
                        continue
                live.difference_update(d)
                live.update(r for r in u if relevant(r))
        if not dead:
            break
        removed_total += len(dead)
        fn.insts = [x for i, x in enumerate(insts) if i not in dead]
    return removed_total
