"""MSP430 memory access: element operands (absolute, indexed, walking pointers, scaled indices
shared within a basic block), loads as lazy memory operands, stores."""
from __future__ import annotations

from aedsl.codegen.mir import Frame, Imm, Ind, Mem, MInst, R, as_mem
from aedsl.codegen.select_base import MemBind, nlimbs
from ..target import SP
from .operands import M16, cheap_src, disp_add


class Msp430Memory:
    """Selector mixin: element addressing, `op_load`, `op_store` and the walking-pointer hooks."""

    def elem_addr(self, b: MemBind, index: list, limb_off: int):
        """Operand of byte `limb_off` of element `index` of memory `b` (Mem or Ind)."""
        c = self.const_of(index)
        if c is not None:
            off = c * b.stride + limb_off
            if b.kind == "ptr":
                return Mem(b.base, off)
            if b.kind == "table":
                return Mem(None, f"{b.name}+{off}" if off else b.name)
            return Mem(SP, Frame("local", b.name, off))
        walk = self.walking(b, index)
        if walk is not None:
            p, disp = walk
            off = disp + limb_off
            if b.kind == "ptr":
                return Mem(p.reg, off)
            if b.kind == "table":
                return Mem(p.reg, f"{b.name}+{off}" if off else b.name)
            return Mem(p.reg, Frame("local", b.name, off))
        # index = x + c (word j of a wide element u: 8*u + j): the address of element x, shared
        # by the words, and c in the displacement (`xor 2j(rb), z` instead of an address each)
        idx, extra = index[0], 0
        if isinstance(idx, R) and idx.reg in self.offset_of:
            idx, extra = self.offset_of[idx.reg]
        off = extra * b.stride + limb_off
        # a table's scaled index is only read (shared); ptr/local ones get the base added
        if b.kind == "table":
            t = self.scaled(idx, b.stride)
            return Mem(t.reg, f"{b.name}+{off}" if off else b.name)
        memo = self.__dict__.setdefault("scaled_memo", {})
        key = (idx.reg, b.stride, id(b)) if isinstance(idx, R) else None
        t = memo.get(key) if key is not None else None
        if t is None:
            t = self._scaled(idx, b.stride)
            self.emit("add", R(b.base) if b.kind == "ptr" else R(SP), t)
            if key is not None:
                memo[key] = t
        if b.kind == "ptr":
            return Mem(t.reg, off)
        return Mem(t.reg, Frame("local", b.name, off))

    def scaled(self, limb, stride: int) -> R:
        # one scaled index per byte and table stride (a byte feeds two 16-bit T-tables)
        memo = self.__dict__.setdefault("scaled_memo", {})
        if isinstance(limb, R):
            if (limb.reg, stride) not in memo:
                memo[(limb.reg, stride)] = self._scaled(limb, stride)
            return memo[(limb.reg, stride)]
        return self._scaled(limb, stride)

    def _scaled(self, limb, stride: int) -> R:
        t = self.copy(limb)
        if stride & (stride - 1) == 0:
            for _ in range(stride.bit_length() - 1):
                self.emit("rla", t)
            return t
        acc = None
        for bit in range(stride.bit_length()):
            if stride >> bit & 1:
                term = self.shl16(t, bit) if bit else t
                acc = term if acc is None else self.bitop_add(acc, term)
        return acc

    def bitop_add(self, a, b) -> R:
        d = self.copy(a)
        self.emit("add", b, d)
        return d

    def premultiplied(self, idx, b: MemBind) -> tuple[R, int] | None:
        """(register, displacement) addressing element `idx` of table `b` when the index is a
        bit field of a 16-bit limb (plus a constant c: c 2^s goes to the displacement;
        `index_field`) and elements have 2^s bytes: (x >> (lo - s)) & ((2^w - 1) << s), the shift
        that would scale the field folded into the one that extracts it (seed 002's tables
        with pre-multiplied indices: PHOTON's column table, a nibble of a state word each
        look-up, `mov.b 9(r12), r15; rla r15; rla r15; and #60, r15`). The field is moved by
        whichever is shorter, single steps or `swpb` and steps, without clearing the bits a step
        fills (the mask does); a field inside one byte of a limb in memory is read with `mov.b`.
        Shared by the loads of one field with one stride (the two halves of a 32-bit entry).
        None for any other index, and for a whole byte of a limb, which needs no mask."""
        s = b.stride.bit_length() - 1
        f = self.index_field(idx) if b.kind == "table" and s and b.stride == 1 << s else None
        if f is None:
            return None
        x, q, lo, w, c = f
        limb = self.get(x)[q]
        if w + s > 16 or not isinstance(limb, (R, Mem, Ind)) or (w == 8 and lo % 8 == 0):
            # a whole byte needs no mask: `mov.b` (after `swpb` for the high one) and the scaling
            # steps are shorter, and its scaled copy is shared by the tables it indexes (AES)
            return None
        limb = as_mem(limb)
        memo = self.__dict__.setdefault("premult_memo", {})
        # by the IR value (in the call scope its limbs belong to), not by the operand: a word in
        # memory may be stored to between two look-ups, a value may not change
        key = (id(self.vals), id(x), q, lo, w, s)
        if key not in memo:
            t = R(self.vreg())
            if isinstance(limb, Mem) and (lo >= 8 or lo + w <= 8):
                self.emit("mov.b", cheap_src(Mem(limb.base, disp_add(limb.disp, 1))) if lo >= 8 else cheap_src(limb), t)
                lo %= 8
            else:
                self.emit("mov", cheap_src(limb), t)
            # steps from lo to s, or swpb first (the field not across the bytes) and steps from
            # its place after it
            swapped = (lo + 8) % 16 if lo + w <= 8 or lo >= 8 else None
            if swapped is not None and 1 + abs(swapped - s) < abs(lo - s):
                self.emit("swpb", t)
                lo = swapped
            if lo > s:
                self._right_arith(t, lo - s)
            else:
                self._left(t, s - lo)
            self.emit("and", Imm(((1 << w) - 1) << s), t)
            memo[key] = t
        return memo[key], c * b.stride

    def op_load(self, op):
        mem, idx = op.args
        b = self.memory(mem)
        index = self.get(idx)
        w = op.results[0].width
        if b.stride == 1:
            r = R(self.vreg())
            self.emit("mov.b", self.elem_addr(b, index, 0), r)
            self.put(op.results[0], [r])
            return
        n = nlimbs(w, 16)
        pre = self.premultiplied(idx, b)
        base = self.elem_addr(b, index, 0) if pre is None else \
            Mem(pre[0].reg, f"{b.name}+{pre[1]}" if pre[1] else b.name)
        limbs = []
        for j in range(n):
            a = base if j == 0 else (Mem(base.base, disp_add(base.disp, 2 * j)))
            limbs.append(cheap_src(a))
        self.put(op.results[0], limbs)
        if not b.readonly:
            for j in range(n):
                self.pending.append((self.vals, op.results[0], j))

    def op_store(self, op):
        mem, idx, val = op.args
        b = self.memory(mem)
        self.materialize_pending()
        v = self.get(val)
        base = self.elem_addr(b, self.get(idx), 0)
        if b.stride == 1:
            self.emit("movb.st", v[0], base)
            return
        for j, x in enumerate(v):
            self.emit("mov", x, base if j == 0 else Mem(base.base, disp_add(base.disp, 2 * j)))

    def byte_addr(self, b: MemBind, off: list, k: int):
        c = self.const_of(off)
        if c is not None:
            return self.elem_addr(b, self.imm_limbs(c + k, 16), 0)
        if b.kind == "ptr":
            return Mem(self._offset_base(b, off).reg, k)
        return self.elem_addr(b, self.add_imm(off[:1], k, 16), 0)

    def _offset_base(self, b: MemBind, off: list) -> R:
        key = ("offbase", id(off))
        if getattr(self, "_ob_key", None) == key:
            return self._ob
        t = self.copy(off[0])
        self.emit("add", R(b.base), t)
        self._ob_key, self._ob = key, t
        return t

    # --- walking pointers (hooks of codegen/select/loops.py) -------------------------------------
    # A walker is p = address of element a * index of one memory binding (`mem[±i + c]` is then
    # `c*stride(p)`, and `@p+` after the peephole pass); the shared code finds or makes it.
    def walker_key(self, b: MemBind, a: int):
        # a table's walker holds the scaled index alone (the table's symbol is the displacement),
        # so tables of one element size share it
        return ("table", a, b.stride) if b.kind == "table" else (id(b), a)

    def walker_origin(self, c: int) -> int:
        return 0

    def walker_setup(self, b: MemBind, p: R, start: int, loop) -> list:
        d = self.depth - 1
        pre = []
        if b.kind in ("ptr", "local"):
            pre.append(MInst("mov", [R(b.base) if b.kind == "ptr" else R(SP), p], depth=d, loc=self.loc))
            if start:
                pre.append(MInst("add", [Imm(start & M16), p], depth=d, loc=self.loc))
        else:
            pre.append(MInst("mov", [Imm(start & M16), p], depth=d, loc=self.loc))
        self.walk_regs.add(p.reg)
        return pre

    def walker_advance(self, p: R, delta: int) -> list:
        return [MInst("add", [Imm(delta & M16), p], depth=self.depth, loc=self.loc)]

    def affine_ok(self, loop, a: int, c: int, width: int) -> bool:
        """Every affine value is recorded here, without the range proof of the shared rule."""
        return True
