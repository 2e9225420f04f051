"""Where the package's data lives: the spec library (`specs/`), the C runtime (`runtime/`) and
the shared official vectors (`../shared/vectors`).

An installed aedsl carries `specs/` and `runtime/` inside the package (`aedsl/_resources/`, see
setup.py) and finds them through `importlib.resources`; a checkout (or an editable install) uses
the repository's own folders. `AEDSL_DATA` names another folder holding `specs/` and `runtime/`.
The shared vectors are not package data: `AEDSL_SHARED_VECTORS`, else `../shared/vectors` beside
the checkout, else `shared/vectors` beside the current directory or one of its parents.
"""
from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parents[1]


def _data_root() -> Path:
    env = os.environ.get("AEDSL_DATA")
    if env:
        return Path(env)
    packaged = Path(str(importlib.resources.files("aedsl") / "_resources"))
    if packaged.is_dir():
        return packaged
    return _CHECKOUT


def cache_root() -> Path:
    """Where built things are kept (`AEDSL_CACHE`, default ~/.cache/aedsl): the msp430 binutils,
    the simulator cores, and ELFs under `build/`."""
    return Path(os.environ.get("AEDSL_CACHE", Path.home() / ".cache" / "aedsl"))


def write_cached(path: Path, data: bytes) -> None:
    """Write a cache file through a private name and a rename, so that concurrent processes never
    read it half-written (raises OSError; the private file does not outlive a failure)."""
    private = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        private.write_bytes(data)
        os.replace(private, path)
    finally:
        private.unlink(missing_ok=True)


def build_cache_dir() -> Path:
    """The ELF build cache (keyed by a hash of every input)."""
    return cache_root() / "build"


def specs_dir() -> Path:
    """The spec library: `primitives/`, `schemes/`, `lib/` (functions specs share), `drafts/`."""
    return _data_root() / "specs"


def runtime_dir() -> Path:
    """The C runtime: one folder per target (`msp430/`, `armv6m/`) and `samples/`."""
    return _data_root() / "runtime"


def spec_path(relpath: str) -> Path:
    """A spec of the library by its path below `specs/` (e.g. "primitives/aes.ae")."""
    return specs_dir() / relpath


def shared_vectors_dir() -> Path:
    env = os.environ.get("AEDSL_SHARED_VECTORS")
    if env:
        return Path(env)
    beside = _CHECKOUT.parent / "shared" / "vectors"
    if beside.is_dir():
        return beside
    for d in [Path.cwd(), *Path.cwd().parents]:
        if (d / "shared" / "vectors").is_dir():
            return d / "shared" / "vectors"
    return beside
