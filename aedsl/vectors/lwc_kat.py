"""NIST LWC AEAD KAT files (`genkat_aead.c` output): Count / Key / Nonce / PT / AD / CT, where
CT = ciphertext || tag. The same paragraph shape with the names Plaintext / AAD / Ciphertext is
used by the RFC 7253 OCB3 file of `cryptography_vectors` (see `ocb3_rfc7253`)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .nist_blocks import read_blocks
from .records import AeadVector, Origin, VectorFormatError, unhex

_ALIASES = {"pt": ("pt", "plaintext"), "ad": ("ad", "aad"), "ct": ("ct", "ciphertext")}


def _field(fields: dict[str, str], name: str, where: Origin) -> str:
    for alias in _ALIASES.get(name, (name,)):
        if alias in fields:
            return fields[alias]
    raise VectorFormatError(f"{where}: paragraph has no {name!r}")


def read(path: str | Path, tag_len: int | None = None, algorithm: str = "") -> Iterator[AeadVector]:
    """`tag_len` None: inferred as len(CT) - len(PT) and required to be the same in every
    paragraph (a file never mixes tag lengths); given: every paragraph must agree with it."""
    for b in read_blocks(path):
        where = Origin(str(path), b.line)
        f = b.fields
        pt = unhex(_field(f, "pt", where), where)
        ctt = unhex(_field(f, "ct", where), where)
        t = len(ctt) - len(pt)
        if tag_len is None:
            tag_len = t
        if t != tag_len or t < 0:
            raise VectorFormatError(f"{where}: CT is {len(ctt)} bytes for a {len(pt)}-byte PT, "
                                    f"not PT + {tag_len}-byte tag")
        yield AeadVector(
            id=f"Count={f['count']}",
            key=unhex(_field(f, "key", where), where),
            nonce=unhex(_field(f, "nonce", where), where),
            ad=unhex(_field(f, "ad", where), where),
            msg=pt, ct=ctt[: len(pt)], tag=ctt[len(pt):],
            algorithm=algorithm, origin=where)
