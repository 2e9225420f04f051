"""Byte-order block access (`load_be/le`, `store_be/le`) shared by the targets: the dispatch and
the shape of the word-block path.

A block of `bytes` bytes of a byte buffer is read or written a byte at a time in general. A
block that is a whole number of machine words (`word_block`) goes as words instead when its
address is aligned and its count (if any) covers it, else through the frame scratch area
`bytes.tmp` with a byte copy loop; a partial block of another size (`odd_block`) always goes
through the scratch area. Each target emits the paths (`_load_bytes`, `_store_bytes`); the
sizes are its class data: WORD_BLOCK_MIN / WORD_BLOCK_MAX (bytes, None: no maximum) and
ODD_BLOCK_MIN / ODD_BLOCK_MAX. A block of whole words that passes/align_versioning.py marked
`aligned` (no count) takes the word path whatever its size, with no test and no fallback.
"""
from __future__ import annotations


class ByteBlocks:
    """Selector mixin: byte-order block handlers and the word-block shape tests."""

    SCRATCH = "bytes.tmp"
    WORD_BLOCK_MIN = 8
    WORD_BLOCK_MAX: int | None = None
    ODD_BLOCK_MIN = 8
    ODD_BLOCK_MAX: int | None = None

    def op_load_be(self, op):
        self._load_bytes(op, True)

    def op_load_le(self, op):
        self._load_bytes(op, False)

    def op_store_be(self, op):
        self._store_bytes(op, True)

    def op_store_le(self, op):
        self._store_bytes(op, False)

    def op_addr_low(self, op):
        """The low bits of the address of byte `off` of a byte buffer (align_versioning's test):
        the target's block address (`block_address`), masked."""
        b = self.memory(op.args[0])
        a = self.block_address(b, self.get(op.args[1]))
        self.put(op.results[0], self.mask([a], op.results[0].width))

    def known_aligned(self, op) -> bool:
        """A block access of whole machine words that align_versioning proved word-aligned and
        whole (attribute `aligned`: no count, or a constant one that covers the block): the
        word path with no test and no byte fallback."""
        return bool(op.attrs.get("aligned")) and op.attrs["bytes"] % (self.LIMB // 8) == 0

    def block_count(self, cnt: list, nbytes: int):
        """(count limbs or None, bytes to access): a constant count is folded into the size."""
        count = self.get(cnt[0]) if cnt else None
        if count is not None and self.const_of(count) is not None:
            return None, min(self.const_of(count), nbytes)
        return count, nbytes

    @staticmethod
    def byte_position(k: int, nbytes: int, big: bool) -> int:
        """The bit position in the value of byte k of the block."""
        return 8 * (nbytes - 1 - k) if big else 8 * k

    def _byte_buffer(self, b) -> bool:
        return b.kind == "ptr" and b.stride == 1

    def word_block(self, b, nbytes: int) -> bool:
        """A block of whole machine words of a pointer buffer, in the word path's size range."""
        wb = self.LIMB // 8
        return self._byte_buffer(b) and nbytes % wb == 0 and self.WORD_BLOCK_MIN <= nbytes and (
            self.WORD_BLOCK_MAX is None or nbytes <= self.WORD_BLOCK_MAX)

    def odd_block(self, b, nbytes: int, count) -> bool:
        """A partial load (run-time count) of a size that is no whole number of machine words:
        always through the zeroed scratch area."""
        wb = self.LIMB // 8
        return self._byte_buffer(b) and nbytes % wb != 0 and self.ODD_BLOCK_MIN <= nbytes and (
            self.ODD_BLOCK_MAX is None or nbytes <= self.ODD_BLOCK_MAX) and count is not None

    def reserve_scratch(self, nbytes: int) -> int:
        """Reserve (at least) `nbytes` of the scratch area, word-aligned; returns the size."""
        wb = self.LIMB // 8
        size = (nbytes + wb - 1) & ~(wb - 1)
        self.mf.locals[self.SCRATCH] = max(self.mf.locals.get(self.SCRATCH, 0), size)
        return size
