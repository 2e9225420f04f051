"""The hand-written SPECK-64/128 samples (runtime/samples/, one per target) and the paper's
SPECK vector: the simulators' own end-to-end check, used by `aedsl.demo` and `aedsl.throughput`."""
from __future__ import annotations

from pathlib import Path

from aedsl import resources
from aedsl.backends.registry import target_for
from aedsl.toolchain import build


def vectors_file() -> Path:
    return resources.shared_vectors_dir() / "speck" / "speck_paper_test_vectors.txt"


def speck_vector(name: str = "Speck64/128", path: Path | None = None) -> dict[str, bytes]:
    """KeyBytes/PTBytes/CTBytes of one [section] of the paper's vector file (byte form)."""
    path = path or vectors_file()
    section, fields = None, {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line[1:-1]
        elif section == name and "=" in line and not line.startswith("#"):
            k, v = (s.strip() for s in line.split("=", 1))
            fields[k] = v
    if not fields:
        raise ValueError(f"{path}: no [{name}] section")
    return {k: bytes.fromhex(fields[k]) for k in ("KeyBytes", "PTBytes", "CTBytes")}


def speck_source(chip) -> Path:
    """The sample for the chip's target (runtime/samples/speck64_<target>.s)."""
    return resources.runtime_dir() / "samples" / f"speck64_{target_for(chip).name}.s"


def build_speck(chip, workdir: Path) -> Path:
    """The hand-written SPECK-64/128 sample, assembled and linked for `chip`."""
    return build([speck_source(chip)], workdir / chip.name / "speck64.elf", chip)
