"""ARMv6-M memory access: base registers (hoisted out of loops), immediate or register offsets,
walking pointers, round keys as lazy loads."""
from __future__ import annotations


from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, MInst, R
from aedsl.codegen.select_base import MemBind, nlimbs
from ..target import SP, offset_ok
from .operands import LIMB, LOAD, M32, STORE


class ArmMemory:
    """Selector mixin: addressing, `op_load`, `op_store` and the walking-pointer hooks."""

    def hoist_point(self):
        """The preheader anchor of the outermost active loop containing no call, or None."""
        for loop, (_, calls) in zip(self.loops, self.loop_facts):
            if not calls:
                return loop.anchor
        return None

    def base_reg(self, b: MemBind) -> R:
        """A register holding the address of memory `b`."""
        if b.kind == "ptr":
            return R(b.base)
        key = (b.kind, b.name)
        if key not in self.kcache:
            r = self.fresh()
            inst = (MInst("ldaddr", [r, Lbl(b.name)]) if b.kind == "table" else
                    MInst("addsp", [r, Mem(SP, Frame("local", b.name, 0))]))
            inst.loc = self.loc
            anchor = self.hoist_point()
            if anchor is not None:          # loop-invariant: once, before the loop
                inst.depth = anchor.depth
                self.insert_before(anchor, [inst])
            else:
                inst.depth = self.depth
                self.mf.insts.append(inst)
            self.kcache[key] = r
        return self.kcache[key]

    def offset_base(self, b: MemBind, disp: int) -> R:
        """A register holding the address of byte `disp` of memory `b` (computed once, before
        the outermost call-free loop like `base_reg`)."""
        key = ("at", b.kind, b.name, b.base, disp)
        if key not in self.kcache:
            base = self.base_reg(b)
            r = self.fresh()
            anchor = self.hoist_point()
            depth = anchor.depth if anchor is not None else self.depth
            insts = [MInst("mov", [base, r], depth=depth, loc=self.loc)] + self._add_const(r, disp, depth)
            if anchor is not None:
                self.insert_before(anchor, insts)
            else:
                self.mf.insts.extend(insts)
            self.kcache[key] = r
        return self.kcache[key]

    def split_index(self, idx):
        """(x, c) when IR index `idx` is x + c for a constant c that cannot wrap, else None."""
        d = self.defs.get(idx)
        if d is None or d.opcode != "add":
            return None
        for x, k in ((d.args[0], d.args[1]), (d.args[1], d.args[0])):
            c = self.const_of(self.get(k))
            if c and self.const_of(self.get(x)) is None and \
                    self.value_bound(x) + c < 1 << d.results[0].width:
                return x, c
        return None

    def access(self, mn: str, rt: R, b: MemBind, offset: int | R, extra: int = 0) -> None:
        """Emit load/store `mn` ("ldr"/"str"/...) of rt at byte `offset` (+ `extra`) of `b`."""
        if isinstance(offset, int):
            disp = offset + extra
            if b.kind == "local" and mn in ("ldr", "str") and disp % 4 == 0:
                self.emit(mn, rt, Mem(SP, Frame("local", b.name, disp)))
                return
            base = self.base_reg(b)
            if offset_ok(mn, disp):
                self.emit(mn, rt, Mem(base.reg, disp))
            else:
                self.emit(mn + "r", rt, base, self.const_reg(disp))
            return
        base = self.base_reg(b)
        if extra:
            a = self.fresh()
            self.emit("adds", a, base, offset)
            self.emit(mn, rt, Mem(a.reg, extra))
        else:
            self.emit(mn + "r", rt, base, offset)

    def scaled_index(self, index: list, stride: int):
        """index * stride as an int (constant index) or a register."""
        c = self.const_of(index)
        if c is not None:
            return c * stride
        i = self.reg(index[0])
        if stride & (stride - 1) == 0:
            return self.shl1(i, stride.bit_length() - 1)
        return self.dp2("muls", i, Imm(stride))

    def walked(self, b: MemBind, index: list):
        """(b', offset) addressing `b[index]` through a loop's walking pointer, or None."""
        walk = self.walking(b, index)
        if walk is None:
            return None
        p, disp = walk
        return MemBind("ptr", b.stride, b.elem_width, base=p.reg), disp

    def op_load(self, op):
        mem, idx = op.args
        b = self.memory(mem)
        w = op.results[0].width
        wk = self.walked(b, self.get(idx))
        if wk is not None:
            b, off = wk
        else:
            off = self.scaled_index(self.get(idx), b.stride)
        if b.stride == 4 and isinstance(off, int) and offset_ok("ldr", off) and b.kind != "local":
            # a lazy load: emitted at the first use (get), so a round key is read where it is
            # XORed in, not held in a register (or spilled) across the round
            base = R(b.base) if b.kind == "ptr" else self.base_reg(b)
            self.put(op.results[0], [Mem(base.reg, off)])
            # loaded before any store, and before a loop or `if` (where a first use would
            # leave the register undefined on other paths)
            self.pending.append((self.vals, op.results[0], 0))
            return
        if b.stride <= 4:
            r = self.fresh()
            self.access(LOAD[b.stride], r, b, off)
            self.put(op.results[0], [r])
            return
        if not isinstance(off, int):            # one address for all limbs
            a = self.fresh()
            split = self.split_index(idx) if wk is None else None
            if split is not None:
                # base + stride * (x + c): the constant part in a second base register
                x, c = split
                self.emit("adds", a, self.offset_base(b, c * b.stride), self.scaled_index(self.get(x), b.stride))
            else:
                self.emit("adds", a, self.base_reg(b), off)
            b = MemBind("ptr", b.stride, b.elem_width, base=a.reg)
            off = 0
        limbs = []
        for j in range(nlimbs(w, LIMB)):
            r = self.fresh()
            self.access("ldr", r, b, off, 4 * j)
            limbs.append(r)
        self.put(op.results[0], limbs)

    def table_field(self, op):
        """The byte or halfword `op` (a slice) takes of a word it alone reads from a table at a
        run-time index, loaded by itself: LDRB/LDRH from the table's address plus the field's
        byte offset, at the word's scaled index (what subtables.py leaves when a table is a
        field of another's words, AES's S-box in a T-table). None for any other slice."""
        src, w, lo = op.args[0], op.results[0].width, op.attrs["lo"]
        d = self.defs.get(src)
        if (w not in (8, 16) or lo % w or d is None or d.opcode != "load" or src.width != 32
                or self.use_count(src) != 1 or self.def_depth.get(src) != self.depth):
            return None
        b = self.memory(d.args[0])
        idx = self.get(d.args[1])
        if b.kind != "table" or b.stride != 4 or self.const_of(idx) is not None:
            return None
        r = self.fresh()
        self.emit(LOAD[w // 8] + "r", r, self.offset_base(b, lo // 8), self.scaled_index(idx, 4))
        return r

    def op_store(self, op):
        mem, idx, val = op.args
        self.materialize_pending()
        b = self.memory(mem)
        v = self.get(val)
        wk = self.walked(b, self.get(idx))
        if wk is not None:
            b, off = wk
        else:
            off = self.scaled_index(self.get(idx), b.stride)
        if b.stride <= 4:
            self.access(STORE[b.stride], self.reg(v[0]), b, off)
            return
        if not isinstance(off, int):
            a = self.fresh()
            self.emit("adds", a, self.base_reg(b), off)
            b = MemBind("ptr", b.stride, b.elem_width, base=a.reg)
            off = 0
        for j, x in enumerate(v):
            self.access("str", self.reg(x), b, off, 4 * j)

    def _add_const(self, p: R, k: int, depth: int) -> list:
        k = ((k + (1 << 31)) & M32) - (1 << 31)
        if k == 0:
            return []
        if 0 < k < 256:
            return [MInst("adds8", [p, Imm(k)], depth=depth, loc=self.loc)]
        if -256 < k < 0:
            return [MInst("subs8", [p, Imm(-k)], depth=depth, loc=self.loc)]
        t = self.fresh()
        return [MInst("mov", [Imm(k & M32), t], depth=depth, loc=self.loc),
                MInst("adds", [p, p, t], depth=depth, loc=self.loc)]

    # --- walking pointers (hooks of codegen/select/loops.py) -------------------------------------
    # A walker is p = address of element a * index + c0 of a memory (c0 that of its first
    # access); an access is `ldr rX, [p, #disp]` from any walker of the same memory and
    # coefficient that reaches it with an immediate offset.
    def walker_key(self, b: MemBind, a: int):
        return (b.kind, b.name, b.base, a, b.stride)

    def walker_reaches(self, b: MemBind, disp: int) -> bool:
        return offset_ok(LOAD[min(b.stride, 4)], disp)

    def walker_setup(self, b: MemBind, p: R, start: int, loop) -> list:
        d = loop.anchor.depth
        pre = [MInst("addsp", [p, Mem(SP, Frame("local", b.name, 0))], depth=d, loc=self.loc)
               if b.kind == "local" else
               MInst("ldaddr", [p, Lbl(b.name)], depth=d, loc=self.loc) if b.kind == "table" else
               MInst("mov", [R(b.base), p], depth=d, loc=self.loc)]
        return pre + self._add_const(p, start, d)

    def walker_advance(self, p: R, delta: int) -> list:
        return self._add_const(p, delta, self.depth)

    # --- loops counted up to zero (hooks of codegen/select/loops.py, `end_offsets`) -------------
    def end_span(self, hi: list, k: int):
        """`lsls t, hi, #k`."""
        return self.shl1(self.reg(hi[0]), k)

    def rebase_to_end(self, span, k: int, lo: int, bases: list) -> tuple:
        """`adds b', b, span` for each base, `rsbs j, span` (then `adds j, #lo << k` for a
        lower bound above 0)."""
        moved = []
        for b in bases:
            p = self.fresh()
            self.emit("adds", p, b, span)
            moved.append(p)
        j = self.fresh()
        self.emit("rsbs", j, span)
        self.mf.insts.extend(self._add_const(j, (lo << k) & M32, self.depth))
        return j, moved

    def count_to_zero(self, j, k: int, target: str) -> None:
        """`adds j, #1 << k; bne target`: the add's Z flag is the exit test (DDI0432C A6.7.2)."""
        self.mf.insts.extend(self._add_const(j, 1 << k, self.depth))
        self.emit("bne", Lbl(target))
