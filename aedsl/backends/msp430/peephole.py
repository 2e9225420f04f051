"""Peephole rewrites on MSP430 machine IR (before register allocation).

`autoincrement`: a walking pointer p (see `walker_setup` in select/memory.py) read as `0(p),
2(p), ..., K-2(p)` in that order by word instructions and then advanced by `add #K, p`, with no other
reference to p in between, becomes `@p+` in each of those reads and the `add` disappears:
`xor @p+, r8` costs 2 cycles and one word where `xor 2(p), r8` costs 3 and two.
"""
from __future__ import annotations

from aedsl.codegen.mir import Frame, Imm, Inc, Ind, Lbl, Mem, MFunction, R, is_vreg, regs_in


def _refs(inst, reg: int) -> bool:
    return any(reg in regs_in(o) for o in inst.ops if not isinstance(o, Lbl))


def _read_disp(inst, p: int) -> int | None:
    """The displacement of `inst`'s source read through p (`@p` = 0, `k(p)` = k), if it is a
    word read that an `@p+` can replace: a two-operand, non-byte instruction whose destination
    does not mention p. None otherwise."""
    src = inst.ops[0] if inst.ops else None
    disp = 0 if isinstance(src, Ind) and src.reg == p else (
        src.disp if isinstance(src, Mem) and src.base == p and isinstance(src.disp, int) else None)
    if (disp is None or len(inst.ops) != 2 or inst.mn.endswith(".b") or inst.mn.startswith("movb")
            or any(p in regs_in(o) for o in inst.ops[1:])):
        return None
    return disp


def autoincrement(mf: MFunction, pointers: set[int]) -> int:
    """Rewrite in place; returns the number of `add`s removed."""
    insts = mf.insts
    removed = 0
    i = 0
    while i < len(insts):
        inst = insts[i]
        if not (inst.mn == "add" and isinstance(inst.ops[0], Imm) and isinstance(inst.ops[1], R)
                and inst.ops[1].reg in pointers and 0 < inst.ops[0].value < 0x8000
                and inst.ops[0].value % 2 == 0):
            i += 1
            continue
        p, k = inst.ops[1].reg, inst.ops[0].value
        uses = []                      # (instruction index) of reads of p, latest first
        j = i - 1
        ok = True
        while j >= 0:
            x = insts[j]
            if x.mn == "label" or (x.mn not in ("comment",) and x.mn.startswith("j")) or x.mn == "ret":
                break                  # block start: only straight-line code
            if _refs(x, p):
                disp = _read_disp(x, p)
                if disp is None:
                    ok = False
                    break
                uses.append((j, disp))
            j -= 1
        uses.reverse()
        if ok and uses and [d for _, d in uses] == list(range(0, k, 2)):
            for jj, _ in uses:
                insts[jj].ops[0] = Inc(p)
            del insts[i]
            removed += 1
            continue
        i += 1
    return removed


def count_down(mf: MFunction, loops: list) -> int:
    """A counted loop whose index is used by nothing but its own increment and exit test (the
    body reads memory through walking pointers) counts its trips down instead:
    `add #k, i; cmp #hi, i; jnc top` (5 cycles) becomes `dec i; jnz top` (3 cycles).
    loops: (index vreg, increment inst, compare inst, jump inst, trip count)."""
    done = 0
    for reg, inc, cmp, jump, trips in loops:
        refs = [x for x in mf.insts if x.mn not in ("label", "comment") and _refs(x, reg)]
        others = [x for x in refs if x is not inc and x is not cmp]
        if len(others) != 1 or not any(x is inc for x in refs) or not any(x is cmp for x in refs):
            continue
        init = others[0]
        if not (init.mn == "mov" and init.ops[1] == R(reg) and reg not in regs_in(init.ops[0])):
            continue
        init.ops[0] = Imm(trips)
        inc.mn, inc.ops = "dec", [R(reg)]
        k = next(i for i, x in enumerate(mf.insts) if x is cmp)
        del mf.insts[k]
        jump.mn = "jnz"
        done += 1
    return done


def _byte_at(op, k: int):
    if isinstance(op, Ind):
        return Mem(op.reg, k) if k else op
    if isinstance(op, Mem):
        if k == 0:
            return op
        d = op.disp
        if isinstance(d, int):
            return Mem(op.base, d + k)
        if isinstance(d, Frame):
            return Mem(op.base, Frame(d.kind, d.key, d.extra + k))
        return Mem(op.base, f"{d}+{k}")
    return None


def byte_loads(mf: MFunction) -> int:
    """After allocation (spilled values are memory operands now): a byte taken from a word in
    memory is read as that byte. `mov M, r; swpb r; mov.b r, r` -> `mov.b M+1, r` and
    `mov M, r; mov.b r, r` -> `mov.b M, r` (none of them changes the flags)."""
    insts = mf.insts
    out, i, n = [], 0, 0
    while i < len(insts):
        x = insts[i]
        if x.mn == "mov" and isinstance(x.ops[1], R) and isinstance(x.ops[0], (Mem, Ind)):
            r = x.ops[1]
            nxt = insts[i + 1:i + 3]
            if (len(nxt) == 2 and nxt[0].mn == "swpb" and nxt[0].ops == [r]
                    and nxt[1].mn == "mov.b" and nxt[1].ops == [r, r]):
                x.mn, x.ops = "mov.b", [_byte_at(x.ops[0], 1), r]
                out.append(x)
                i += 3
                n += 1
                continue
            if nxt and nxt[0].mn == "mov.b" and nxt[0].ops == [r, r]:
                x.mn = "mov.b"
                out.append(x)
                i += 2
                n += 1
                continue
        out.append(x)
        i += 1
    mf.insts = out
    return n


_FLOW = ("label", "call", "ret", "br")


def autoincrement_straight(mf: MFunction) -> int:
    """Straight-line code (a fully unrolled cipher) that reads a table through a pointer register
    p at `0(p), 2(p), 4(p), ...` in exactly that order, p's only other reference being its one
    `mov X, p` before them, reads `@p+` instead: 2 cycles and one word per read where `k(p)` costs
    3 and two (SPECK-128/128 and AES round keys with `unroll=full`). p's value after the reads
    changes, so no other reference may exist; and no label, jump or call may lie between the
    definition and the last read (each read must run exactly once, in order, after it).
    Returns the number of reads rewritten."""
    insts = mf.insts
    refs: dict[int, list] = {}
    for i, inst in enumerate(insts):
        if inst.mn == "comment":
            continue
        for k, o in enumerate(inst.ops):
            if isinstance(o, Lbl):
                continue
            for r in regs_in(o):
                refs.setdefault(r, []).append((i, k, o))
    done = 0
    for p, uses in refs.items():
        if not is_vreg(p) or len(uses) < 3:
            continue
        (d0, k0, o0), reads = uses[0], uses[1:]
        if not (insts[d0].mn == "mov" and k0 == 1 and o0 == R(p)):
            continue
        if any(k != 0 or i <= d0 or _read_disp(insts[i], p) != 2 * n for n, (i, k, _) in enumerate(reads)):
            continue
        # from the definition on: a label between would let a loop run the reads again
        last = reads[-1][0]
        if any(x.mn in _FLOW or x.mn.startswith("j") for x in insts[d0:last + 1]):
            continue
        for i, k, o in reads:
            insts[i].ops[0] = Inc(p)
        done += len(reads)
    return done
