"""Chip descriptions: one small TOML file per chip, data only.

The simulators and the backends read the same `Chip` object, so "a new chip" is a new file here
(or anywhere: `load` takes a path to a TOML file as well as the name of one in this folder).
Which code generator and which simulator serve a chip follows from its `isa`
(`aedsl.backends.target_for`, `aedsl.sim.cores.simulator_class`); which cycle table, from its
`cpu`. The `[power]` table (datasheet active-mode current and supply voltage) feeds the energy
model, `aedsl.energy`.
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
class Power:
    """Datasheet active-mode supply current and the supply voltage it was characterized at.
    `ua_per_mhz`: typical current per MHz of MCLK with the program executing from flash (or
    FRAM); `ram_ua_per_mhz`: the same executing from RAM, when the datasheet gives it (else
    None); `source`: the datasheet table the figures come from."""
    voltage: float
    ua_per_mhz: float
    source: str
    ram_ua_per_mhz: float | None = None


@dataclass(frozen=True)
class Chip:
    name: str
    isa: str                    # "msp430" | "msp430x" | "armv6m"
    cpu: str                    # cycle-table family: "cpuxv2" | "msp430" | "cortex-m0" | "cortex-m0plus"
    clock_hz: int
    flash: Region
    ram: Region
    multiplier: dict = field(default_factory=dict)
    accelerator: dict = field(default_factory=dict)
    flash_wait_states: int = 0
    vectors: Region | None = None   # the interrupt vector table (inside flash on Cortex-M)
    power: Power | None = None
    path: str | None = None         # the TOML file it was read from

    @property
    def has_aes(self) -> bool:
        return self.accelerator.get("kind") in ("aes128", "aes256")


class UnknownChipError(KeyError):
    """A chip name with no file in aedsl/chips/, or a chip file that cannot be read or is
    incomplete (a KeyError, as for any unknown key)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def names() -> list[str]:
    return sorted(p.stem for p in CHIP_DIR.glob("*.toml"))


def is_path(text: str) -> bool:
    """Whether a `--chip` argument names a file (ends in .toml or has a directory part) rather
    than a chip of aedsl/chips/."""
    return str(text).endswith(".toml") or "/" in str(text) or "\\" in str(text)


def path_of(name_or_path: str) -> Path:
    """The TOML file of a chip name or path; UnknownChipError if there is none."""
    if is_path(name_or_path):
        p = Path(name_or_path)
        if not p.is_file():
            raise UnknownChipError(f"chip file {name_or_path}: no such file")
        return p
    if name_or_path not in names():
        raise UnknownChipError(f"unknown chip {name_or_path!r}; known chips: {', '.join(names())} "
                               "(or give the path of a chip's .toml file)")
    return CHIP_DIR / f"{name_or_path}.toml"


def _power(d: dict, where: str) -> Power | None:
    p = d.get("power")
    if p is None:
        return None
    try:
        return Power(voltage=float(p["voltage"]), ua_per_mhz=float(p["ua_per_mhz"]), source=str(p["source"]),
                     ram_ua_per_mhz=float(p["ram_ua_per_mhz"]) if "ram_ua_per_mhz" in p else None)
    except KeyError as e:
        raise UnknownChipError(f"{where}: [power] needs voltage, ua_per_mhz and source (missing {e.args[0]})") from None


def load(name_or_path: str) -> Chip:
    """The chip of a name in aedsl/chips/ or of a path to a chip's TOML file."""
    path = path_of(name_or_path)
    try:
        d = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise UnknownChipError(f"chip file {path}: {e}") from None
    try:
        mem = d["memory"]
        return Chip(
            name=d["name"], isa=d["isa"], cpu=d["cpu"], clock_hz=d["clock_hz"],
            flash=Region(**mem["flash"]), ram=Region(**mem["ram"]),
            multiplier=dict(d.get("multiplier", {})), accelerator=dict(d.get("accelerator", {})),
            flash_wait_states=d.get("flash", {}).get("wait_states", 0),
            vectors=Region(**mem["vectors"]) if "vectors" in mem else None,
            power=_power(d, str(path)),
            path=str(path),
        )
    except KeyError as e:
        raise UnknownChipError(f"chip file {path}: missing {e.args[0]!r}") from None


AES_KEY_LENGTHS = (128, 192, 256)
AES_OPS = ("encrypt", "decrypt", "keygen", "decrypt_generated_key")


def aes_key_lengths(chip: Chip) -> tuple[int, ...]:
    """The AES key lengths of the chip's AES module (`[accelerator] key_bits`; AES-128 only by
    default, as the CC430's AES128 module); () without one."""
    if not chip.has_aes:
        return ()
    return tuple(int(b) for b in chip.accelerator.get("key_bits", [128]))


def aes_latencies(acc: dict) -> dict:
    """{key bits: {op: cycles}} of an AES module's `[accelerator]` table: `latency_<op>` for
    AES-128, `latency_<op>_<bits>` for each other key length listed in `key_bits`."""
    out = {128: {op: acc[f"latency_{op}"] for op in AES_OPS}}
    for bits in acc.get("key_bits", [128]):
        if bits != 128:
            out[bits] = {op: acc[f"latency_{op}_{bits}"] for op in AES_OPS}
    return out


def describe(chip: Chip) -> dict:
    """One row of `aedsl chips`: name, ISA, core, clock, memories, multiplier, accelerator, power."""
    acc = chip.accelerator
    keys = aes_key_lengths(chip)
    accel = "-" if not acc else f"{acc['kind']} ({'/'.join(str(k) for k in keys)}-bit keys" + \
        (", XOR-in" if acc.get("xor_data_in") else "") + ")"
    mpy = chip.multiplier.get("kind", "-")
    if mpy == "muls":
        mpy = f"muls ({chip.multiplier.get('cycles', 1)} cycle{'s' if chip.multiplier.get('cycles', 1) != 1 else ''})"
    return {
        "name": chip.name, "isa": chip.isa, "core": chip.cpu, "clock_mhz": chip.clock_hz / 1e6,
        "flash": f"{chip.flash.length // 1024} KB @ {chip.flash.origin:#x}" +
                 (f", {chip.flash_wait_states} WS" if chip.flash_wait_states else ""),
        "ram": f"{chip.ram.length // 1024} KB @ {chip.ram.origin:#x}",
        "multiplier": mpy, "accelerator": accel,
        "power": "-" if chip.power is None else f"{chip.power.ua_per_mhz:g} uA/MHz @ {chip.power.voltage:g} V",
    }
