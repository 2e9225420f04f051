"""Delay-slot list scheduling of machine IR around accelerator operations (step 2 of the package
docstring), before register allocation.

Every basic block holding an `accel.go` or `accel.wait` is list-scheduled: register, flags and
memory dependences are kept (so the block computes the same), the label and the terminator stay
in place; while an operation is in flight, independent instructions fill its latency.
"""
from __future__ import annotations

from ..liveness import FLAGS, Cfg, block_liveness, defs_uses
from ..mir import Frame, Inc, Ind, Mem, MFunction, MInst, R
from .ports import GO, WAIT, AccelPorts, is_io_inst


def _mem_class(op, ports):
    if ports.is_io(op):
        return ("io",)
    if isinstance(op, Mem):
        if op.base is None:
            return ("abs", op.disp)
        if isinstance(op.disp, Frame):
            return ("frame", op.disp.kind, op.disp.key)
        return ("ptr", op.base)
    if isinstance(op, (Ind, Inc)):
        return ("ptr", op.reg)
    return None


def _may_alias(a, b) -> bool:
    if a[0] == "io" or b[0] == "io":
        return a[0] == b[0]
    if a[0] == "abs" or b[0] == "abs":
        # absolute symbols are the read-only tables; only the same symbol may alias
        return a == b
    if a[0] == "frame" and b[0] == "frame":
        return a[1:] == b[1:]
    if a[0] == "frame" or b[0] == "frame":
        return False                    # pointers from the caller never point into our frame
    return True


def _mem_effects(inst, target, ports):
    reads, writes = [], []
    if inst.mn in ("label", "comment"):
        return reads, writes
    d = target.desc(inst)
    for i, op in enumerate(inst.ops):
        c = _mem_class(op, ports)
        if c is None:
            continue
        if i in d.writes and not isinstance(op, R):
            writes.append(c)
        if i in d.reads:
            reads.append(c)
    if inst.mn in (GO, WAIT):
        reads.append(("io",))
        writes.append(("io",))
    return reads, writes


def schedule_function(mf: MFunction, target, ports: AccelPorts) -> int:
    """List-schedule every basic block holding an accelerator start or wait; returns how many
    blocks were rescheduled."""
    insts = mf.insts
    if not any(i.mn in (GO, WAIT) for i in insts):
        return 0
    cfg = Cfg(insts, target)
    du_f = [defs_uses(i, target, flags=True) for i in insts]
    flags_out = block_liveness(cfg, du_f, lambda r: r == FLAGS)
    out: list[MInst] = []
    n = 0
    for bi, (a, b) in enumerate(cfg.blocks):
        blk = insts[a:b]
        if any(i.mn in (GO, WAIT) for i in blk):
            blk = _schedule_block(blk, du_f[a:b], FLAGS in flags_out[bi], target, ports)
            n += 1
        out.extend(blk)
    mf.insts = out
    return n


def _schedule_block(blk, du, flags_live_out, target, ports):
    n = len(blk)
    head = 1 if blk[0].mn == "label" else 0
    last = blk[-1]
    tail = 1 if last.mn not in ("label", "comment") and target.desc(last).branch else 0
    body = list(range(head, n - tail))
    preds: list[set] = [set() for _ in range(n)]

    def edge(i, j):
        if i != j:
            preds[j].add(i)

    # registers
    last_def: dict = {}
    uses_since: dict = {}
    for i in body:
        d, u = du[i]
        for r in u:
            if r == FLAGS:
                continue
            if r in last_def:
                edge(last_def[r], i)
            uses_since.setdefault(r, []).append(i)
        for r in d:
            if r == FLAGS:
                continue
            if r in last_def:
                edge(last_def[r], i)
            for k in uses_since.get(r, []):
                edge(k, i)
            last_def[r] = i
            uses_since[r] = []
    # flags: live ranges (def .. last reader) keep their order with every clobber
    flag_live = [False] * n
    live = flags_live_out
    for i in range(n - 1, -1, -1):
        d, u = du[i]
        if FLAGS in d:
            flag_live[i] = live
            live = False
        if FLAGS in u:
            flag_live[i] = True
            live = True
    clobbers = [i for i in body if FLAGS in du[i][0]]
    ranged = [i for i in body if flag_live[i] or FLAGS in du[i][1]]
    for i in ranged:
        for c in clobbers:
            if c < i:
                edge(c, i)
            elif c > i:
                edge(i, c)
    # memory
    eff = {i: _mem_effects(blk[i], target, ports) for i in body}
    for ii, i in enumerate(body):
        ri, wi = eff[i]
        for j in body[:ii]:
            rj, wj = eff[j]
            if any(_may_alias(x, y) for x in wi for y in rj + wj) or any(_may_alias(x, y) for x in ri for y in wj):
                edge(j, i)
    # a start follows its trigger write immediately; it is the successor of the last io write
    succs: list[set] = [set() for _ in range(n)]
    for j in body:
        for i in preds[j]:
            succs[i].add(j)
    # ancestors of each start (what the next start needs)
    go_anc: set = set()
    for g in body:
        if blk[g].mn == GO:
            stack = [g]
            while stack:
                x = stack.pop()
                for p in preds[x]:
                    if p not in go_anc:
                        go_anc.add(p)
                        stack.append(p)
    remaining = {i: len(preds[i]) for i in body}
    ready = {i for i in body if remaining[i] == 0}
    order: list[int] = []
    inflight, elapsed = None, 0
    while ready:
        pick = None
        gos = [i for i in ready if blk[i].mn == GO]
        if gos:
            pick = min(gos)
        elif inflight is not None and elapsed < inflight:
            fill = [i for i in ready if blk[i].mn != WAIT and not is_io_inst(blk[i], ports)]
            if fill:
                pick = min(fill, key=lambda i: (i not in go_anc, i))
        if pick is None:
            urgent = [i for i in ready if i in go_anc or blk[i].mn == WAIT or is_io_inst(blk[i], ports)]
            pick = min(urgent) if urgent else min(ready)
        ready.discard(pick)
        order.append(pick)
        inst = blk[pick]
        if inst.mn == GO:
            inflight, elapsed = inst.ops[1].value, 0
        elif inst.mn == WAIT:
            inflight = None
        else:
            elapsed += ports.cycles(inst)
        for s in succs[pick]:
            remaining[s] -= 1
            if remaining[s] == 0:
                ready.add(s)
    if len(order) != len(body):
        raise RuntimeError("scheduler: dependence cycle")
    return blk[:head] + [blk[i] for i in order] + blk[n - tail:]
