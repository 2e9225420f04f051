"""ARMv6-M byte-order block access (`load_be/le`, `store_be/le`): byte loads and stores, word
blocks (LDR/STR + REV) with the scratch fallback, partial blocks through the scratch area
(codegen/select/bytes.py describes the shape)."""
from __future__ import annotations


from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, R
from aedsl.codegen.select_base import MemBind, nlimbs
from ..target import SP
from .operands import LIMB


class ArmBuffers:
    """Selector mixin: `_load_bytes` / `_store_bytes` of the shared byte-block handlers."""

    # Word blocks: 8..124 bytes, a multiple of 4, of a pointer buffer. LDR/STR need an aligned
    # address: aligned with the count (if any) covering the block -> the words in place (the
    # steady state: 3 cycles a word instead of 4 a byte); else the block goes through the scratch
    # area (aligned) with the byte loop. Each site then holds one copy of the word code.
    # A partial load of a size that is no multiple of 4 (CCM's 15-byte nonce block, its 10- and
    # 14-byte first AD blocks) always goes through the zeroed scratch area, the bytes at
    # scratch + (-nbytes mod 4) when big-endian (the leading zeros are the value's top bytes).
    WORD_BLOCK_MIN, WORD_BLOCK_MAX = 8, 124
    ODD_BLOCK_MIN, ODD_BLOCK_MAX = 5, 124
    def _byte_base(self, b: MemBind, off: list):
        """(memory, constant byte offset) for byte k at `off` + k: constant offsets stay
        immediate; a run-time offset is added to the base once."""
        c = self.const_of(off)
        if c is not None:
            return b, c
        a = self.fresh()
        self.emit("adds", a, self.base_reg(b), self.reg(off[0]))
        return MemBind("ptr", 1, 8, base=a.reg), 0

    def _load_bytes(self, op, big: bool):
        mem, off, *cnt = op.args
        b = self.memory(mem)
        nbytes = op.attrs["bytes"]
        count, nb = self.block_count(cnt, nbytes)
        if self.known_aligned(op):
            return self._load_words(op, b, nbytes, None, big, aligned=True)
        if self.word_block(b, nbytes) and (count is not None or nb == nbytes) \
                or self.odd_block(b, nbytes, count):
            return self._load_words(op, b, nbytes, count, big)
        if count is not None and self.PARTIAL_LOOP_MIN <= nbytes <= 32:
            return self._load_partial(op, b, nbytes, count, big)
        bb, c0 = self._byte_base(b, self.get(off))
        n = nlimbs(8 * nbytes, LIMB)
        out: list = [Imm(0)] * n
        for k in range(nb):
            r = self.fresh()
            if count is None:
                self.access("ldrb", r, bb, c0 + k)
            else:
                skip = self.mf.label("nob")
                self.emit("mov", Imm(0), r)
                self.emit("cmpi", self.reg(count[0]), Imm(k + 1))
                self.emit("bcc", Lbl(skip))
                self.access("ldrb", r, bb, c0 + k)
                self.label(skip)
            q, s = divmod(self.byte_position(k, nbytes, big), LIMB)
            out[q] = self.bitop("orrs", out[q], self.shl1(r, s))
        self.put(op.results[0], out)

    # Partial blocks (a run-time byte count) of PARTIAL_LOOP_MIN bytes or more: the full-block
    # byte code is emitted once, on a pointer that is the buffer itself when count >= nbytes and
    # otherwise the frame scratch area `bytes.tmp`, filled (load) or drained (store) by a byte
    # loop. A count test per byte (12 bytes of code each) becomes one test per block.
    PARTIAL_LOOP_MIN = 4

    def block_address(self, b: MemBind, off: list) -> R:
        return self._byte_addr_reg(b, off)

    def _byte_addr_reg(self, b: MemBind, off: list) -> R:
        """A fresh register holding the address of byte `off` of `b` (free to be redefined)."""
        p = self.fresh()
        c = self.const_of(off)
        if c is None:
            self.emit("adds", p, self.base_reg(b), self.reg(off[0]))
            return p
        self.emit("mov", self.base_reg(b), p)
        if 0 < c < 256:
            self.emit("adds8", p, Imm(c))
        elif c:
            self.emit("adds", p, p, self.const_reg(c))
        return p

    def _zero_scratch(self, size: int) -> None:
        """Zero the first `size` bytes of the frame's scratch area, a word at a time."""
        z = self.fresh()
        self.emit("mov", Imm(0), z)
        for j in range(size // 4):
            self.emit("str", z, Mem(SP, Frame("local", self.SCRATCH, 4 * j)))

    def _scratch_pointer(self) -> R:
        """A register holding the scratch area's address."""
        q = self.fresh()
        self.emit("addsp", q, Mem(SP, Frame("local", self.SCRATCH, 0)))
        return q

    def _copy_loop(self, count: R, src: R, dst: R, done: str) -> None:
        """dst[i] = src[i] for i < count (down-counting index; branches to `done`)."""
        k = self.fresh()
        self.emit("mov", count, k)
        top = self.mf.label("cpy")
        self.label(top)
        self.emit("subs8", k, Imm(1))
        self.emit("bcc", Lbl(done))
        t = self.fresh()
        self.emit("ldrbr", t, src, k)
        self.emit("strbr", t, dst, k)
        self.emit("jmp", Lbl(top))

    def _clamped_count(self, c: R | None, nbytes: int) -> R:
        """A fresh register = min(c, nbytes) (nbytes if there is no count)."""
        k = self.fresh()
        if c is None:
            self.emit("mov", Imm(nbytes), k)
            return k
        self.emit("mov", c, k)
        ok = self.mf.label("cnt")
        self.emit("cmpi", k, Imm(nbytes))
        self.emit("bcc", Lbl(ok))
        self.emit("mov", Imm(nbytes), k)
        self.label(ok)
        return k

    def _in_place_test(self, addr: R, slow: str, fast: str | None = None) -> None:
        """Branch to `slow` unless the block's address is word-aligned (then to `fast`, if given,
        else fall through)."""
        m3 = self.const_reg(3)
        self.emit("tst", addr, m3)
        if fast is None:
            self.emit("bne", Lbl(slow))
        else:
            self.emit("beq", Lbl(fast))

    def _load_words(self, op, b: MemBind, nbytes: int, count, big: bool, aligned: bool = False) -> None:
        p = self._byte_addr_reg(b, self.get(op.args[1]))
        lead = (-nbytes) % 4
        if not aligned:
            self._load_to_words(p, nbytes, count, lead, big)
        n = (nbytes + lead) // 4
        out = []
        for limb in range(n):               # big-endian: limb q is memory word n-1-q, reversed
            r = self.fresh()
            self.emit("ldr", r, Mem(p.reg, 4 * (n - 1 - limb if big else limb)))
            if big:
                t = self.fresh()
                self.emit("rev", t, r)
                r = t
            out.append(r)
        self.put(op.results[0], out)

    def _load_to_words(self, p: R, nbytes: int, count, lead: int, big: bool) -> None:
        """Leave `p` pointing at the block's words: the buffer when aligned with the count (if
        any) covering the block, else the scratch area, filled by the byte loop."""
        c = self.reg(count[0]) if count is not None else None
        size = self.reserve_scratch(nbytes + lead)
        slow, words = self.mf.label("bytes"), self.mf.label("words")
        if not lead and c is not None:
            k, _, fill = self._count_entries(p, c, nbytes, words, slow)
            self._misaligned_entry(k, nbytes, fill)
            self.label(slow)
            self.emit("mov", c, k)
            self._zero_scratch(size)        # zero padding past the count (a short count only)
            self.label(fill)
        else:
            if not lead:                    # (no count here: the branch above takes one)
                self._in_place_test(p, slow, words)
            self.label(slow)
            if c is not None:               # zero padding past the count
                self._zero_scratch(size)
            k = self._clamped_count(c, nbytes)
        q = self._scratch_pointer()
        dst = q
        if lead and big:
            dst = self.fresh()
            self.emit("adds", dst, q, Imm(lead))
        done = self.mf.label("cpyd")
        self._copy_loop(k, p, dst, done)
        self.label(done)
        self.emit("mov", q, p)
        self.label(words)

    def _count_entries(self, addr: R, c: R, nbytes: int, fast: str | None, short: str) -> tuple:
        """The in-place test of a whole-word block with a run-time count c, whose slow path has
        two entries: `short` for c below the block (the caller emits `mov c -> k` there: no
        clamp) and the misaligned whole block (`_misaligned_entry`: `movs k, #nbytes; b fill`).
        Branches to `fast` when in place, the misaligned block to follow at once; or (fast None)
        to the returned label `mis` when misaligned, the in-place code to follow. Returns
        (k, mis, fill): the bytes to copy and the labels."""
        self.const_reg(3)                   # the alignment mask, set up before the count test
        k = self.fresh()
        mis, fill = self.mf.label("mis"), self.mf.label("fill")
        self.emit("cmpi", c, Imm(nbytes))
        self.emit("bcc", Lbl(short))
        self._in_place_test(addr, mis, fast)
        return k, mis, fill

    def _misaligned_entry(self, k: R, nbytes: int, fill: str) -> None:
        """A misaligned whole block: every byte copied (`movs k, #nbytes; b fill`)."""
        self.emit("mov", Imm(nbytes), k)
        self.emit("jmp", Lbl(fill))

    def _store_words(self, op, b: MemBind, v: list, nbytes: int, count, big: bool, aligned: bool = False) -> None:
        n = nbytes // 4
        raw = []                            # memory word j
        for j in range(n):
            limb = n - 1 - j if big else j
            x = self.reg(v[limb] if limb < len(v) else Imm(0))
            if big:
                t = self.fresh()
                self.emit("rev", t, x)
                x = t
            raw.append(x)
        q = self._byte_addr_reg(b, self.get(op.args[1]))
        if aligned:
            for j, x in enumerate(raw):
                self.emit("str", x, Mem(q.reg, 4 * j))
            return
        c = self.reg(count[0]) if count is not None else None
        self.reserve_scratch(nbytes)
        slow, done = self.mf.label("bytes"), self.mf.label("stored")
        if c is not None:
            k, mis, fill = self._count_entries(q, c, nbytes, None, slow)
        else:
            self._in_place_test(q, slow)
        for j, x in enumerate(raw):
            self.emit("str", x, Mem(q.reg, 4 * j))
        self.emit("jmp", Lbl(done))
        if c is not None:
            self.label(mis)
            self._misaligned_entry(k, nbytes, fill)
            self.label(slow)
            self.emit("mov", c, k)          # a count below the block: no clamp
            self.label(fill)
        else:
            self.label(slow)
            k = self._clamped_count(c, nbytes)
        for j, x in enumerate(raw):
            self.emit("str", x, Mem(SP, Frame("local", self.SCRATCH, 4 * j)))
        p = self.fresh()
        self.emit("addsp", p, Mem(SP, Frame("local", self.SCRATCH, 0)))
        self._copy_loop(k, p, q, done)
        self.label(done)

    def _load_partial(self, op, b: MemBind, nbytes: int, count: list, big: bool) -> None:
        p = self._byte_addr_reg(b, self.get(op.args[1]))
        c = self.reg(count[0])
        size = self.reserve_scratch(nbytes)
        full = self.mf.label("full")
        self.emit("cmpi", c, Imm(nbytes))
        self.emit("bcs", Lbl(full))
        # count < nbytes: the first count bytes into the zeroed scratch area, read from there
        self._zero_scratch(size)
        q = self._scratch_pointer()
        done = self.mf.label("cpyd")
        self._copy_loop(c, p, q, done)
        self.label(done)
        self.emit("mov", q, p)
        self.label(full)
        n = nlimbs(8 * nbytes, LIMB)
        out: list = [Imm(0)] * n
        for k in range(nbytes):
            r = self.fresh()
            self.emit("ldrb", r, Mem(p.reg, k))
            qq, s = divmod(self.byte_position(k, nbytes, big), LIMB)
            out[qq] = self.bitop("orrs", out[qq], self.shl1(r, s))
        self.put(op.results[0], out)

    def _store_partial(self, op, b: MemBind, v: list, nbytes: int, count: list, big: bool) -> None:
        q = self._byte_addr_reg(b, self.get(op.args[1]))
        c = self.reg(count[0])
        self.reserve_scratch(nbytes)
        p = self.fresh()
        self.emit("mov", q, p)
        full = self.mf.label("full")
        self.emit("cmpi", c, Imm(nbytes))
        self.emit("bcs", Lbl(full))
        self.emit("addsp", p, Mem(SP, Frame("local", self.SCRATCH, 0)))   # count < nbytes
        self.label(full)
        for k in range(nbytes):
            qq, s = divmod(self.byte_position(k, nbytes, big), LIMB)
            src = self.reg(self.shr1(v[qq], s) if qq < len(v) else Imm(0))
            self.emit("strb", src, Mem(p.reg, k))
        done = self.mf.label("cpyd")
        self.emit("cmp", p, q)              # equal: stored in place
        self.emit("beq", Lbl(done))
        self._copy_loop(c, p, q, done)
        self.label(done)

    def _store_bytes(self, op, big: bool):
        mem, off, val, *cnt = op.args
        self.materialize_pending()
        b = self.memory(mem)
        v = self.get(val)
        nbytes = op.attrs["bytes"]
        count, nb = self.block_count(cnt, nbytes)
        if self.known_aligned(op):
            return self._store_words(op, b, v, nbytes, None, big, aligned=True)
        if self.word_block(b, nbytes) and (count is not None or nb == nbytes):
            return self._store_words(op, b, v, nbytes, count, big)
        if count is not None and self.PARTIAL_LOOP_MIN <= nbytes <= 32:
            return self._store_partial(op, b, v, nbytes, count, big)
        bb, c0 = self._byte_base(b, self.get(off))
        for k in range(nb):
            q, s = divmod(self.byte_position(k, nbytes, big), LIMB)
            src = self.reg(self.shr1(v[q], s) if q < len(v) else Imm(0))
            if count is None:
                self.access("strb", src, bb, c0 + k)
            else:
                skip = self.mf.label("nost")
                self.emit("cmpi", self.reg(count[0]), Imm(k + 1))
                self.emit("bcc", Lbl(skip))
                self.access("strb", src, bb, c0 + k)
                self.label(skip)
