"""MSP430 byte-order block access (`load_be/le`, `store_be/le`): byte moves, or the word path
with its scratch fallback (codegen/select/bytes.py describes the shape)."""
from __future__ import annotations

from aedsl.ir.passes.common import is_size_mode
from aedsl.codegen.mir import Frame, Imm, Inc, Ind, Lbl, Mem, R
from aedsl.codegen.select_base import MemBind, nlimbs
from ..target import SP
from .operands import M16, cheap_src


class Msp430Buffers:
    """Selector mixin: `_load_bytes` / `_store_bytes` of the shared byte-block handlers."""

    # The word path (`_load_words`, `_store_words`): a block of an even number >= 8 of bytes of
    # a pointer buffer at an even (or run-time) offset; an odd-sized partial load of 7 or more
    # through the scratch area, one zero byte beside it making the block even.
    WORD_BLOCK_MIN = 8
    ODD_BLOCK_MIN = 7

    def _word_access(self, b: MemBind, offl: list, nbytes: int) -> bool:
        if not self.word_block(b, nbytes):
            return False
        c = self.const_of(offl)
        return c is None or c % 2 == 0

    def _load_bytes(self, op, big: bool):
        mem, off, *cnt = op.args
        b = self.memory(mem)
        self._ob_key = None
        offl = self.get(off)
        nbytes = op.attrs["bytes"]
        count, nb = self.block_count(cnt, nbytes)
        n = nlimbs(8 * nbytes, 16)
        if self.known_aligned(op):
            return self._load_words(op, b, offl, nbytes, None, big, aligned=True)
        if nb == nbytes and (self._word_access(b, offl, nbytes) or self.odd_block(b, nbytes, count)):
            return self._load_words(op, b, offl, nbytes, count, big)
        bytes_ = []
        for k in range(nbytes):
            if k >= nb:
                bytes_.append(Imm(0))
                continue
            r = R(self.vreg())
            if count is None:
                self.emit("mov.b", self.byte_addr(b, offl, k), r)
            else:
                skip = self.mf.label("nob")
                self.emit("clr", r)
                self.emit("cmp", Imm(k + 1), self.as_dst(count[0]))
                self.emit("jnc", Lbl(skip))
                self.emit("mov.b", self.byte_addr(b, offl, k), r)
                self.label(skip)
            bytes_.append(r)
        # byte k of the buffer is bits 8*(nbytes-1-k) (BE) or 8*k (LE) of the word
        out: list = [Imm(0)] * n
        for k, x in enumerate(bytes_):
            q, s = divmod(self.byte_position(k, nbytes, big), 16)
            part = self.shl16(x, s, known_bits=8) if s else x
            out[q] = self.bitop("bis", out[q], part)
        self.put(op.results[0], out)

    def _store_bytes(self, op, big: bool):
        mem, off, val, *cnt = op.args
        b = self.memory(mem)
        self.materialize_pending()
        self._ob_key = None
        offl = self.get(off)
        v = self.get(val)
        nbytes = op.attrs["bytes"]
        count = self.get(cnt[0]) if cnt else None
        cc = self.const_of(count) if count is not None else None
        if self.known_aligned(op):
            return self._store_words(b, offl, v, nbytes, big, None, aligned=True)
        if (cc is None or cc >= nbytes) and self._word_access(b, offl, nbytes):
            return self._store_words(b, offl, v, nbytes, big, None if cc is not None else count)
        swapped: dict = {}
        for k in range(nbytes):
            q, s = divmod(self.byte_position(k, nbytes, big), 16)
            limb = v[q]
            if s:
                if q not in swapped:
                    if isinstance(limb, Imm):
                        swapped[q] = Imm((limb.value >> 8) & 0xFF)
                    else:
                        t = self.copy(limb)
                        self.emit("swpb", t)
                        swapped[q] = t
                src = swapped[q]
            else:
                src = limb if not isinstance(limb, Imm) else Imm(limb.value & 0xFF)
            if count is None:
                self.emit("movb.st", src, self.byte_addr(b, offl, k))
            else:
                skip = self.mf.label("nost")
                self.emit("cmp", Imm(k + 1), self.as_dst(count[0]))
                self.emit("jnc", Lbl(skip))
                self.emit("movb.st", src, self.byte_addr(b, offl, k))
                self.label(skip)

    # Word path with a scratch fallback (buffers of WORD_BLOCK_MIN+ bytes): the block is read or
    # written as words at a pointer that is the buffer itself when it is even and the count (if
    # any) covers the block, else the frame area `bytes.tmp`, which one byte loop fills from the
    # buffer (load: zero-padded past the count) or drains into it (store). One copy of the word
    # code and a byte loop replace a byte sequence with a count test per byte; the steady
    # state (aligned, full blocks) runs the same word moves as before, without the jump over the
    # byte code. Partial and odd-addressed blocks pay the loops (`_pad_copy`: 8-9 cycles a byte;
    # size mode's one loop, `_pad_copy_compact`, about 20 bytes shorter: 12-16).
    def block_address(self, b: MemBind, offl: list) -> R:
        return self._addr_reg(b, offl)

    def _addr_reg(self, b: MemBind, offl: list) -> R:
        """A fresh register holding the address of byte `offl` of pointer buffer `b`."""
        c = self.const_of(offl)
        if c is None:
            p = self._offset_base(b, offl)
            self._ob_key = None             # redefined below: not to be reused as the base
            return p
        p = R(self.vreg())
        self.emit("mov", R(b.base), p)
        if c:
            self.emit("add", Imm(c), p)
        return p

    def _scratch(self, nbytes: int) -> Mem:
        self.reserve_scratch(nbytes)
        return Mem(SP, Frame("local", self.SCRATCH, 0))

    def _load_words(self, op, b: MemBind, offl: list, nbytes: int, count, big: bool,
                    aligned: bool = False) -> None:
        # Layout: test; words: the word moves; jmp join; the loop; jmp words; join. The fast
        # path is one straight block ending in a jump (as before the loop existed), so the
        # delay-slot scheduler still finds the word moves beside an accelerator operation.
        # An odd size has only the loop: its bytes go to scratch + 1 (big-endian: the zero byte
        # 0 is then the value's top byte) or scratch + 0 (little-endian: the top byte is last).
        p = self._addr_reg(b, offl)
        if aligned:                         # proved even (align_versioning): the moves alone
            words = [R(self.vreg()) for _ in range(nbytes // 2)]
            for i, w in enumerate(words):
                self.emit("mov", cheap_src(Mem(p.reg, 2 * i)), w)
            return self._words_value(op, words, nbytes, big)
        odd = nbytes % 2
        slow, words_at, join = self.mf.label("bytes"), self.mf.label("words"), self.mf.label("join")
        if not odd:
            if count is not None:
                self.emit("cmp", Imm(nbytes), self.as_dst(count[0]))
                self.emit("jnc", Lbl(slow))
            self.emit("bit", Imm(1), p)
            self.emit("jnz", Lbl(slow))
        else:
            self.emit("jmp", Lbl(slow))
        self.label(words_at)
        words = [R(self.vreg()) for _ in range((nbytes + 1) // 2)]
        for i, w in enumerate(words):       # memory order: byte 2i low, byte 2i+1 high
            self.emit("mov", cheap_src(Mem(p.reg, 2 * i)), w)
        self.emit("jmp", Lbl(join))
        self.label(slow)
        q, s = R(self.vreg()), R(self.vreg())
        area = self._scratch(nbytes + odd)
        self.emit("lea", area, q)
        self.emit("mov", q, s)
        if odd:
            self.emit("clr", Mem(SP, Frame("local", self.SCRATCH, nbytes - 1 if not big else 0)))
            if big:
                self.emit("inc", s)
        if is_size_mode(self.module.knobs):
            self._pad_copy_compact(p, s, nbytes, count)
        else:
            self._pad_copy(p, s, nbytes, count)
        self.emit("mov", q, p)
        self.emit("jmp", Lbl(words_at))
        self.label(join)
        self._words_value(op, words, nbytes, big)

    def _pad_copy(self, p: R, s: R, nbytes: int, count) -> None:
        """The block's bytes from `p` to the scratch area at `s`: the count's first bytes (at
        most `nbytes`; all of them without a count) by `mov.b @p+, 0(s)`, 9 cycles a byte with
        its loop, then zeros to the block's end, 8 cycles a byte. About 20 bytes more code than
        `_pad_copy_compact`, for half its cycles a byte (OCB3's 12-byte nonce in its 15-byte
        field: about 100 cycles a message)."""
        c = R(self.vreg())
        if count is None:
            self.emit("mov", Imm(nbytes), c)
            fill = None
        else:
            fill, capped = R(self.vreg()), self.mf.label("cap")
            self.emit("mov", count[0], c)
            self.emit("cmp", Imm(nbytes), c)
            self.emit("jnc", Lbl(capped))
            self.emit("mov", Imm(nbytes), c)
            self.label(capped)
            self.emit("mov", Imm(nbytes), fill)
            self.emit("sub", c, fill)
        top, zeros, zero, done = (self.mf.label(n) for n in ("cpy", "zeros", "zero", "filled"))
        if fill is not None:
            self.emit("tst", c)
            self.emit("jz", Lbl(zeros))
        self.label(top)
        self.emit("movb.st", Inc(p.reg), Mem(s.reg, 0))
        self.emit("inc", s)
        self.emit("dec", c)
        self.emit("jnz", Lbl(top))
        if fill is not None:
            self.label(zeros)
            self.emit("tst", fill)
            self.emit("jz", Lbl(done))
            self.label(zero)
            self.emit("movb.st", Imm(0), Mem(s.reg, 0))
            self.emit("inc", s)
            self.emit("dec", fill)
            self.emit("jnz", Lbl(zero))
            self.label(done)

    def _pad_copy_compact(self, p: R, s: R, nbytes: int, count) -> None:
        """`_pad_copy` as one loop over the block (size mode): each byte is the buffer's while
        the count lasts, else zero; 16 cycles a byte with a count, 12 without."""
        k, t = R(self.vreg()), R(self.vreg())
        self.emit("mov", Imm(nbytes), k)
        left = None
        if count is not None:
            left = R(self.vreg())
            self.emit("mov", count[0], left)
        top, pad = self.mf.label("cpy"), self.mf.label("pad")
        self.label(top)
        self.emit("clr", t)
        if left is not None:                # past the count: zero padding
            self.emit("tst", left)
            self.emit("jz", Lbl(pad))
        self.emit("mov.b", Ind(p.reg), t)
        self.emit("inc", p)
        if left is not None:
            self.emit("dec", left)
            self.label(pad)
        self.emit("movb.st", t, Mem(s.reg, 0))
        self.emit("inc", s)
        self.emit("dec", k)
        self.emit("jnz", Lbl(top))

    def _words_value(self, op, words: list, nbytes: int, big: bool) -> None:
        """The loaded block's value from its memory-order words."""
        n = nlimbs(8 * nbytes, 16)
        out = []
        for q_ in range(n):                 # limb q of a big-endian value: word n-1-q, swapped
            w = words[n - 1 - q_] if big else words[q_]
            if big:
                self.emit("swpb", w)
            out.append(w)
        self.put(op.results[0], out)

    def _store_words(self, b, offl, v, nbytes, big, count, aligned: bool = False):
        """Store on the word path (see `_load_words`), through the scratch area when needed."""
        n = nbytes // 2
        raw = []                            # memory-order words: byte 2i low, byte 2i+1 high
        for i in range(n):
            q = n - 1 - i if big else i
            limb = v[q] if q < len(v) else Imm(0)
            if isinstance(limb, Imm):
                x = limb.value & M16
                raw.append(Imm(((x << 8) | (x >> 8)) & M16) if big else Imm(x))
            elif big:
                t = self.copy(limb)
                self.emit("swpb", t)
                raw.append(t)
            else:
                raw.append(limb)
        # Layout: test; the word stores in place; jmp done; the word stores to the scratch
        # area (SP-relative) and the byte loop; done. The fast path is exactly the word stores
        # (no extra live register): 4 bytes per word of duplicate code buy that.
        dst = self._addr_reg(b, offl)
        if aligned:                         # proved even (align_versioning): the stores alone
            for i, w in enumerate(raw):
                self.emit("mov", w, Mem(dst.reg, 2 * i))
            return
        if is_size_mode(self.module.knobs):
            return self._store_words_once(dst, raw, nbytes, count)
        slow, done = self.mf.label("bytes"), self.mf.label("stored")
        if count is not None:
            self.emit("cmp", Imm(nbytes), self.as_dst(count[0]))
            self.emit("jnc", Lbl(slow))
        self.emit("bit", Imm(1), dst)
        self.emit("jnz", Lbl(slow))
        for i, w in enumerate(raw):
            self.emit("mov", w, Mem(dst.reg, 2 * i))
        self.emit("jmp", Lbl(done))
        self.label(slow)
        area = self._scratch(nbytes)
        for i, w in enumerate(raw):
            self.emit("mov", w, Mem(SP, Frame("local", self.SCRATCH, 2 * i)))
        p = R(self.vreg())
        self.emit("lea", area, p)
        self._drain(p, dst, nbytes, count, done)

    def _store_words_once(self, dst: R, raw: list, nbytes: int, count) -> None:
        """Size mode's word path of a store: one copy of the word stores, through a pointer that
        is the buffer itself (even address, the count covering the block) or the scratch area,
        which the byte loop then drains into the buffer. Against the two copies of speed mode
        (in place, and to the scratch area) it saves 4 bytes a word less about 8, and costs a
        whole block 4 cycles (`mov`, `cmp`, `jz`; SLAU144 Table 3-16 and §3.4.6).

            mov dst, t; [cmp #n, count; jnc slow;] bit #1, dst; jz store
            slow: lea scratch, t
            store: mov w_i, 2i(t) ...; cmp t, dst; jz done
            (t is the scratch area) k = min(count, n); byte loop from t to dst; done:"""
        area = self._scratch(nbytes)
        t = R(self.vreg())
        slow, store, done = self.mf.label("bytes"), self.mf.label("words"), self.mf.label("stored")
        self.emit("mov", dst, t)
        if count is not None:
            self.emit("cmp", Imm(nbytes), self.as_dst(count[0]))
            self.emit("jnc", Lbl(slow))
        self.emit("bit", Imm(1), dst)
        self.emit("jz", Lbl(store))
        self.label(slow)
        self.emit("lea", area, t)
        self.label(store)
        for i, w in enumerate(raw):
            self.emit("mov", w, Mem(t.reg, 2 * i))
        self.emit("cmp", t, dst)
        self.emit("jz", Lbl(done))
        self._drain(t, dst, nbytes, count, done)

    def _drain(self, p: R, dst: R, nbytes: int, count, done: str) -> None:
        """The byte loop of a store's scratch path: min(count, nbytes) bytes (count may cover the
        block; all of them without a count) from `p` to `dst`, then the label `done`."""
        k = R(self.vreg())
        if count is not None:
            self.emit("mov", count[0], k)
            ok = self.mf.label("cnt")
            self.emit("cmp", Imm(nbytes), k)
            self.emit("jnc", Lbl(ok))
            self.emit("mov", Imm(nbytes), k)
            self.label(ok)
            self.emit("tst", k)
            self.emit("jz", Lbl(done))
        else:
            self.emit("mov", Imm(nbytes), k)
        top = self.mf.label("cpy")
        self.label(top)
        self.emit("movb.st", Ind(p.reg), Mem(dst.reg, 0))
        self.emit("inc", p)
        self.emit("inc", dst)
        self.emit("dec", k)
        self.emit("jnz", Lbl(top))
        self.label(done)
