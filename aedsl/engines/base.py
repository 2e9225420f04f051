"""What a known-answer or differential test runs: an *engine* that executes one compiled spec.

The same vectors run through every engine, so the interpreter (reference semantics) and the
generated code in each simulator are judged by one runner (`aedsl.vectors.runner`).
"""
from __future__ import annotations

from typing import Protocol

from aedsl.frontend.diagnostics import SpecError

BLOCK_ENTRIES = ("key_schedule", "encrypt_block", "decrypt_block")


def block_sizes(consts: dict, path: str) -> tuple[int, int]:
    """(block_bits, key_bits) of a block cipher spec; SpecError unless both are declared (as a
    const or knob) and are positive multiples of 8."""
    out = []
    for name in ("block_bits", "key_bits"):
        v = consts.get(name)
        if not isinstance(v, int) or v <= 0 or v % 8:
            raise SpecError(f"a block cipher declares {name} (a const or knob, a positive multiple of 8); "
                            f"this spec has {name} = {v}", path)
        out.append(v)
    return out[0], out[1]


def block_signature_error(shapes: dict[str, tuple[list[str], int]], path: str) -> None:
    """SpecError unless `shapes` (entry -> (parameter kinds "mem" | "value", result count))
    is the block-cipher interface: key_schedule(key, ks[]), encrypt_block(ks[], block) -> block,
    decrypt_block likewise."""
    want = {"key_schedule": (["value", "mem"], 0), "encrypt_block": (["mem", "value"], 1),
            "decrypt_block": (["mem", "value"], 1)}
    for name, shape in want.items():
        if shapes.get(name) != shape:
            raise SpecError(f"a block cipher's {name} must be {name}"
                            f"({'key, ks: array' if name == 'key_schedule' else 'ks: array, block'})"
                            f"{' -> block' if shape[1] else ''}", path)


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
