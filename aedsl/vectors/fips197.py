"""FIPS 197 (AES), Appendix C "Example Vectors" C.1-C.3: the standard's own worked examples,
written here as data (published constants of the standard). Plaintext 00112233..ff, keys
000102..; the NIST CAVP ECB files (`cavp:aes:*` sources) are the larger official set."""
from __future__ import annotations

from .records import BlockVector, Origin

_PT = bytes.fromhex("00112233445566778899aabbccddeeff")
_CASES = (
    ("C.1 AES-128", 16, "69c4e0d86a7b0430d8cdb78070b4c55a"),
    ("C.2 AES-192", 24, "dda97ca4864cdfe06eaf70a0ec0d7191"),
    ("C.3 AES-256", 32, "8ea2b7ca516745bfeafc49904b496089"),
)


def read(path: object = None) -> list[BlockVector]:
    return [BlockVector(id=name, key=bytes(range(klen)), pt=_PT, ct=bytes.fromhex(ct), block_bytes=16,
                        algorithm="AES", origin=Origin("FIPS 197 Appendix C", 0))
            for name, klen, ct in _CASES]
