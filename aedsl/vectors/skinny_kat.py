"""The SKINNY-128-384(+) single-block vectors of `shared/vectors/skinny-128-384plus/`: one
`[name]` section per vector with `Rounds`, `TK` (TK1 || TK2 || TK3, 48 bytes), `PT` and `CT`.
The 56-round vector is the SKINNY paper's SKINNY-128-384, the 40-round one SKINNY-128-384+ (the
Romulus v1.3 primitive); `rounds` keeps the vectors of one round count (a variant's domain)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .records import BlockVector, Origin, VectorFormatError, unhex


def read(path: str | Path, rounds: int | None = None) -> Iterator[BlockVector]:
    name, fields, start = None, {}, 0
    sections = []
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                if name:
                    sections.append((name, fields, start))
                name, fields, start = line.strip("[]"), {}, lineno
            elif name and "=" in line:
                k, _, v = line.partition("=")
                fields[k.strip()] = v.strip()
            else:
                raise VectorFormatError(f"{path}:{lineno}: unexpected line {line[:40]!r}")
    if name:
        sections.append((name, fields, start))
    for name, f, line in sections:
        where = Origin(str(path), line)
        try:
            r = int(f["Rounds"])
            tk, pt, ct = (unhex(f[k], where) for k in ("TK", "PT", "CT"))
        except KeyError as e:
            raise VectorFormatError(f"{where}: section {name} lacks {e}") from None
        if len(tk) != 48 or len(pt) != 16 or len(ct) != 16:
            raise VectorFormatError(f"{where}: {name}: TK must be 48 bytes, PT and CT 16")
        if rounds is None or r == rounds:
            yield BlockVector(id=name, key=tk, pt=pt, ct=ct, block_bytes=16, comment=f"rounds={r}",
                              algorithm=name, origin=where)
