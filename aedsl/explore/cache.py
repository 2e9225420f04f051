"""Sweep results kept on disk, so a rerun with nothing changed takes seconds.

One JSON file per variant under `aedsl.resources.cache_root()/explore/`, named by the hash of
everything that can change its outcome: the spec's text and every spec it may use
(`aedsl.frontend.elaborate.spec_files`), the chip file's text, the knobs, the measured workload
(sizes, AD length, key setup, vector sample), aedsl's version and a hash of the compiler itself
(the aedsl package's sources and the C runtime), so any compiler change starts afresh. Only
outcomes that depend on the variant alone are stored (`Outcome.cacheable`: not a missing tool).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from aedsl import chips
from aedsl.frontend.elaborate import spec_files
from aedsl.resources import cache_root, write_cached
from aedsl.unit_cache import compiler_hash

def chip_file(chip: str) -> Path:
    """The chip's TOML file: a path to one, or the name of one in aedsl/chips/."""
    p = Path(chip)
    return p if p.suffix == ".toml" and p.is_file() else chips.CHIP_DIR / f"{chip}.toml"


def task_key(task) -> str:
    """The cache key of an aedsl.explore.task.Task."""
    doc = {
        "specs": [[p.name, p.read_text()] for p in spec_files(task.spec)],
        "chip": chip_file(task.chip).read_text(),
        "knobs": sorted(task.knobs), "sizes": list(task.sizes), "ad_len": task.ad_len,
        "key_setup": task.key_setup, "sample": task.sample, "compiler": compiler_hash(),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


class Cache:
    def __init__(self, root: Path | None = None):
        self.root = root or cache_root() / "explore"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            return json.loads(self._path(key).read_text())
        except (OSError, ValueError):
            return None

    def put(self, key: str, outcome: dict) -> None:
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        write_cached(p, json.dumps(outcome).encode())
