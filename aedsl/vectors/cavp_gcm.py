"""NIST CAVP GCM response files (CAVS 14.0): gcmEncryptExtIV{128,192,256}.rsp (all valid) and
gcmDecrypt{128,192,256}.rsp (a bare `FAIL` line instead of `PT` marks a case to reject).

Section headers give Keylen, IVlen, PTlen, AADlen, Taglen in *bits* (all multiples of 8 here;
IVlen is 8, 96 or 1024). Each file has 525 sections of 15 cases (7875 cases).

Sampling: `per_section=N` keeps the first N cases of every section (file order), a deterministic
rule that still covers every (key, IV, PT, AAD, tag) length combination."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .nist_blocks import need, read_blocks
from .records import AeadVector, Origin, VectorFormatError, unhex

_LENGTHS = ("keylen", "ivlen", "ptlen", "aadlen", "taglen")


def read(path: str | Path, per_section: int | None = None) -> Iterator[AeadVector]:
    seen: dict[tuple[str, ...], int] = {}
    for b in read_blocks(path):
        where = Origin(str(path), b.line)
        section = tuple(b.params.get(k, "?") for k in _LENGTHS)
        n = seen.get(section, 0)
        seen[section] = n + 1
        if per_section is not None and n >= per_section:
            continue
        bits = {k: int(need(b, k, path)) for k in _LENGTHS}
        if any(v % 8 for v in bits.values()):
            raise VectorFormatError(f"{where}: bit lengths {bits} not whole bytes")
        fail = "FAIL" in b.words
        vec = AeadVector(
            id=f"[{'/'.join(section)}] Count={b.fields['count']}",
            key=unhex(need(b, "key", path), where), nonce=unhex(need(b, "iv", path), where),
            ad=unhex(need(b, "aad", path), where),
            msg=None if fail else unhex(need(b, "pt", path), where),
            ct=unhex(need(b, "ct", path), where), tag=unhex(need(b, "tag", path), where),
            valid=not fail, algorithm="AES-GCM", origin=where)
        got = (len(vec.key), len(vec.nonce), len(vec.ct), len(vec.ad), len(vec.tag))
        if got != tuple(bits[k] // 8 for k in _LENGTHS):
            raise VectorFormatError(f"{where}: field lengths {got} disagree with header {bits}")
        yield vec
