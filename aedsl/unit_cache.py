"""Compiled units kept on disk (`$AEDSL_CACHE/units/`), so a variant compiled once is not compiled
again by the next command or test that asks for it.

A compile is deterministic: the same inputs give byte-identical assembly. An entry is named by a
hash of every input a compile reads: the compiler itself (`compiler_hash`: aedsl's sources, its
chip files and the C runtime, so any change to them starts afresh), the spec as named, its text
and that of every spec it may use (`frontend.elaborate.spec_files`), the chip, the knobs and the
options of `driver.compile_spec`. Only units that compiled are kept (a spec error is raised again each
time). Each entry has the unit's plain form (`<key>.pickle`) and its full form
(`<key>.keep.pickle`: the IR module and each function's machine IR, which `compile_spec(keep=True)`
returns for analyses such as aedsl/ct), so one compile serves both kinds of request.

`AEDSL_UNIT_CACHE=off` turns the cache off (a determinism test compiles twice for real). Entries
are written under a private name and renamed, so concurrent processes never read a half-written
unit; an entry that cannot be read is compiled again, one that cannot be written is not kept.
The folder is trimmed to the most recently used entries (`KEEP`).
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import sys
import zlib
from functools import lru_cache
from pathlib import Path

from aedsl import __version__, resources
from aedsl.frontend.elaborate import spec_files
from aedsl.resources import cache_root

KEEP = 2000          # entries (a plain unit about 50 KB, its full form about 50 KB compressed)
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
    """The entry name of a compile; None when the cache is off or the compile's inputs cannot be
    read (the compile then runs and reports the problem itself)."""
    if not enabled():
        return None
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


def plain(unit):
    """`unit` without its IR module and machine IR (what `compile_spec` returns without keep)."""
    return dataclasses.replace(unit, module=None, mir=[])


def _path(name: str, keep: bool) -> Path:
    return folder() / f"{name}{'.keep' if keep else ''}.pickle"


def load(name: str | None, keep: bool = False):
    """The unit kept under `name`, or None. `keep`: its full form, whose kept functions have no
    machine description (`machine` None: the caller's target makes it again)."""
    if name is None:                    # the cache is off, or the inputs unreadable
        return None
    path = _path(name, keep)
    try:
        data = path.read_bytes()
        unit = pickle.loads(zlib.decompress(data) if keep else data)
        os.utime(path)                  # recently used: kept when the folder is trimmed
        return unit
    except Exception:                   # absent or unreadable: compiled again
        return None


def store(name: str | None, unit) -> None:
    """Keep `unit` under `name`: its plain form, and its full form too when it has one (the
    IR module and the machine IR, compressed, without the machine descriptions)."""
    if name is None:                    # the cache is off, or the inputs unreadable
        return
    forms = [(False, pickle.dumps(plain(unit), protocol=pickle.HIGHEST_PROTOCOL))]
    if unit.module is not None:
        full = dataclasses.replace(unit, mir=[dataclasses.replace(k, machine=None) for k in unit.mir])
        forms.append((True, zlib.compress(pickle.dumps(full, protocol=pickle.HIGHEST_PROTOCOL), 1)))
    try:
        folder().mkdir(parents=True, exist_ok=True)
        for keep, data in forms:
            path = _path(name, keep)
            private = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            try:
                private.write_bytes(data)
                os.replace(private, path)
            finally:
                private.unlink(missing_ok=True)
        _trim(folder())
    except OSError:
        pass


def _trim(d: Path) -> None:
    """Down to 3/4 of `KEEP` entries (both forms of a key together), the least recently used
    first, once there are more than `KEEP`."""
    used: dict[str, float] = {}
    for p in d.glob("*.pickle"):
        try:
            t = p.stat().st_mtime
        except OSError:
            continue
        k = p.name.split(".", 1)[0]
        used[k] = max(used.get(k, 0.0), t)
    if len(used) <= KEEP:
        return
    for k in sorted(used, key=used.__getitem__)[: len(used) - KEEP * 3 // 4]:
        for keep in (False, True):
            (d / _path(k, keep).name).unlink(missing_ok=True)
