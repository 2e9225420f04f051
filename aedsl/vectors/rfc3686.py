"""RFC 3686 §6's AES-CTR test vectors, as `cryptography_vectors/ciphers/AES/CTR/aes-{128,192,256}-ctr.txt`
holds them (an `[ENCRYPT]` section of COUNT / KEY / IV / PLAINTEXT / CIPHERTEXT; IV is the whole
16-byte initial counter block: nonce, IV and a block counter starting at 1). Read as AEAD records
without associated data or tag, the interface of specs/schemes/ctr.ae: its 16-byte nonce is the
initial counter block. The counter never passes 32 bits in these cases, so SP 800-38A's 128-bit
increment (ctr.ae's) and RFC 3686's 32-bit one agree on them."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .nist_blocks import need, read_blocks
from .records import AeadVector, Origin, VectorFormatError, unhex


def read(path: str | Path) -> Iterator[AeadVector]:
    for b in read_blocks(path):
        where = Origin(str(path), b.line)
        pt, ct = unhex(need(b, "plaintext", path), where), unhex(need(b, "ciphertext", path), where)
        counter = unhex(need(b, "iv", path), where)
        if len(pt) != len(ct) or len(counter) != 16:
            raise VectorFormatError(f"{where}: PLAINTEXT/CIPHERTEXT/IV lengths {len(pt)}/{len(ct)}/{len(counter)}")
        yield AeadVector(id=f"COUNT={b.fields['count']}", key=unhex(need(b, "key", path), where), nonce=counter,
                         ad=b"", msg=pt, ct=ct, tag=b"", algorithm="AES-CTR", origin=where)
