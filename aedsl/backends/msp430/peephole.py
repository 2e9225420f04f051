"""Peephole rewrites on MSP430 machine IR (before register allocation; `byte_loads`,
`autoincrement_tail` and `carry_masks` after it).

`autoincrement`: a walking pointer p (see `walker_setup` in select/memory.py) read as `0(p),
2(p), ..., K-2(p)` in that order by word instructions and then advanced by `add #K, p`, with no other
reference to p in between, becomes `@p+` in each of those reads and the `add` disappears:
`xor @p+, r8` costs 2 cycles and one word where `xor 2(p), r8` costs 3 and two.
"""
from __future__ import annotations

from aedsl.codegen.liveness import Cfg, block_liveness, defs_uses, flags_dead_after, live_after
from aedsl.codegen.mir import Imm, Inc, Ind, Lbl, Mem, MFunction, MInst, R, address, at_offset, is_vreg, regs_in
from .target import SP


def _refs(inst, reg: int) -> bool:
    return any(reg in regs_in(o) for o in inst.ops if not isinstance(o, Lbl))


def _mentions(insts, reg: int) -> list[int]:
    """Indices of the instructions that mention reg (labels and comments aside)."""
    return [k for k, x in enumerate(insts) if x.mn not in ("label", "comment") and _refs(x, reg)]


def _disp_through(op, p: int) -> int | None:
    """The displacement of memory operand `op` based on register p (`@p` = 0, `k(p)` = k);
    None for any other operand."""
    a = address(op)
    return a[1] if a is not None and a[0] == p else None


def _read_disp(inst, p: int) -> int | None:
    """The displacement of `inst`'s source read through p (`@p` = 0, `k(p)` = k), if it is a
    word read that an `@p+` can replace: a two-operand, non-byte instruction whose destination
    does not mention p. None otherwise."""
    disp = _disp_through(inst.ops[0], p) if inst.ops else None
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


def scale_index(mf: MFunction, loops: list) -> int:
    """A counted loop `for i in c..hi` (steps of 1, a constant start) whose index is read, apart
    from its increment and exit test, only as the byte offset of an element of 2^k-byte entries,
    `mov i, t; [and #m, t;] [mov t, u;] rla u` k times (the same k everywhere), keeps i << k
    instead: the increment adds 2^k, the exit test compares with hi << k, the start is c << k, a
    mask becomes m << k, and the k shifts go (a cycle each, every trip). Sound while hi << k
    fits 16 bits: then i << k never loses a bit, and (i & m) << k = (i << k) & (m << k).
    loops: as `count_down`'s; a scaled loop's entry gets its new end. Returns loops scaled."""
    done = 0
    for n, (reg, inc, cmp, jump, trips, hi) in enumerate(list(loops)):
        insts = mf.insts
        if (hi is None or inc.mn != "add" or inc.ops[0] != Imm(1) or jump.mn != "jnc"
                or not any(x is cmp for x in insts) or cmp.ops[0] != Imm(hi)):
            continue
        refs = _mentions(insts, reg)
        inits = [k for k in refs if insts[k] is not inc and insts[k] is not cmp
                 and insts[k].mn == "mov" and insts[k].ops[1] == R(reg)]
        if len(inits) != 1 or not isinstance(insts[inits[0]].ops[0], Imm):
            continue
        chains = [_scaled_read(insts, k, reg) for k in refs
                  if k != inits[0] and insts[k] is not inc and insts[k] is not cmp]
        if not chains or any(c is None for c in chains) or len({c[0] for c in chains}) != 1:
            continue
        shift = chains[0][0]
        start = insts[inits[0]].ops[0].value
        if (hi << shift) > 0xFFFF or (start << shift) > 0xFFFF:
            continue
        insts[inits[0]].ops[0] = Imm(start << shift)
        inc.ops[0] = Imm(1 << shift)
        cmp.ops[0] = Imm(hi << shift)
        gone = set()
        for _, mask, shifts in chains:
            if mask is not None:
                mask.ops[0] = Imm((mask.ops[0].value << shift) & 0xFFFF)
            gone.update(id(x) for x in shifts)
        mf.insts = [x for x in insts if id(x) not in gone]
        loops[n] = (reg, inc, cmp, jump, trips, hi << shift)
        done += 1
    return done


def _scaled_read(insts, k: int, reg: int):
    """(k shifts, the `and` or None, the shift instructions) when insts[k] is `mov reg, t`
    followed by `and #m, t`, a copy of t and `rla` shifts of the copy, and t (and the copy)
    read nowhere else; None otherwise."""
    x = insts[k]
    if not (x.mn == "mov" and x.ops[0] == R(reg) and isinstance(x.ops[1], R) and is_vreg(x.ops[1].reg)):
        return None
    t = x.ops[1].reg
    at = _mentions(insts, t)
    if at[0] != k:
        return None                     # t mentioned before its copy
    seq = [insts[j] for j in at[1:]]
    mask = None
    if seq and seq[0].mn == "and" and isinstance(seq[0].ops[0], Imm) and seq[0].ops[1] == R(t):
        mask, seq, at = seq[0], seq[1:], at[1:]
    if seq and seq[0].mn == "mov" and seq[0].ops[0] == R(t) and isinstance(seq[0].ops[1], R) \
            and is_vreg(seq[0].ops[1].reg):
        if len(seq) != 1:
            return None                 # t read again after its copy
        u = seq[0].ops[1].reg
        at_u = _mentions(insts, u)
        if at_u[0] != at[1]:
            return None                 # u mentioned before it is made
        seq, t = [insts[j] for j in at_u[1:]], u
    shifts = []
    for y in seq:
        if y.mn == "rla" and y.ops == [R(t)]:
            shifts.append(y)
            continue
        break
    if not shifts:
        return None
    # the shifts must follow one another (nothing reads the value between them)
    first = next(j for j, y in enumerate(insts) if y is shifts[0])
    if insts[first:first + len(shifts)] != shifts:
        return None
    return len(shifts), mask, shifts


def count_down(mf: MFunction, loops: list, target) -> int:
    """A counted loop whose index is used by nothing but its own increment and exit test (the
    body reads memory through walking pointers) counts its trips down instead:
    `add #k, i; cmp #hi, i; jnc top` (5 cycles) becomes `dec i; jnz top` (3 cycles).
    loops: (index vreg, increment inst, compare inst, jump inst, trip count or None when the
    start is not constant, the constant end)."""
    done = 0
    for reg, inc, cmp, jump, trips, _ in loops:
        if trips is None:
            continue
        refs = [mf.insts[k] for k in _mentions(mf.insts, reg)]
        others = [x for x in refs if x is not inc and x is not cmp]
        if len(others) != 1 or not any(x is inc for x in refs) or not any(x is cmp for x in refs):
            continue
        init = others[0]
        if not (init.mn == "mov" and init.ops[1] == R(reg) and reg not in regs_in(init.ops[0])):
            continue
        if _exit_on_walker(mf, init, inc, cmp, jump, trips, target):
            done += 1
            continue
        init.ops[0] = Imm(trips)
        inc.mn, inc.ops = "dec", [R(reg)]
        k = next(i for i, x in enumerate(mf.insts) if x is cmp)
        del mf.insts[k]
        jump.mn = "jnz"
        done += 1
    return done


def _loop_span(insts, jump) -> tuple[int, int]:
    """(index of the loop's top label, index of its back branch `jump`)."""
    top = next(op.name for op in jump.ops if isinstance(op, Lbl))
    k_top = next(k for k, x in enumerate(insts) if x.mn == "label" and x.ops[0].name == top)
    return k_top, next(k for k, x in enumerate(insts) if x is jump)


def _signed16(v: int) -> int:
    """v as a 16-bit two's-complement number."""
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def _exit_on_walker(mf: MFunction, init, inc, cmp, jump, trips: int, target) -> bool:
    """The loop of `count_down` without its counter, where it also walks an index register w
    through memory: `mov #c, w` before the loop, one `add #k, w` in it (k != 0) after w's last
    read, and w read only as the index of memory operands (`rc(w)`). w then keeps
    w - (c + k * trips), the operands add c + k * trips to their displacement, and the `add`,
    moved to the loop's end, ends the loop on zero: `add #k, w; jnz top` in place of the
    counter's `dec n; jnz top` (its 1-4 cycles a trip and its register or slot saved).
    Addresses wrap in 16 bits as in `rebase_index`. False (nothing changed) where there is no
    such walker."""
    insts = mf.insts
    k_top, k_jump = _loop_span(insts, jump)
    for k_add in range(k_top, k_jump):
        add = insts[k_add]
        if not (add.mn == "add" and isinstance(add.ops[0], Imm) and _signed16(add.ops[0].value)
                and isinstance(add.ops[1], R) and is_vreg(add.ops[1].reg)):
            continue
        w, step = add.ops[1].reg, _signed16(add.ops[0].value)     # a walk down adds 0xffff
        refs = _mentions(insts, w)
        before = [k for k in refs if k < k_top]
        inside = [k for k in refs if k_top <= k <= k_jump and k != k_add]
        if (len(before) != 1 or len(refs) != 1 + 1 + len(inside) or not inside or max(inside) > k_add
                or any(k > k_jump for k in refs)):
            continue
        first = insts[before[0]]
        if not (first.mn == "mov" and isinstance(first.ops[0], Imm) and first.ops[1] == R(w)):
            continue
        if not all(_index_base(op, w) and not isinstance(op, Ind)
                   for k in inside for op in insts[k].ops if w in regs_in(op)):
            continue
        if any(x.mn in ("label", "comment") or (x is not cmp and target.desc(x).flags_in)
               or target.desc(x).branch for x in insts[k_add + 1:k_jump]):
            continue                    # something between reads the flags the add set
        # w - (c + k * trips) in 16 bits, and the displacements that add it back, as small
        # signed numbers (an MSP430X linker checks that `rc+d` fits 16 bits)
        shift = _signed16(first.ops[0].value + step * trips)
        for k in inside:
            insts[k] = insts[k].with_ops([_rebased(op, w, shift) for op in insts[k].ops])
        insts[before[0]] = first.with_ops([Imm(-step * trips & 0xFFFF), R(w)])
        moved = insts.pop(k_add)
        gone = {id(init), id(inc), id(cmp)}
        mf.insts = [x for x in insts if id(x) not in gone]
        k = next(i for i, x in enumerate(mf.insts) if x is jump)
        mf.insts.insert(k, moved)
        jump.mn = "jnz"
        return True
    return False


def rebase_index(mf: MFunction, loops: list) -> int:
    """A counted loop `for i in lo..hi` (hi constant, i landing on hi exactly: a constant start
    or steps of 1) whose index is read inside the loop only as the base of memory operands (a
    table indexed by i: `mov.b rc(i), r`) keeps i - hi in its register instead: each such
    operand adds hi to its displacement, and the increment's own zero flag is the exit test,
    `add #1, i; cmp #hi, i; jnc top` -> `add #1, i; jnz top` (the compare's 1-5 cycles saved
    each iteration), with one `sub #hi, i` before the loop (after its entry test, which still
    reads i). Preserves every address: i - hi + (d + hi) = i + d in 16-bit arithmetic, which
    is how the original CPU adds an index, and how MSP430X adds one to a register below 64 KB
    (SLAU208 §4.4.1.2: the sum wraps within the lower 64 KB). Runs after `count_down` (a loop
    whose index has no other use counts down instead). loops: as `count_down`'s."""
    done = 0
    for reg, inc, cmp, jump, _, hi in loops:
        insts = mf.insts
        if not any(x is cmp for x in insts) or inc.mn != "add" or jump.mn != "jnc":
            continue
        k_top, k_jump = _loop_span(insts, jump)
        uses = _index_uses(insts, reg, k_top, k_jump, {id(inc), id(cmp)})
        if not uses:
            continue
        for x, r in uses:
            x.ops = [_rebased(op, r, hi) for op in x.ops]
        del insts[next(k for k, x in enumerate(insts) if x is cmp)]
        jump.mn = "jnz"
        label = insts[k_top]
        insts.insert(k_top, MInst("sub", [Imm(hi), R(reg)], depth=label.depth))
        done += 1
    return done


def _index_uses(insts, reg: int, start: int, end: int, skip: set) -> list | None:
    """The instructions in insts[start:end] reading reg only as the base of memory operands,
    each with that register: through copies of reg too (`mov i, t` with t defined there alone
    and read only so); None if reg or such a copy is read otherwise, or anything after `end`
    reads reg."""
    uses = []
    for k in range(start, len(insts)):
        x = insts[k]
        if id(x) in skip or x.mn in ("label", "comment") or not _refs(x, reg):
            continue
        if k > end:
            return None
        if x.mn == "mov" and x.ops[0] == R(reg) and isinstance(x.ops[1], R) and is_vreg(x.ops[1].reg):
            t = x.ops[1].reg
            at = [insts[j] for j in _mentions(insts, t)]
            defs = [y for y in at if not all(_index_base(op, t) for op in y.ops if t in regs_in(op))]
            if defs != [x]:
                return None
            uses.extend((y, t) for y in at if y is not x)
            continue
        if not all(_index_base(op, reg) for op in x.ops if reg in regs_in(op)):
            return None
        uses.append((x, reg))
    return uses


def _index_base(op, reg: int) -> bool:
    """op reads memory at reg + a displacement that can take a constant."""
    return (isinstance(op, Ind) and op.reg == reg) or (
        isinstance(op, Mem) and op.base == reg and isinstance(op.disp, (int, str)))


def _rebased(op, reg: int, hi: int):
    if isinstance(op, Ind) and op.reg == reg:
        return Mem(reg, hi)
    if isinstance(op, Mem) and op.base == reg:
        if isinstance(op.disp, int):
            return Mem(reg, op.disp + hi)
        return Mem(reg, f"{op.disp}{hi:+d}" if hi else op.disp)
    return op


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
                x.mn, x.ops = "mov.b", [at_offset(x.ops[0], 1), r]
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
    """Straight-line code that reads through a pointer register p at `0(p), 2(p), 4(p), ...` in
    exactly that order right after p's one definition (`mov X, p`) reads `@p+` instead: 2 cycles
    and one word per read where `k(p)` costs 3 and two (SPECK-128/128 and AES round keys with
    `unroll=full`; a state loaded word by word at a function's entry). p then ends 2n higher
    after n reads: every later reference must be a memory operand based on p (the state's stores
    at the exit, `k(p)` -> `(k - 2n)(p)`), else the run is left alone. No label, jump or call may
    lie between the definition and the last read (each read runs exactly once, in order, after
    it, and before anything else that uses p). Returns the number of reads rewritten."""
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
        (d0, k0, o0), rest = uses[0], uses[1:]
        if not (insts[d0].mn == "mov" and k0 == 1 and o0 == R(p)):
            continue
        n = 0
        while (n < len(rest) and rest[n][1] == 0 and rest[n][0] > d0
               and _read_disp(insts[rest[n][0]], p) == 2 * n):
            n += 1
        reads, later = rest[:n], rest[n:]
        if n < 2:
            continue
        # from the definition on: a label between would let a loop run the reads again
        last = reads[-1][0]
        if any(x.mn in _FLOW or x.mn.startswith("j") for x in insts[d0:last + 1]):
            continue
        if any(_disp_through(o, p) is None for _, _, o in later):
            continue
        for i, k, o in reads:
            insts[i].ops[0] = Inc(p)
        for i, k, o in later:
            insts[i].ops[k] = Mem(p, _disp_through(o, p) - 2 * n)
        done += n
    return done


def autoincrement_tail(mf: MFunction, target) -> int:
    """After allocation: a register's last references before it dies, reads at `0(p), 2(p),
    4(p), ...` in that order inside one basic block with no other reference to p between them
    (a state copied out at a function's exit), read `@p+` instead: 2 cycles and one word each
    where `k(p)` costs 3 and two; p ends 2n higher, but nothing reads it any more (or the last
    reference reads the next word into p itself: `mov 2n(p), p` becomes `mov @p, p`). Run after
    allocation, so the increments tie no order on the scheduler and no value on the
    allocator. Returns the number of reads rewritten."""
    insts = mf.insts
    cfg = Cfg(insts, target)
    du = [defs_uses(i, target) for i in insts]
    live_out = block_liveness(cfg, du, lambda r: r >= 0)
    done = 0
    for bi, (a, b) in enumerate(cfg.blocks):
        after = live_after(du, a, b, live_out[bi], lambda r: r >= 0)
        refs: dict[int, list[int]] = {}          # register -> its references in the block, in order
        for i in range(a, b):
            if insts[i].mn in ("label", "comment"):
                continue
            for r in set(du[i][0]) | set(du[i][1]):
                refs.setdefault(r, []).append(i)
        for p, idx in refs.items():
            # the run may end in a read of the next word into p itself (`mov 6(p), p`: the
            # pointer dies there, whatever p holds after it); that read takes `@p` once the run
            # has moved p there
            last = None
            for j, i in enumerate(idx):
                last = _overwriting_read(insts[i], p)
                if last is not None:
                    idx = idx[:j + 1]
                    break
            if p == SP or (last is None and p in after[idx[-1]]):
                continue
            ends = idx[:-1] if last is not None else idx
            # the longest run of p's last references that read 0(p), 2(p), ... in order
            run: list[tuple[int, int]] = []
            for i in reversed(ends):
                disp = _read_disp(insts[i], p)
                if disp is None or p in du[i][0]:
                    break
                run.insert(0, (i, disp))
            while run and [d for _, d in run] != [2 * j for j in range(len(run))]:
                run = run[1:]
            if last is not None and last != 2 * len(run):
                continue                    # the overwriting read is not the run's next word
            if len(run) < 2:
                continue
            for i, _ in run:
                insts[i].ops[0] = Inc(p)
            if last is not None:
                insts[idx[-1]].ops[0] = Ind(p)
            done += len(run)
    return done


def _overwriting_read(inst, p: int) -> int | None:
    """The displacement k of `mov k(p), p` (a word read into p itself, through p), else None."""
    if inst.mn != "mov" or len(inst.ops) != 2 or inst.ops[1] != R(p):
        return None
    return _disp_through(inst.ops[0], p)


def _carry_negation(insts, i: int) -> int | None:
    """The register d when insts[i:i+5] are `clr d; adc d; xor #1, d; inv d; inc d`, the
    selector's 0 - (1 - C) of a comparison's carry (carry_bit, then a negation): C - 1, what
    `subc d, d` makes, with the same flags (N = not C, Z = C, C = C, V = 0 for both). The
    caller keeps insts[i:i+5] inside one block."""
    x = insts[i]
    if x.mn != "clr" or len(x.ops) != 1 or not isinstance(x.ops[0], R):
        return None
    d = x.ops[0]
    want = [("adc", [d]), ("xor", [Imm(1), d]), ("inv", [d]), ("inc", [d])]
    return d.reg if all(insts[i + 1 + k].mn == mn and insts[i + 1 + k].ops == ops
                        for k, (mn, ops) in enumerate(want)) else None


def carry_masks(mf: MFunction, target) -> int:
    """After allocation: `mov #0, rD` (or `clr rD`), then instructions of the same basic block
    that neither read nor write rD, then `subc #0, rD` (C - 1: the mask that a bit test's or a
    comparison's carry selects, `bit_mask` and the selects of the arithmetic selector) becomes
    that `subc rD, rD` alone: rD - rD - 1 + C is C - 1 whatever rD holds, with the same flags
    (SLAU144 §3.4.6, SUBC), so the zeroing is not needed: one cycle and one word less.
    Also the selector's `clr d; adc d; xor #1, d; inv d; inc d` (0 - (1 - C)) is that
    `subc d, d` (four instructions less). Returns the number of instructions removed."""
    insts = mf.insts
    cfg = Cfg(insts, target)
    du = [defs_uses(i, target) for i in insts]
    drop: set[int] = set()
    for a, b in cfg.blocks:
        for i in range(a, b):
            x = insts[i]
            d = _carry_negation(insts, i) if i + 5 <= b else None
            if d is not None:
                insts[i + 1] = MInst("subc", [R(d), R(d)], depth=insts[i + 1].depth, loc=insts[i + 1].loc)
                drop.update((i, i + 2, i + 3, i + 4))
                continue
            if x.mn == "mov" and len(x.ops) == 2 and x.ops[0] == Imm(0) and isinstance(x.ops[1], R):
                d = x.ops[1].reg
            elif x.mn == "clr" and len(x.ops) == 1 and isinstance(x.ops[0], R):
                d = x.ops[0].reg
            else:
                continue
            for k in range(i + 1, b):
                y = insts[k]
                if y.mn in ("label", "comment"):
                    continue
                if d not in du[k][0] and d not in du[k][1]:
                    continue
                if y.mn == "subc" and y.ops == [Imm(0), R(d)]:
                    y.ops = [R(d), R(d)]
                    drop.add(i)
                break
    if drop:
        mf.insts = [x for i, x in enumerate(insts) if i not in drop]
    return len(drop)


# Instructions that read only the carry of the status register (SLAU144 §3.4.6: ADDC, SUBC,
# RRC, and the emulated ADC, SBC, RLC; JC / JNC): N and Z may change under them.
_CARRY_ONLY = frozenset({"addc", "subc", "rrc", "rlc", "adc", "sbc", "jc", "jnc",
                         "addc.b", "subc.b", "rrc.b", "rlc.b", "adc.b", "sbc.b"})


def bit_shifts(mf: MFunction, target) -> int:
    """After allocation: `bit #1, rA` (C = bit 0 of rA: the bit a select's mask or a shift
    register's carry chain takes), then, in the same basic block, instructions that neither
    read nor write rA, then `rra rA` (rA shifted right by one, bit 0 to C): the shift moves up
    into the test's place and the test goes: `rra rA` sets C to the same bit (SLAU144 §3.4.6,
    BIT: C = result != 0; RRA: C = the bit shifted out). Only C is the same (N and Z are not),
    so the instructions between that read flags must read only C (ADDC, SUBC, RRC, RLC, ...),
    and the flags the removed `rra` set must be dead. A bit-serial loop reads its message and
    key-stream bits this way (`-(m[0])` for the mask, `m >> 1` for the next turn): one
    instruction a bit. Returns the number of instructions removed."""
    insts = mf.insts
    cfg = Cfg(insts, target)
    du = [defs_uses(i, target) for i in insts]
    drop: set[int] = set()
    for a, b in cfg.blocks:
        for i in range(a, b):
            x = insts[i]
            if not (x.mn == "bit" and x.ops[0] == Imm(1) and isinstance(x.ops[1], R)):
                continue
            r = x.ops[1].reg
            for k in range(i + 1, b):
                y = insts[k]
                if y.mn in ("label", "comment"):
                    continue
                if y.mn == "rra" and y.ops == [R(r)]:
                    if k not in drop and flags_dead_after(insts, k, target, b):
                        insts[i] = MInst("rra", [R(r)], depth=x.depth, loc=x.loc)
                        drop.add(k)
                    break
                if r in du[k][0] or r in du[k][1]:
                    break
                if target.desc(y).flags_in and y.mn not in _CARRY_ONLY:
                    break
    if drop:
        mf.insts = [x for i, x in enumerate(insts) if i not in drop]
    return len(drop)
