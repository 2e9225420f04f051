"""The SPECK paper's test vectors (ePrint 2013/404, Appendix C) as transcribed in
`shared/vectors/speck/speck_paper_test_vectors.txt`: one `[SpeckB/K]` section per parameter set
with the paper's word form and the byte form (Implementation Guide rule: the word list reversed,
each word little-endian). The reader checks that both forms agree and yields the byte form."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .records import BlockVector, Origin, VectorFormatError, unhex


def words_to_bytes(words: str, word_bits: int) -> bytes:
    """Paper word order (most significant word first) -> byte form."""
    return b"".join(int(w, 16).to_bytes(word_bits // 8, "little") for w in reversed(words.split()))


def _sections(path: str | Path) -> Iterator[tuple[str, dict[str, str], int]]:
    name, fields, start = None, {}, 0
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                if name:
                    yield name, fields, start
                name, fields, start = line.strip("[]"), {}, lineno
            elif name and "=" in line:
                k, _, v = line.partition("=")
                fields[k.strip()] = v.strip()
            else:
                raise VectorFormatError(f"{path}:{lineno}: unexpected line {line[:40]!r}")
    if name:
        yield name, fields, start


def read(path: str | Path) -> Iterator[BlockVector]:
    for name, f, line in _sections(path):
        where = Origin(str(path), line)
        try:
            wb = int(f["WordBits"])
            key, pt, ct = (unhex(f[k], where) for k in ("KeyBytes", "PTBytes", "CTBytes"))
            paper = tuple(words_to_bytes(f[k], wb) for k in ("KeyWords_paper", "PT_words_paper", "CT_words_paper"))
        except KeyError as e:
            raise VectorFormatError(f"{where}: section {name} lacks {e}") from None
        if paper != (key, pt, ct):
            raise VectorFormatError(f"{where}: {name} byte form disagrees with the paper's word form")
        if len(key) * 8 != int(f["KeyWords"]) * wb:
            raise VectorFormatError(f"{where}: {name} key length disagrees with KeyWords")
        yield BlockVector(id=name, key=key, pt=pt, ct=ct, block_bytes=2 * wb // 8,
                          comment=f"rounds={f.get('Rounds')}", algorithm=name, origin=where)
