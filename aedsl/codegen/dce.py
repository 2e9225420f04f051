"""Dead-code elimination on machine IR: drop instructions whose every result (registers and the
condition flags) is dead and that write no memory. Selection emits freely (e.g. a lazy load
materialised before a store although nothing reads it again); this pass cleans up."""
from __future__ import annotations

from .liveness import FLAGS, Cfg, block_liveness, defs_uses
from .mir import Inc, Mem, MFunction, is_vreg
from .target import Target


def eliminate(fn: MFunction, target: Target, max_rounds: int = 10, extra=()) -> int:
    removed_total = 0
    alloc = set(target.allocatable) | set(extra)

    def relevant(r):
        return r == FLAGS or is_vreg(r) or r in alloc

    for _ in range(max_rounds):
        insts = fn.insts
        cfg = Cfg(insts, target)
        du = [defs_uses(i, target, flags=True) for i in insts]
        live_out = block_liveness(cfg, du, relevant)
        dead = set()
        for bi, (a, b) in enumerate(cfg.blocks):
            live = set(live_out[bi])
            for i in range(b - 1, a - 1, -1):
                inst = insts[i]
                d, u = du[i]
                if inst.mn not in ("label", "comment"):
                    desc = target.desc(inst)
                    writes_mem = any(isinstance(inst.ops[k], Mem) for k in desc.writes if k < len(inst.ops))
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
