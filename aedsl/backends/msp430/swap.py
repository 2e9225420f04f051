"""Byte-swap cancellation on MSP430 machine IR (before register allocation).

Why: a big-endian u128 lives in little-endian 16-bit limbs, so every limb that comes from or goes
to memory in byte order (a word load of a block, the AES128 module's FIFOs, a word store) passes
through a `swpb`. Between two such ends the value often only meets bytewise operations (xor, and,
bis, bic, copies), and `swpb(a) op swpb(b) == swpb(a op b)` for those. CTR's `C = M ^ E(T)` and
CCM's `S = M ^ Y` then need no swap at all.

How: each virtual register is either *plain* or *pending* (it holds the byte-swap of the value the
program means). A `swpb v` is deleted and toggles v. A bytewise op whose operands are all pending
(immediates are swapped at compile time) keeps its result pending; a copy copies the state. Any
other read of a pending register first re-inserts `swpb v` there (the *materialisation*). A
bytewise op whose flags are read keeps plain operands (the swap changes N). Across blocks, a
register may stay pending on entry to a block only if it is pending at the end of every
predecessor (and every other successor of those predecessors agrees): a decreasing fixed point
from "everything pending", so loop-carried values (CCM's CBC-MAC state) stay swapped around the
loop. A materialisation is only ever inserted where a deleted `swpb` had made the register
pending, so no path executes more swaps than before; cancelled pairs are the saving.
"""
from __future__ import annotations

from aedsl.codegen.liveness import FLAGS, Cfg, block_liveness, defs_uses
from aedsl.codegen.mir import FIRST_VREG, Imm, MFunction, MInst, R

BYTEWISE = ("xor", "and", "bis", "bic")      # commute with a byte swap of both operands


def _swapped(imm: Imm) -> Imm:
    v = imm.value & 0xFFFF
    return Imm(((v << 8) | (v >> 8)) & 0xFFFF)


def cancel_swaps(mf: MFunction, target, size_mode: bool = False) -> int:
    """Rewrite `mf` in place; returns the number of `swpb` instructions removed (net).
    `size_mode`: of two solutions, the one with fewer swaps in the code wins, not the one with
    fewer executed (weighed by loop depth)."""
    insts = mf.insts
    before = sum(1 for i in insts if i.mn == "swpb")
    if not before:
        return 0
    cfg = Cfg(insts, target)
    du = [defs_uses(i, target, flags=True) for i in insts]
    live_out = block_liveness(cfg, du, lambda r: r >= FIRST_VREG or r == FLAGS)
    nb = len(cfg.blocks)
    live_in = []
    for bi, (a, b) in enumerate(cfg.blocks):
        live = set(live_out[bi])
        for i in range(b - 1, a - 1, -1):
            d, u = du[i]
            live -= set(d)
            live |= set(u)
        live_in.append({r for r in live if r >= FIRST_VREG})
    preds: list[list[int]] = [[] for _ in range(nb)]
    for bi, ss in enumerate(cfg.succ):
        for s in ss:
            preds[s].append(bi)
    start_all = [set() if bi == 0 else set(live_in[bi]) for bi in range(nb)]
    start_rpo = _first_guess(insts, cfg, du, live_out, live_in, preds, target)
    # the fixed point only removes from its start and is not monotone (a deleted `swpb` toggles),
    # so the two starts can end in different solutions: the one with fewer swaps, counted by
    # loop depth (an inner loop's swap runs about ten times as often), is kept; in size mode the
    # one with fewer swaps in the code
    outs = [_solve(insts, cfg, du, live_out, live_in, preds, target, p) for p in (start_all, start_rpo)]
    out = min(outs, key=lambda o: _swap_weight(o)[::-1] if size_mode else _swap_weight(o))
    mf.insts = out
    return before - sum(1 for i in out if i.mn == "swpb")


def _swap_weight(insts: list[MInst]) -> tuple[int, int]:
    swaps = [i for i in insts if i.mn == "swpb"]
    return sum(10 ** min(i.depth, 4) for i in swaps), len(swaps)


def _solve(insts, cfg, du, live_out, live_in, preds, target, p_in: list[set]) -> list[MInst]:
    """The decreasing fixed point from `p_in` (changed in place), and the rewritten function."""
    nb = len(cfg.blocks)

    def keep_set(bi, p_out):
        k = set(p_out)
        for s in cfg.succ[bi]:
            k &= p_in[s] | (p_out - live_in[s])
        return k

    while True:
        p_out = [_run(insts, cfg.blocks[bi], du, live_out[bi], p_in[bi], None, target)[0] for bi in range(nb)]
        changed = False
        for bi in range(1, nb):
            new = set(p_in[bi])
            for p in preds[bi]:
                new &= keep_set(p, p_out[p])
            if new != p_in[bi]:
                p_in[bi] = new
                changed = True
        if not changed:
            break
    out: list[MInst] = []
    for bi in range(nb):
        k = keep_set(bi, p_out[bi])
        out.extend(_run(insts, cfg.blocks[bi], du, live_out[bi], p_in[bi], k, target)[1])
    return out


def _first_guess(insts, cfg, du, live_out, live_in, preds, target) -> list[set]:
    """A second start for the fixed point: in reverse postorder, a block's entry has a register
    pending when every predecessor already visited ends with it pending (a back edge's source,
    not visited yet, is assumed to agree). From "everything pending" alone, a register whose
    `swpb` a block deletes is lost: pending on entry, the block leaves it plain, its successors
    drop it, and the fixed point, which only removes, never gives it back once the entry turns
    out plain (CCM's message block, loaded in one block and swapped in the next: its eight
    `swpb` were put back before every use, 32 swaps a block in all)."""
    nb = len(cfg.blocks)
    order, seen, stack = [], {0}, [(0, iter(cfg.succ[0]))]
    while stack:                                    # depth-first postorder from the entry
        b, it = stack[-1]
        nxt = next((s for s in it if s not in seen), None)
        if nxt is None:
            order.append(b)
            stack.pop()
        else:
            seen.add(nxt)
            stack.append((nxt, iter(cfg.succ[nxt])))
    p_in = [set() if bi == 0 else set(live_in[bi]) for bi in range(nb)]
    p_out: dict[int, set] = {}
    for bi in reversed(order):
        if bi != 0:
            for p in preds[bi]:
                if p in p_out:
                    p_in[bi] &= p_out[p]
        p_out[bi] = _run(insts, cfg.blocks[bi], du, live_out[bi], p_in[bi], None, target)[0]
    return p_in


def _run(insts, bounds, du, live_out, p_in, keep, target):
    """Walk one block from pending set `p_in`: (pending set at its end, rewritten block). With
    `keep` (the registers to leave pending at the end) the block is rewritten."""
    a, b = bounds
    flags_after = [False] * (b - a)
    live = FLAGS in live_out
    for i in range(b - 1, a - 1, -1):
        flags_after[i - a] = live
        d, u = du[i]
        if FLAGS in d:
            live = False
        if FLAGS in u:
            live = True
    live_after = [None] * (b - a)           # vregs live after each instruction
    live = {r for r in live_out if r >= FIRST_VREG}
    for i in range(b - 1, a - 1, -1):
        live_after[i - a] = live
        d, u = du[i]
        live = (live - set(d)) | {r for r in u if r >= FIRST_VREG}
    pend = set(p_in)
    out: list[MInst] = []

    def wants_pending(t, start):
        """Would a copy t of a pending register stay useful pending? Its next uses in the block
        are swaps, bytewise ops with pending partners or immediates, or a redefinition."""
        for j in range(start, b):
            x = insts[j]
            if x.mn in ("label", "comment"):
                continue
            d, u = du[j]
            if t not in u:
                if t in d:
                    return True
                continue
            if x.mn == "swpb":
                return True
            if x.mn in BYTEWISE and isinstance(x.ops[1], R):
                other = x.ops[0] if x.ops[1].reg == t else x.ops[1]
                if isinstance(other, Imm) or (isinstance(other, R) and other.reg in pend):
                    continue
            if x.mn == "mov" and isinstance(x.ops[1], R) and x.ops[1].reg >= FIRST_VREG:
                continue
            return False
        return t not in live_out

    def materialise(v, at):
        pend.discard(v)
        out.append(MInst("swpb", [R(v)], depth=at.depth, loc=at.loc))

    def vreg(op):
        return isinstance(op, R) and op.reg >= FIRST_VREG

    last = insts[b - 1]
    term = last.mn not in ("label", "comment") and target.desc(last).branch
    for i in range(a, b):
        inst = insts[i]
        if term and i == b - 1:
            break
        mn, ops = inst.mn, inst.ops
        if mn == "swpb" and vreg(ops[0]):
            pend ^= {ops[0].reg}
            continue
        if mn in ("label", "comment"):
            out.append(inst)
            continue
        if mn == "mov" and vreg(ops[1]) and not (isinstance(ops[0], R) and ops[0].reg == ops[1].reg):
            src_p = vreg(ops[0]) and ops[0].reg in pend
            if src_p and ops[0].reg in live_after[i - a] and not wants_pending(ops[1].reg, i + 1):
                materialise(ops[0].reg, inst)       # once, before the copy, not in each copy
                src_p = False
            out.append(inst)
            if src_p:
                pend.add(ops[1].reg)
            else:
                # a full definition; its address registers (if any) are read first
                for r in du[i][1]:
                    if r in pend:
                        out.insert(len(out) - 1, MInst("swpb", [R(r)], depth=inst.depth, loc=inst.loc))
                        pend.discard(r)
                pend.discard(ops[1].reg)
            continue
        if mn in BYTEWISE and vreg(ops[1]) and not (flags_after[i - a] and target.desc(inst).flags_out):
            d = ops[1].reg
            src = ops[0]
            if isinstance(src, Imm):
                if d in pend:
                    inst = MInst(mn, [_swapped(src), ops[1]], depth=inst.depth, loc=inst.loc)
                out.append(inst)
                continue
            if vreg(src):
                sp, dp = src.reg in pend, d in pend
                if sp and not dp:
                    materialise(src.reg, inst)
                elif dp and not sp:
                    materialise(d, inst)
                out.append(inst)
                continue
        # any other instruction: its pending operands are materialised first
        d, u = du[i]
        for r in u:
            if r in pend:
                materialise(r, inst)
        for r in d:
            pend.discard(r)
        out.append(inst)
    p_out = set(pend)
    if keep is not None:
        at = last
        for v in sorted((pend & live_out) - keep):
            materialise(v, at)
    if term:
        out.append(last)
    return p_out, out
