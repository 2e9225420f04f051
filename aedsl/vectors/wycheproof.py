"""Project Wycheproof AEAD files (`aead_test_schema_v1`): testGroups with keySize/ivSize/tagSize
(bits) and tests with tcId, key, iv, aad, msg, ct, tag, result valid|invalid|acceptable, flags.

`acceptable` cases are legal but questionable inputs (none occur in the AEAD files present);
they are read as valid and keep the flag `acceptable` so a caller can filter them."""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from .records import AeadVector, Origin, VectorFormatError, unhex


def _tcid_lines(text: str) -> dict[int, int]:
    lines: dict[int, int] = {}
    for m in re.finditer(r'"tcId"\s*:\s*(\d+)', text):
        lines[int(m.group(1))] = text.count("\n", 0, m.start()) + 1
    return lines


def read(path: str | Path) -> Iterator[AeadVector]:
    text = Path(path).read_text(encoding="utf-8")
    doc = json.loads(text)
    alg = doc.get("algorithm", "")
    lines = _tcid_lines(text)
    for group in doc["testGroups"]:
        if group.get("type", "AeadTest") != "AeadTest":
            raise VectorFormatError(f"{path}: group type {group.get('type')!r} is not AeadTest")
        for t in group["tests"]:
            where = Origin(str(path), lines.get(t["tcId"], 0))
            result = t["result"]
            if result not in ("valid", "invalid", "acceptable"):
                raise VectorFormatError(f"{where}: result {result!r}")
            flags = tuple(t.get("flags", ())) + (("acceptable",) if result == "acceptable" else ())
            yield AeadVector(
                id=f"tcId={t['tcId']}",
                key=unhex(t["key"], where), nonce=unhex(t["iv"], where), ad=unhex(t["aad"], where),
                msg=unhex(t["msg"], where), ct=unhex(t["ct"], where), tag=unhex(t["tag"], where),
                valid=result != "invalid", flags=flags, comment=t.get("comment", ""),
                algorithm=alg, origin=where)
