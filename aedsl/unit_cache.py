"""Compiled units kept on disk (`$AEDSL_CACHE/units/`), so a variant compiled once is not compiled
again by the next command or test that asks for it.

A compile is deterministic: the same inputs give byte-identical assembly. An entry is named by a
hash of every input a compile reads: the compiler itself (`compiler_hash`: aedsl's sources, its
chip files and the C runtime, so any change to them starts afresh), the spec as named, its text
and that of every spec it may use (`frontend.elaborate.spec_files`), the chip, the knobs and the
options of `driver.compile_spec`. Only units that compiled are kept (a spec error is raised again each
time), and only their plain form (no IR module or machine IR: `keep=True` compiles, which hold
them, are not read from the cache, but their plain form is written to it).

`AEDSL_UNIT_CACHE=off` turns the cache off (a determinism test compiles twice for real). Entries
are written under a private name and renamed, so concurrent processes never read a half-written
unit; an entry that cannot be read is compiled again, one that cannot be written is not kept.
The folder is trimmed to the `KEEP` most recently used entries.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import sys
from functools import lru_cache
from pathlib import Path

from aedsl import __version__, resources
from aedsl.frontend.elaborate import spec_files
from aedsl.resources import cache_root

KEEP = 4000          # entries (about 50 KB each)
VERSION = "1"        # the entry format


def enabled() -> bool:
    return os.environ.get("AEDSL_UNIT_CACHE", "on").lower() not in ("off", "0", "no")


def folder() -> Path:
    return cache_root() / "units"


SOURCE_SUFFIXES = {".py", ".lark", ".j2", ".toml", ".c", ".h", ".s", ".S", ".ld"}


def _tree_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES
                  and "__pycache__" not in p.parts)


@lru_cache(maxsize=1)
def compiler_hash() -> str:
    """A hash of aedsl's own sources and the C runtime: what a compiler change changes."""
    h = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent
    for root in (package, resources.runtime_dir()):
        for p in _tree_files(root):
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def key(spec_path, chip, knobs: dict, skip_passes, entry) -> str | None:
    """The entry name of a compile; None when its inputs cannot be read (the compile then runs
    and reports the problem itself)."""
    h = hashlib.sha256(f"{VERSION}\0{compiler_hash()}\0{sys.version_info[:2]}".encode())
    try:
        for p in spec_files(spec_path):
            h.update(b"\0" + str(p).encode() + b"\0" + p.read_bytes())
    except (OSError, UnicodeDecodeError):
        return None
    h.update(repr(dataclasses.replace(chip, path=None)).encode())
    h.update(repr((str(spec_path), sorted((k, str(v)) for k, v in knobs.items()),
                   None if skip_passes is None else sorted(skip_passes), entry)).encode())
    return h.hexdigest()[:32]


def load(name: str | None):
    """The unit kept under `name`, or None."""
    if name is None or not enabled():
        return None
    path = folder() / f"{name}.pickle"
    try:
        with open(path, "rb") as f:
            unit = pickle.load(f)
        os.utime(path)                  # recently used: kept when the folder is trimmed
        return unit
    except Exception:                   # absent or unreadable: compiled again
        return None


def store(name: str | None, unit) -> None:
    """Keep the plain form of `unit` under `name`."""
    if name is None or not enabled():
        return
    plain = dataclasses.replace(unit, module=None, mir=[])
    d = folder()
    private = d / f"{name}.{os.getpid()}.tmp"
    try:
        d.mkdir(parents=True, exist_ok=True)
        with open(private, "wb") as f:
            pickle.dump(plain, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(private, d / f"{name}.pickle")
        _trim(d)
    except OSError:
        private.unlink(missing_ok=True)


def _trim(d: Path) -> None:
    entries = list(d.glob("*.pickle"))
    if len(entries) <= KEEP:
        return
    def used(p: Path) -> float:
        try:
            return p.stat().st_mtime
        except OSError:
            return 0.0
    for p in sorted(entries, key=used)[: len(entries) - KEEP * 3 // 4]:
        p.unlink(missing_ok=True)
