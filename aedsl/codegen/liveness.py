"""Basic blocks, def/use sets and liveness over machine IR (target-neutral: reads InstrDesc)."""
from __future__ import annotations

from .mir import Inc, Ind, Lbl, Mem, MInst, R
from .target import Target


FLAGS = -1   # pseudo-register standing for the condition flags (dead-code elimination, scheduling)


_PLANS: dict[int, tuple] = {}       # id(InstrDesc) -> (the desc, its plan)


def _plan(d) -> tuple[int, ...]:
    """Per operand position of an instruction described by `d`: 1 read, 2 written, 3 both, 0
    neither (positions past the last one `d` names are neither)."""
    p = _PLANS.get(id(d))
    if p is None or p[0] is not d:
        n = max(d.reads + d.writes, default=-1) + 1
        p = _PLANS[id(d)] = (d, tuple((i in d.reads) | (i in d.writes) << 1 for i in range(n)))
    return p[1]


def defs_uses(inst: MInst, target: Target, flags: bool = False) -> tuple[list[int], list[int]]:
    """Registers written and read by `inst` (a memory operand's base is read; @Rn+ both);
    with `flags`, the condition flags as register FLAGS. (The hottest function of the back end:
    each description's read/write positions are a plan made once, and operands are told apart
    by exact type, as `regs_in` does by class.)"""
    mn = inst.mn
    if mn == "label" or mn == "comment":
        return [], []
    d = target.desc(inst)
    defs: list[int] = []
    uses: list[int] = []
    for code, op in zip(_plan(d), inst.ops):
        if not code:
            continue
        t = type(op)
        if code & 1:
            if t is R or t is Ind:
                uses.append(op.reg)
            elif t is Inc:
                uses.append(op.reg)
                defs.append(op.reg)
            elif t is Mem and op.base is not None:
                uses.append(op.base)
            if code & 2 and t is R:
                defs.append(op.reg)
        elif t is R:
            defs.append(op.reg)
        elif t is Ind or t is Inc:
            uses.append(op.reg)
        elif t is Mem and op.base is not None:
            uses.append(op.base)
    if flags:
        if d.flags_in:
            uses.append(FLAGS)
        if d.flags_out:
            defs.append(FLAGS)
    return defs, uses


class Cfg:
    """Blocks as index ranges [start, end) of the instruction list, with successors."""

    def __init__(self, insts: list[MInst], target: Target):
        self.insts = insts
        starts = {0}
        labels: dict[str, int] = {}
        for i, inst in enumerate(insts):
            if inst.mn == "label":
                starts.add(i)
            elif inst.mn != "comment" and target.desc(inst).branch:
                starts.add(i + 1)
        bounds = sorted(s for s in starts if s <= len(insts))
        if bounds[-1] != len(insts):
            bounds.append(len(insts))
        self.blocks = [(a, b) for a, b in zip(bounds, bounds[1:]) if a < b]
        for bi, (a, b) in enumerate(self.blocks):
            if insts[a].mn == "label":
                labels[insts[a].ops[0].name] = bi
        self.succ: list[list[int]] = []
        for bi, (a, b) in enumerate(self.blocks):
            last = insts[b - 1]
            kind = target.desc(last).branch if last.mn not in ("label", "comment") else None
            s = []
            if kind in ("jump", "cond"):
                tgt = next(op for op in last.ops if isinstance(op, Lbl))
                s.append(labels[tgt.name])
            if kind not in ("jump", "ret") and bi + 1 < len(self.blocks):
                s.append(bi + 1)
            self.succ.append(s)


def block_liveness(cfg: Cfg, du: list[tuple[list[int], list[int]]], relevant) -> list[set[int]]:
    """live-out set of each block (registers for which relevant(reg) holds)."""
    n = len(cfg.blocks)
    gen: list[set[int]] = []
    kill: list[set[int]] = []
    for a, b in cfg.blocks:
        g: set[int] = set()
        k: set[int] = set()
        for i in range(a, b):
            d, u = du[i]
            for r in u:
                if relevant(r) and r not in k:
                    g.add(r)
            for r in d:
                if relevant(r):
                    k.add(r)
        gen.append(g)
        kill.append(k)
    live_in = [set() for _ in range(n)]
    live_out = [set() for _ in range(n)]
    changed = True
    while changed:
        changed = False
        for bi in reversed(range(n)):
            out: set[int] = set()
            for s in cfg.succ[bi]:
                out |= live_in[s]
            inn = gen[bi] | (out - kill[bi])
            if out != live_out[bi] or inn != live_in[bi]:
                live_out[bi], live_in[bi] = out, inn
                changed = True
    return live_out


def live_after(du: list[tuple[list[int], list[int]]], a: int, b: int, live_out: set[int],
               relevant=lambda r: True) -> dict[int, set[int]]:
    """The registers live after each instruction k of the block [a, b) (those for which
    relevant(reg) holds), from the block's live-out set: {k: set}."""
    live = set(live_out)
    after: dict[int, set[int]] = {}
    for k in range(b - 1, a - 1, -1):
        after[k] = set(live)
        d, u = du[k]
        live.difference_update(d)
        live.update(r for r in u if relevant(r))
    return after


def flags_dead_after(insts: list[MInst], i: int, target: Target, end: int | None = None) -> bool:
    """No instruction of insts[i+1:end] (to the list's end by default) reads the condition flags
    before one sets them; a label, a branch or `end` counts as a read (the flags may be live
    into the next block)."""
    for inst in insts[i + 1:end]:
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


def loop_depths(insts: list[MInst]) -> list[int]:
    return [inst.depth for inst in insts]
