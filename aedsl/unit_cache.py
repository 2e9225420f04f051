"""Compiled units kept on disk (`$AEDSL_CACHE/units/`), so a variant compiled once is not compiled
again by the next command or test that asks for it.

A compile is deterministic: the same inputs give byte-identical assembly. An entry is named by a
hash of every input a compile reads: the compiler itself (`compiler_hash`: aedsl's sources, its
chip files and the C runtime, so any change to them starts afresh), the spec as named
(`as_named`: inside the working directory, relative to it, so `/repo/specs/x.ae` and `specs/x.ae`
are one name), its text and that of every spec it may use (`frontend.elaborate.spec_files`), the
chip, the knobs and the options of `driver.compile_spec`. Only units that compiled are kept (a
spec error is raised again each time). Each entry has the unit's plain form (`<key>.pickle`) and
its full form (`<key>.keep.pickle`: the IR module and each function's machine IR, which
`compile_spec(keep=True)` returns for analyses such as aedsl/ct), so one compile serves both
kinds of request.

A request names its variant by the knobs it gives, so two requests can name one variant (a
default named or left out: `unroll=1` or nothing; a target knob given its default is dropped
before the request is named, `driver.without_target_defaults`). A request that misses builds
the IR and looks again under `module_key`, a hash of what the target reads from there on (the IR
module after the passes, with its knobs, the chip, the spec as named and the text of its spec
files, which the assembly quotes); the request's own name then becomes an alias of that entry
(`<key>.alias`). Processes that compile the same variant at once take turns (`lock`: an advisory
file lock per name), so the second reads what the first stored instead of compiling it again.

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
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

try:
    import fcntl
except ImportError:                       # no advisory locks: concurrent compiles just repeat
    fcntl = None

from aedsl import __version__, resources
from aedsl.frontend.elaborate import spec_files
from aedsl.resources import cache_root, write_cached

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


def _inputs(spec_path, chip):
    """The hash of what every compile of `spec_path` for `chip` reads besides its options: the
    entry format, the compiler, the Python version, the spec files' text and the chip. Raises
    OSError or UnicodeDecodeError when a spec file cannot be read."""
    h = hashlib.sha256(f"{VERSION}\0{compiler_hash()}\0{sys.version_info[:2]}".encode())
    for p in spec_files(as_named(spec_path)):
        h.update(b"\0" + str(p).encode() + b"\0" + p.read_bytes())
    h.update(repr(dataclasses.replace(chip, path=None)).encode())
    return h


def as_named(spec_path) -> Path:
    """The spec's path as a compile names it (in its entry names, the IR's locations, messages): a
    path inside the working directory relative to it, however the caller spelled it
    (`/repo/specs/x.ae` and `./specs/x.ae` are `specs/x.ae`), any other as given."""
    p = Path(spec_path)
    if p.is_absolute():
        try:
            return p.relative_to(Path.cwd())
        except ValueError:
            pass
    return p


def key(spec_path, chip, knobs: dict, skip_passes, entry) -> str | None:
    """The entry name of a compile request; None when the cache is off or the compile's inputs
    cannot be read (the compile then runs and reports the problem itself)."""
    if not enabled():
        return None
    try:
        h = _inputs(spec_path, chip)
    except (OSError, UnicodeDecodeError):
        return None
    h.update(repr((str(as_named(spec_path)), sorted((k, str(v)) for k, v in knobs.items()),
                   None if skip_passes is None else sorted(skip_passes), entry)).encode())
    return h.hexdigest()[:32]


def module_key(spec_path, chip, module) -> str | None:
    """The entry name of the target's half of a compile: `Backend.compile_module` reads only the
    IR module after the passes (its knobs and the exported interfaces in it), the chip and the
    spec as named (its files' text: the assembly quotes their lines). The module is hashed as
    pickled, which writes every field; equal modules built alike pickle alike. None when the
    cache is off or the module or the spec files cannot be read."""
    if not enabled():
        return None
    try:
        h = _inputs(spec_path, chip)
        h.update(b"\0module\0" + str(as_named(spec_path)).encode() + b"\0")
        h.update(pickle.dumps(module, protocol=pickle.HIGHEST_PROTOCOL))
    except (OSError, UnicodeDecodeError, pickle.PicklingError, TypeError, AttributeError):
        return None
    return h.hexdigest()[:32]


def plain(unit):
    """`unit` without its IR module and machine IR (what `compile_spec` returns without keep)."""
    return dataclasses.replace(unit, module=None, mir=[])


def _path(name: str, keep: bool) -> Path:
    return folder() / f"{name}{'.keep' if keep else ''}.pickle"


def load(name: str | None, keep: bool = False):
    """The unit kept under `name` (or under the entry `name` is an alias of), or None. `keep`:
    its full form, whose kept functions have no machine description (`machine` None: the
    caller's target makes it again)."""
    if name is None:                    # the cache is off, or the inputs unreadable
        return None
    unit = _read(name, keep)
    if unit is None:
        target = _alias_of(name)
        unit = _read(target, keep) if target else None
    return unit


def _read(name: str, keep: bool):
    path = _path(name, keep)
    try:
        data = path.read_bytes()
        unit = pickle.loads(zlib.decompress(data) if keep else data)
        os.utime(path)                  # recently used: kept when the folder is trimmed
        return unit
    except Exception:                   # absent or unreadable: compiled again
        return None


def _alias_of(name: str) -> str | None:
    path = folder() / f"{name}.alias"
    try:
        target = path.read_text().strip()
        os.utime(path)
    except (OSError, UnicodeDecodeError):
        return None
    return target if len(target) == 32 and all(c in "0123456789abcdef" for c in target) else None


def alias(name: str | None, target: str | None) -> None:
    """Make request name `name` read entry `target` (no-op when either is None or they agree)."""
    if name is None or target is None or name == target:
        return
    try:
        write_cached(folder() / f"{name}.alias", target.encode())
    except OSError:
        pass


@contextmanager
def lock(name: str | None):
    """Hold the advisory lock of entry `name` (nothing when `name` is None, or where there are
    no locks or the folder cannot be written): a process that compiles a variant holds it, so
    another that asks for the same waits, then reads the entry. Released on exit, and by the
    system if the process dies."""
    handle = None
    if name is not None and fcntl is not None:
        try:
            folder().mkdir(parents=True, exist_ok=True)
            handle = open(folder() / f"{name}.lock", "a")
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            if handle is not None:
                handle.close()
            handle = None
    try:
        yield
    finally:
        if handle is not None:
            handle.close()              # closing the file releases its lock


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
            write_cached(_path(name, keep), data)
        _trim(folder())
    except OSError:
        pass


def _trim(d: Path) -> None:
    """Down to 3/4 of `KEEP` entries (both forms of a key together), the least recently used
    first, once there are more than `KEEP`; aliases and locks last used before the oldest entry
    kept go too (an alias whose entry went is read as a miss)."""
    names = os.listdir(d)               # names only: the common case stops here, without a stat
    if sum(n.endswith(".pickle") and not n.endswith(".keep.pickle") for n in names) <= KEEP:
        return
    used: dict[str, float] = {}
    others: list[tuple[Path, float]] = []
    for p in map(d.joinpath, names):
        k, _, suffix = p.name.partition(".")
        if suffix not in ("pickle", "keep.pickle", "alias", "lock"):
            continue                    # another process's private file
        try:
            t = p.stat().st_mtime
        except OSError:
            continue
        if suffix in ("alias", "lock"):
            others.append((p, t))
        else:
            used[k] = max(used.get(k, 0.0), t)
    if len(used) <= KEEP:
        return
    order = sorted(used, key=used.__getitem__)
    for k in order[: len(used) - KEEP * 3 // 4]:
        for keep in (False, True):
            (d / _path(k, keep).name).unlink(missing_ok=True)
    cutoff = used[order[len(used) - KEEP * 3 // 4]]
    for p, t in others:
        if t < cutoff:
            p.unlink(missing_ok=True)
