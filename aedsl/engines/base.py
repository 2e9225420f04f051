"""What a known-answer or differential test runs: an *engine* that executes one compiled spec.

The same vectors run through every engine, so the interpreter (reference semantics) and the
generated code in each simulator are judged by one runner (`aedsl.vectors.runner`).
"""
from __future__ import annotations

from typing import Protocol


class AeadEngine(Protocol):
    """An authenticated-encryption scheme (mode + cipher), bound to its knobs."""

    name: str

    def supports(self, key_len: int, nonce_len: int, tag_len: int) -> bool:
        """Whether these parameter lengths (bytes) are in the spec's domain; others are skipped."""

    def encrypt(self, key: bytes, nonce: bytes, ad: bytes, msg: bytes, tag_len: int) -> bytes:
        """Ciphertext || tag."""

    def decrypt(self, key: bytes, nonce: bytes, ad: bytes, ct: bytes, tag: bytes) -> bytes | None:
        """The message, or None when the tag does not verify (nothing else is released)."""


class BlockCipherEngine(Protocol):
    """A block cipher primitive (AES, SPECK, ...)."""

    name: str
    block_bytes: int

    def supports(self, key_len: int) -> bool: ...

    def encrypt_block(self, key: bytes, block: bytes) -> bytes: ...

    def decrypt_block(self, key: bytes, block: bytes) -> bytes: ...
