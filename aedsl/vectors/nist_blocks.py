"""The `Name = value` paragraph structure shared by NIST CAVP `.rsp` files, the NIST LWC KAT
`.txt` files and the NIST-style OCB/CTR files of `cryptography_vectors`.

A paragraph starts at a `Count = n` line and ends at a blank line. `[A = 1, B = 2]` and `[ENCRYPT]`
headers, and assignments outside paragraphs (CAVP puts `Key`, `Nonce`, `Plen` there), are
parameters in force for the following paragraphs. Keys are lower-cased."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .records import VectorFormatError


@dataclass
class Block:
    """A group of `Name = value` lines from a NIST-style file (one Count), with the
    section parameters (`[Alen = 0, ...]`, `[ENCRYPT]`) and file-level assignments in force."""

    fields: dict[str, str]
    params: dict[str, str]
    words: list[str] = field(default_factory=list)  # bare lines such as `FAIL`
    line: int = 0


def read_blocks(path: str | Path) -> Iterator[Block]:
    params: dict[str, str] = {}
    cur: Block | None = None
    with open(path, encoding="utf-8", errors="replace") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.strip()
            if not line:
                if cur is not None:
                    yield cur
                    cur = None
                continue
            if line.startswith("#"):
                continue
            if line.startswith("["):
                if cur is not None:
                    yield cur
                    cur = None
                inner = line.strip("[]").strip()
                if "=" in inner:
                    for part in inner.split(","):
                        k, _, v = part.partition("=")
                        params[k.strip().lower()] = v.strip()
                else:
                    params["section"] = inner  # ENCRYPT / DECRYPT
                continue
            if "=" in line:
                k, _, v = line.partition("=")
                k, v = k.strip().lower(), v.strip()
                if k == "count":
                    if cur is not None:
                        yield cur
                    cur = Block({"count": v}, dict(params), [], lineno)
                elif cur is None:
                    params[k] = v
                else:
                    cur.fields[k] = v
            elif cur is not None:
                cur.words.append(line)  # e.g. CAVP GCM's bare `FAIL`
            else:
                raise VectorFormatError(f"{path}:{lineno}: unexpected line {line[:40]!r}")
    if cur is not None:
        yield cur


def need(block: Block, name: str, path: str | Path) -> str:
    """A field of the paragraph, falling back to the parameters in force."""
    if name in block.fields:
        return block.fields[name]
    if name in block.params:
        return block.params[name]
    raise VectorFormatError(f"{path}:{block.line}: paragraph has no {name!r}")
