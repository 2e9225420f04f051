"""RFC 7253 (OCB3) sample results, as `cryptography_vectors/ciphers/AES/OCB3/rfc7253.txt` holds them:
16 AES-128 cases, all with a 12-byte nonce (BBAA99887766554433221100..0F) and a 16-byte tag
(Ciphertext = C || T). The RFC's one 96-bit-tag sample and its iterated all-zero-key test are not
in that file. The same directory holds 13-, 14- and 15-byte-nonce forms of the same cases
(`test-vector-1-nonce104/112/120.txt`) in the same layout."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from . import lwc_kat
from .records import AeadVector


def read(path: str | Path, tag_len: int | None = None) -> Iterator[AeadVector]:
    return lwc_kat.read(path, tag_len=tag_len, algorithm="AES-OCB3")
