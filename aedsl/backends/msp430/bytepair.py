"""Both bytes of a word taken apart in three instructions (MSP430 machine IR, before register
allocation).

Selection takes the high byte of a word X as `mov X, T; swpb T; mov.b T, T` (a copy, because X
is still needed) and, later in the block, the low byte as `mov.b X, L`. When that is X's last
read, the two become `mov.b X, L; xor L, X; swpb X` at the first one's place: L is the low
byte, X ^ L clears X's low byte and `swpb` brings the high byte down (its upper byte zero, as
`mov.b` leaves it), and X then holds what T held. Four instructions become three; no register
is live longer (X was live up to the low byte's read, L now from the high byte's). S-box layers
read every byte of a word so (SKINNY, PHOTON, Spongent's byte tables, AES).

Preserves every value: T's readers read X, which holds the same value; L is made earlier from
the same X, which nothing writes in between. The inserted `xor` sets the flags, so the flags
must be dead there (rewritten before anything reads them); `mov.b` and `swpb` keep them.
"""
from __future__ import annotations

from aedsl.codegen.liveness import FLAGS, Cfg, block_liveness, defs_uses, live_after
from aedsl.codegen.mir import MFunction, MInst, R, is_vreg
from aedsl.codegen.regalloc import copy_regs
from aedsl.codegen.rename import rename_reads


def split_byte_pairs(mf: MFunction, target) -> int:
    """Rewrite the pairs described above; returns how many."""
    insts = mf.insts
    if not any(i.mn == "swpb" for i in insts):
        return 0
    du = [defs_uses(i, target, flags=True) for i in insts]
    cfg = Cfg(insts, target)
    live_out = block_liveness(cfg, du, lambda r: True)
    writes: dict[int, list[int]] = {}
    reads: dict[int, list[int]] = {}
    for k, (d, u) in enumerate(du):
        for r in d:
            writes.setdefault(r, []).append(k)
        for r in u:
            reads.setdefault(r, []).append(k)
    done = 0
    touched: set[int] = set()                 # registers a rewrite changed the reads of
    for bi, (a, b) in enumerate(cfg.blocks):
        after = live_after(du, a, b, live_out[bi])
        for i in range(a, b - 2):
            x, t = _high_byte(insts, i, target)
            if x is None or not (is_vreg(x) and is_vreg(t)) or {x, t} & touched:
                continue
            j = next((k for k in range(i + 3, b) if x in du[k][1] or x in du[k][0]), None)
            if j is None:
                continue
            low, gone = _low_byte(insts, j, x)
            if (low is None or low in touched or gone[-1] >= b or x in after[gone[0]]
                    or writes.get(t) != [i, i + 1, i + 2] or writes.get(low) != gone
                    or any(k < gone[-1] for k in reads.get(low, ()))
                    or _call_between(insts, i, j, target) or FLAGS in after[i + 1]
                    or any(k < i for k in reads.get(t, ()))
                    or any(k > gone[-1] and k <= max(reads.get(t, [0])) for k in writes.get(x, ()))):
                continue                # (last two: T read before it is made, X written again
                                        # while T is still read)
            first = insts[gone[0]].with_ops([R(x), R(low)])
            first.mn, first.depth = "mov.b", insts[i].depth
            clear = insts[i + 1].with_ops([R(low), R(x)])
            clear.mn = "xor"
            down = insts[i + 2].with_ops([R(x)])
            down.mn = "swpb"
            insts[i:i + 3] = [first, clear, down]
            for k in gone:
                insts[k] = MInst("comment", [])
            for k in reads.get(t, ()):
                if k > i + 2:                 # (T is written at i .. i + 2 only)
                    insts[k] = rename_reads(insts[k], target, t, x)
            touched.update((x, t, low))
            done += 1
    if done:
        mf.insts = [i for i in insts if not (i.mn == "comment" and not i.ops)]
    return done


def _high_byte(insts, i, target):
    """(X, T) if insts[i:i+3] is `mov X, T; swpb T; mov.b T, T`, else (None, None)."""
    a, b, c = insts[i:i + 3]
    cp = copy_regs(a, target)
    if cp is None:
        return None, None
    x, t = cp
    if x == t or b.mn != "swpb" or b.ops != [R(t)] or c.mn != "mov.b" or c.ops != [R(t), R(t)]:
        return None, None
    return x, t


def _low_byte(insts, j: int, x: int):
    """(L, indices) if insts[j] takes X's low byte into a fresh L: `mov.b X, L`, or `mov X, L;
    mov.b L, L`; else (None, None)."""
    a = insts[j]
    if a is None or len(a.ops) != 2 or a.ops[0] != R(x) or not isinstance(a.ops[1], R) \
            or not is_vreg(a.ops[1].reg):
        return None, None
    low = a.ops[1].reg
    if a.mn == "mov.b":
        return low, [j]
    b = insts[j + 1] if j + 1 < len(insts) else None
    if a.mn == "mov" and b is not None and b.mn == "mov.b" and b.ops == [R(low), R(low)]:
        return low, [j, j + 1]
    return None, None


def _call_between(insts, i: int, j: int, target) -> bool:
    """A call between i and j (the rewrite moves a read of X across it)."""
    return any(insts[k].mn != "comment" and target.desc(insts[k]).memory == "call" for k in range(i, j))

