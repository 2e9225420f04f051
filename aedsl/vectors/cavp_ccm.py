"""NIST CAVP CCM response files (CAVS 11.0): DVPT (decryption-verification, `Result = Pass|Fail`),
VADT / VNT / VPT / VTT (variable AD / nonce / payload / tag length, all valid).

Lengths are in bytes: Alen, Plen, Nlen, Tlen come from the `[...]` section header or from
file-level lines. A zero-length Adata or Payload is written as `00` and must be cut by its length.
CT = ciphertext || tag (Plen + Tlen bytes)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .nist_blocks import need, read_blocks
from .records import AeadVector, Origin, VectorFormatError, unhex


def _sized(text: str, n: int, what: str, where: Origin) -> bytes:
    data = unhex(text, where)[:n] if n else b""
    if len(data) != n:
        raise VectorFormatError(f"{where}: {what} is {len(data)} bytes, header says {n}")
    return data


def read(path: str | Path) -> Iterator[AeadVector]:
    for b in read_blocks(path):
        where = Origin(str(path), b.line)
        alen, plen, nlen, tlen = (int(need(b, k, path)) for k in ("alen", "plen", "nlen", "tlen"))
        ctt = _sized(need(b, "ct", path), plen + tlen, "CT", where)
        result = b.fields.get("result", "Pass")  # only DVPT files carry a verdict
        valid = result.split()[0] == "Pass"
        payload = b.fields.get("payload", b.params.get("payload"))
        msg = _sized(payload, plen, "Payload", where) if payload is not None else None
        if valid and msg is None:
            raise VectorFormatError(f"{where}: valid case without Payload")
        section = ",".join(f"{k}={b.params[k]}" for k in ("alen", "plen", "nlen", "tlen") if k in b.params)
        yield AeadVector(
            id=f"[{section}] Count={b.fields['count']}",
            key=unhex(need(b, "key", path), where),
            nonce=_sized(need(b, "nonce", path), nlen, "Nonce", where),
            ad=_sized(need(b, "adata", path), alen, "Adata", where),
            msg=msg, ct=ctt[:plen], tag=ctt[plen:], valid=valid,
            comment=result, algorithm="AES-CCM", origin=where)
