"""Accelerator waits after register allocation (step 3 of the package docstring).

A wait whose start is followed, on every path, by enough instruction cycles to cover the
operation's latency is deleted; any other becomes the target's poll loop. Runs on the final
instructions (spill code only adds cycles), so the decision holds for the emitted code.
"""
from __future__ import annotations

import heapq

from ..mir import Lbl, MInst
from .ports import GO, WAIT, AccelPorts, is_io_inst


def covered_cycles(insts: list[MInst], go_index: int, wait_index: int, target, ports) -> int | None:
    """Minimum over all paths from the start (`go_index`) to the first accelerator access after
    the wait of the summed cycles (start excluded, that access included); None if unreachable."""
    labels = {inst.ops[0].name: k for k, inst in enumerate(insts) if inst.mn == "label"}
    # the first io access at or after the wait (same block: the scheduler keeps reads after it)
    end = wait_index
    while end < len(insts) and not is_io_inst(insts[end], ports):
        end += 1
    if end == len(insts):
        return None
    best = {go_index + 1: 0}
    heap = [(0, go_index + 1)]
    while heap:
        c, k = heapq.heappop(heap)
        if c > best.get(k, 1 << 60) or k >= len(insts):
            continue
        inst = insts[k]
        if k > wait_index and k == end:
            return c + ports.cycles(inst)
        if inst.mn == GO:
            continue
        cost = 0 if inst.mn in ("label", "comment", WAIT) else ports.cycles(inst)
        nxt = []
        kind = target.desc(inst).branch if inst.mn not in ("label", "comment") else None
        if kind in ("jump", "cond"):
            nxt.append(labels[next(o for o in inst.ops if isinstance(o, Lbl)).name])
        if kind not in ("jump", "ret"):
            nxt.append(k + 1)
        for m in nxt:
            if c + cost < best.get(m, 1 << 60):
                best[m] = c + cost
                heapq.heappush(heap, (c + cost, m))
    return None


def finalize_waits(mf_name: str, insts: list[MInst], target, ports: AccelPorts, make_label) -> tuple[list[MInst], list[dict]]:
    """Remove covered waits, expand the others into polls; returns (instructions, report) where
    the report has one dict per wait: id, latency, covered (cycles or None), poll (bool)."""
    if not any(i.mn in (GO, WAIT) for i in insts):
        return insts, []
    gos = {inst.ops[0].value: k for k, inst in enumerate(insts) if inst.mn == GO}
    report, decisions = [], {}
    for k, inst in enumerate(insts):
        if inst.mn != WAIT:
            continue
        ident = inst.ops[0].value
        g = gos[ident]
        lat = insts[g].ops[1].value
        cov = covered_cycles(insts, g, k, target, ports)
        poll = cov is None or cov < lat
        decisions[k] = poll
        report.append({"function": mf_name, "id": ident, "latency": lat, "covered": cov, "poll": poll})
    out: list[MInst] = []
    for k, inst in enumerate(insts):
        if inst.mn == GO:
            continue
        if inst.mn == WAIT:
            if decisions[k]:
                out.extend(ports.expand_wait(make_label, inst))
            continue
        out.append(inst)
    return out, report
