"""Build and load the simulators' C cores.

Each core is one C file in `aedsl/sim/native/`. It is compiled with the system C compiler into a
shared library cached under ~/.cache/aedsl/native (or $AEDSL_CACHE), named by the hash of its
source, so an edited core is rebuilt automatically and a clean checkout never needs a build step.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from aedsl.resources import cache_root

SRC_DIR = Path(__file__).parent / "native"
CORES = ("msp430", "armv6m")


def cache_dir() -> Path:
    d = cache_root() / "native"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _sources(name: str) -> list[Path]:
    main = SRC_DIR / f"{name}.c"
    headers = sorted(SRC_DIR.glob("*.h"))
    return [main, *headers]


def library_path(name: str) -> Path:
    h = hashlib.sha256()
    for p in _sources(name):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return cache_dir() / f"{name}-{h.hexdigest()[:16]}.so"


def build(name: str) -> Path:
    out = library_path(name)
    if out.exists():
        return out
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or "cc"
    # Build into a temporary name and rename, so parallel test workers never load a half-written file.
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out.parent)
    os.close(fd)
    cmd = [cc, "-O2", "-std=c11", "-Wall", "-shared", "-fPIC", "-o", tmp, str(SRC_DIR / f"{name}.c")]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        os.unlink(tmp)
        raise RuntimeError(f"building the {name} simulator core failed:\n{' '.join(cmd)}\n{res.stderr}")
    os.replace(tmp, out)
    return out


_loaded: dict[str, ctypes.CDLL] = {}


def load(name: str) -> ctypes.CDLL:
    if name not in _loaded:
        _loaded[name] = ctypes.CDLL(str(build(name)))
    return _loaded[name]


def build_all() -> None:
    for name in CORES:
        if (SRC_DIR / f"{name}.c").exists():
            build(name)
