"""A compiled unit: what a target's code generator returns (assembly, C header, entry metadata),
and the entry-point conventions every target shares (which functions a unit exports, how each
IR parameter is passed)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aedsl.ir.passes.common import KEY_SETUP_NAMES

BLOCK_ENTRIES = ("key_schedule", "encrypt_block", "decrypt_block")
AEAD_ENTRIES = ("encrypt", "decrypt")
# A scheme's key-setup stage: the IR keeps it as roots (call_policy), the backends export it and
# the C runtime expands the key once and runs `encrypt_with` per message (aedsl/aead_runtime.py).
KEY_SETUP_ENTRIES = KEY_SETUP_NAMES


def exported(module) -> list[str]:
    """The functions a compiled unit exports. A scheme with the key-setup stage exports only the
    stage: the C runtime composes crypto_aead_encrypt/decrypt from it, so the IR's
    `encrypt`/`decrypt` (state locals + two calls) would be dead code in flash."""
    names = [f.name for f in module.functions]
    for entries in (BLOCK_ENTRIES, KEY_SETUP_ENTRIES, AEAD_ENTRIES):
        if all(n in names for n in entries):
            return list(entries)
    return [n for n in names if "." not in n]


def unit_kind(entries) -> str:
    """"block" (a block cipher), "aead" (a scheme, staged or not) or "" for other units."""
    if all(n in entries for n in BLOCK_ENTRIES):
        return "block"
    if all(n in entries for n in AEAD_ENTRIES) or all(n in entries for n in KEY_SETUP_ENTRIES):
        return "aead"
    return ""


@dataclass
class Param:
    """One parameter of an exported function: kind "mem" (pointer to a fixed array of `count`
    elements of `stride` bytes), "bytes" (pointer, length), "word" (scalar <= one machine word,
    by value), "wide" (pointer to the little-endian words of a wider scalar)."""
    name: str
    kind: str
    width: int
    count: int | None = None
    stride: int | None = None

    @property
    def nbytes(self) -> int | None:
        if self.kind == "mem":
            return self.count * self.stride
        if self.kind == "wide":
            return 2 * (-(-self.width // 16))
        return None


@dataclass
class Entry:
    name: str
    symbol: str
    params: list[Param]
    results: list[int]              # result widths (each through an out-pointer)
    code_bytes: int = 0
    frame_bytes: int = 0

    @property
    def n_words(self) -> int:
        return sum(2 if p.kind == "bytes" else 1 for p in self.params) + len(self.results)


@dataclass
class Compiled:
    spec: str
    chip: str
    knobs: dict
    asm: str
    header: str
    entries: dict[str, Entry] = field(default_factory=dict)
    kind: str = ""                 # "block" | "aead" | ""
    consts: dict = field(default_factory=dict)
    stem: str = ""
    domains: dict = field(default_factory=dict)
    # code bytes of every function of the unit, exported or a subroutine (symbol -> bytes)
    function_bytes: dict = field(default_factory=dict)
    # kept on request (driver.compile_spec(keep=True)): the IR module the target compiled (after
    # the passes) and each function's machine IR after the MIR pipeline (codegen.interface.KeptFunction)
    module: object = None
    mir: list = field(default_factory=list)

    def write(self, out_dir: str | Path) -> tuple[Path, Path]:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        s, h = out / f"{self.stem}.S", out / f"{self.stem}.h"
        s.write_text(self.asm)
        h.write_text(self.header)
        return s, h


def variant_stem(module_name: str, knobs: dict) -> str:
    parts = [module_name] + [f"{k}-{v}" for k, v in sorted(knobs.items())]
    return "_".join(str(p).replace(".", "") for p in parts)
