"""The typed records every vector reader yields, whatever the file format.

A record remembers the file and line it came from, so a failing vector can be found again
by a human (`origin` prints as `path:line`)."""
from __future__ import annotations

from dataclasses import dataclass


class VectorFormatError(ValueError):
    """A vector file does not say what its format promises (message names file:line)."""


class VectorKindError(TypeError):
    """Vectors of one kind (AEAD, block cipher) given to an engine of the other."""


@dataclass(frozen=True)
class Origin:
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class AeadVector:
    """One authenticated-encryption case. `valid` False means the (ct, tag) pair must be
    rejected by decryption (a tampered tag, a CAVP `FAIL`, Wycheproof `invalid`)."""

    id: str
    key: bytes
    nonce: bytes
    ad: bytes
    msg: bytes | None  # None when the file gives no plaintext (rejected cases)
    ct: bytes
    tag: bytes
    valid: bool = True
    flags: tuple[str, ...] = ()
    comment: str = ""
    algorithm: str = ""  # as the file names it (Wycheproof `algorithm`, Crypto++ `Name`), "" if unstated
    origin: Origin | None = None

    @property
    def params(self) -> tuple[int, int, int]:
        """(key, nonce, tag) lengths in bytes: what `AeadEngine.supports` is asked."""
        return len(self.key), len(self.nonce), len(self.tag)


@dataclass(frozen=True)
class BlockVector:
    """One block-cipher case; `pt`/`ct` may hold several blocks (ECB: each block independent).
    `block_bytes` is set when the file fixes the block size (SPECK families); None = any."""

    id: str
    key: bytes
    pt: bytes
    ct: bytes
    block_bytes: int | None = None
    comment: str = ""
    algorithm: str = ""
    origin: Origin | None = None


def unhex(text: str, where: Origin | str) -> bytes:
    """Hex to bytes, tolerating spaces; errors name the place in the file."""
    t = "".join(text.split())
    try:
        return bytes.fromhex(t)
    except ValueError as e:
        raise VectorFormatError(f"{where}: bad hex {text[:40]!r}: {e}") from None
