"""Official test vectors: typed records (`records`), one reader module per file format, a catalogue
of named sources (`sources`) and the runner that judges an engine (`runner`).

`load(name_or_path, fmt=None, **options)` is the one entry point: a source name from
`sources.SOURCES` or a file path whose format is detected from its name and content."""
from __future__ import annotations

from pathlib import Path

from . import (cavp_block, cavp_ccm, cavp_gcm, cryptopp, fips197, lwc_kat, ocb3_rfc7253, rfc3686, skinny_kat,
               speck_paper, wycheproof)
from .records import AeadVector, BlockVector, Origin, VectorFormatError, VectorKindError
from .sources import SOURCES

READERS = {
    "lwc": lwc_kat.read,
    "ocb3": ocb3_rfc7253.read,
    "rfc3686": rfc3686.read,
    "wycheproof": wycheproof.read,
    "cavp-ccm": cavp_ccm.read,
    "cavp-gcm": cavp_gcm.read,
    "cavp-block": cavp_block.read,
    "cryptopp": cryptopp.read,
    "speck-paper": speck_paper.read,
    "skinny": skinny_kat.read,
    "fips197": fips197.read,
}

__all__ = ["AeadVector", "BlockVector", "Origin", "VectorFormatError", "VectorKindError", "READERS", "SOURCES",
           "detect_format", "load"]


def detect_format(path: str | Path) -> str:
    """The reader for a file, from its extension and first lines."""
    p = Path(path)
    if p.suffix == ".json":
        return "wycheproof"
    with open(p, encoding="utf-8", errors="replace") as fh:
        head = fh.read(4096)
    low = head.lower()
    if p.suffix == ".rsp" or "cavs" in low:
        if "[ivlen" in low or "[taglen" in low:
            return "cavp-gcm"
        if "nlen" in low and "tlen" in low:
            return "cavp-ccm"
        if "plaintext" in low and "key" in low:
            return "cavp-block"
    if "algorithmtype:" in low or "\ntest:" in low:
        return "cryptopp"
    if "[speck" in low:
        return "speck-paper"
    if "[skinny" in low:
        return "skinny"
    if "count = " in low and "nonce" in low:
        return "ocb3" if "ciphertext" in low else "lwc"
    if "count = " in low and "\niv = " in low and "plaintext = " in low:
        return "rfc3686"               # a whole initial counter block per case (AES-CTR)
    raise VectorFormatError(f"{path}: cannot tell the vector format; name it (aedsl kat --format, or load(fmt=)): "
                            f"one of {', '.join(READERS)}")


def load(name_or_path: str | Path, fmt: str | None = None, every: int | None = None, **options) -> list:
    """All records of a named source or a file (options go to the reader, e.g. `per_section`
    for CAVP GCM, `tag_len` for LWC files). `every` N keeps records 0, N, 2N, .. and the last, in
    file order (a deterministic sample of any source: every 33rd vector of an LWC KAT file covers
    every AD length 0..32 at varying message lengths)."""
    recs = _load(name_or_path, fmt, **options)
    if every and every > 1:
        recs = [r for i, r in enumerate(recs) if i % every == 0 or i == len(recs) - 1]
    return recs


def _load(name_or_path: str | Path, fmt: str | None = None, **options) -> list:
    if str(name_or_path) in SOURCES:
        src = SOURCES[str(name_or_path)]
        path, fmt = src.path, fmt or src.fmt
        options = {**src.options, **options}
    else:
        path = Path(name_or_path)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file and not a vector source name")
        fmt = fmt or detect_format(path)
    if fmt not in READERS:
        raise VectorFormatError(f"unknown vector format {fmt!r}; one of {', '.join(READERS)}")
    try:
        return list(READERS[fmt](path, **options))
    except (VectorFormatError, OSError):
        raise
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
        # a file of the wrong shape for its format (JSON that is a list, a field that is a
        # number, a line cut short): the readers index what the format promises
        what = f"missing field {e.args[0]!r}" if isinstance(e, KeyError) and e.args else str(e)
        raise VectorFormatError(f"{path}: not a valid {fmt} vector file ({what})") from None
