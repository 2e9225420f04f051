"""NIST CAVP AESAVS ECB response files (ECBGFSbox, ECBKeySbox, ECBVarKey, ECBVarTxt, ECBMMT;
128/192/256): `[ENCRYPT]` / `[DECRYPT]` sections of COUNT / KEY / PLAINTEXT / CIPHERTEXT.
MMT cases hold several blocks; in ECB each block is independent, so a record keeps them together.
Both sections are read: a block cipher engine is checked in both directions on every record."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .nist_blocks import need, read_blocks
from .records import BlockVector, Origin, VectorFormatError, unhex


def read(path: str | Path, algorithm: str = "AES") -> Iterator[BlockVector]:
    for b in read_blocks(path):
        where = Origin(str(path), b.line)
        pt, ct = unhex(need(b, "plaintext", path), where), unhex(need(b, "ciphertext", path), where)
        if len(pt) != len(ct) or len(pt) % 16:
            raise VectorFormatError(f"{where}: PLAINTEXT/CIPHERTEXT lengths {len(pt)}/{len(ct)}")
        yield BlockVector(
            id=f"[{b.params.get('section', '?')}] COUNT={b.fields['count']}",
            key=unhex(need(b, "key", path), where), pt=pt, ct=ct, block_bytes=16,
            algorithm=algorithm, origin=where)
