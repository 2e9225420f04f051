"""Chip descriptions: one small TOML file per chip, data only.

The simulators and the backends read the same `Chip` object, so "a new chip" is a new file here.
Which code generator and which simulator serve a chip follows from its `isa`
(`aedsl.backends.target_for`, `aedsl.sim.cores.simulator_class`).
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

CHIP_DIR = Path(__file__).parent


@dataclass(frozen=True)
class Region:
    origin: int
    length: int

    @property
    def end(self) -> int:
        return self.origin + self.length


@dataclass(frozen=True)
class Chip:
    name: str
    isa: str                    # "msp430" | "msp430x" | "armv6m"
    cpu: str                    # cycle-table family: "cpuxv2" | "msp430" | "cortex-m0"
    clock_hz: int
    flash: Region
    ram: Region
    multiplier: dict = field(default_factory=dict)
    accelerator: dict = field(default_factory=dict)
    flash_wait_states: int = 0
    vectors: Region | None = None   # the interrupt vector table (inside flash on Cortex-M)

    @property
    def has_aes(self) -> bool:
        return self.accelerator.get("kind") == "aes128"


class UnknownChipError(KeyError):
    """A chip name with no file in aedsl/chips/ (a KeyError, as for any unknown key)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def names() -> list[str]:
    return sorted(p.stem for p in CHIP_DIR.glob("*.toml"))


def load(name: str) -> Chip:
    if name not in names():
        raise UnknownChipError(f"unknown chip {name!r}; known chips: {', '.join(names())}")
    path = CHIP_DIR / f"{name}.toml"
    d = tomllib.loads(path.read_text())
    mem = d["memory"]
    return Chip(
        name=d["name"], isa=d["isa"], cpu=d["cpu"], clock_hz=d["clock_hz"],
        flash=Region(**mem["flash"]), ram=Region(**mem["ram"]),
        multiplier=dict(d.get("multiplier", {})), accelerator=dict(d.get("accelerator", {})),
        flash_wait_states=d.get("flash", {}).get("wait_states", 0),
        vectors=Region(**mem["vectors"]) if "vectors" in mem else None,
    )
