"""Compiled specs as engines: compile -> assemble -> link -> run in the chip's simulator.

    engine = sim_engine("specs/primitives/speck.ae", {"block_bits": 64, "key_bits": 128}, "cc430f6137")
    engine.encrypt_block(key, block)        # BlockCipherEngine
    engine.last                              # RunResult of the last call (cycles, stack)

Used by `aedsl kat SPEC --chip CHIP --engine sim` and by the backend tests. Builds are cached
per (spec, chip, knobs) in the process and on disk under $AEDSL_CACHE/build (keyed by a hash of
the generated assembly and runtime sources), so a test session compiles each variant once.
"""
from __future__ import annotations

import dataclasses
import hashlib
from functools import lru_cache
from pathlib import Path

from aedsl import chips as chips_mod
from aedsl import toolchain
from aedsl.backends.registry import target_for
from aedsl.codegen.unit import Compiled
from aedsl.resources import build_cache_dir, runtime_dir
from aedsl.driver import compile_spec
from aedsl.engines.base import block_signature_error, block_sizes
from aedsl.sim.harness import Buffer, Program





def _runtime_sources(chip) -> list[Path]:
    return sorted(_runtime_of(chip).glob("*.c"))


def _runtime_of(chip) -> Path:
    return runtime_dir() / target_for(chip).runtime


def build_elf(unit: Compiled, chip, with_runtime: bool = True) -> Path:
    """Assemble the unit (and compile the runtime C, with the unit's header) into an ELF."""
    rt = _runtime_sources(chip) if with_runtime and unit.kind == "aead" else []
    h = hashlib.sha256(unit.asm.encode() + unit.header.encode())
    h.update(repr(dataclasses.replace(chip, path=None)).encode())   # a chip file outside the package may reuse a name
    for s in rt:
        h.update(s.read_bytes())
    for s in sorted(_runtime_of(chip).glob("*.h")):   # the headers the runtime C includes
        h.update(s.read_bytes())
    key = h.hexdigest()[:20]
    out = build_cache_dir() / f"{unit.stem}-{chip.name}-{key}"
    elf = out / f"{unit.stem}.elf"
    if elf.exists():
        return elf
    out.mkdir(parents=True, exist_ok=True)
    s, hdr = unit.write(out)
    objs = [toolchain.assemble(s, out / f"{unit.stem}.o", chip)]
    defines = [f'AEDSL_HEADER="{hdr.name}"', f"AEDSL_PREFIX={unit.stem.split('_')[0]}"]
    for c in rt:
        objs.append(toolchain.compile_c(c, out / f"{c.stem}.o", chip, include_dirs=[out, c.parent],
                                        defines=defines))
    tmp = elf.with_suffix(".tmp")
    toolchain.link(objs, tmp, chip)
    tmp.replace(elf)
    return elf


def check_block_unit(unit: Compiled, spec) -> tuple[int, int]:
    """(block_bits, key_bits) of a compiled block cipher; SpecError unless its entries have the
    block-cipher interface the harness calls."""
    sizes = block_sizes(unit.consts, str(spec))
    kinds = {"mem": "mem", "word": "value", "wide": "value"}
    block_signature_error({name: ([kinds.get(p.kind, p.kind) for p in e.params], len(e.results))
                           for name, e in unit.entries.items()}, str(spec))
    return sizes


class SimBlockCipher:
    def __init__(self, unit: Compiled, chip, elf: Path):
        self.block_bits, self.key_bits = check_block_unit(unit, unit.stem)
        self.unit, self.chip = unit, chip
        self.program = Program(elf, chip)
        self.block_bytes = self.block_bits // 8
        knobs = ",".join(f"{k}={v}" for k, v in unit.knobs.items())
        self.name = f"sim:{chip.name}:{unit.stem}" + (f"[{knobs}]" if knobs else "")
        self.ks_param = unit.entries["key_schedule"].params[1]
        self._cached: tuple[bytes, bytes] | None = None
        self.last = None

    def supports(self, key_len: int) -> bool:
        return key_len * 8 == self.key_bits

    @staticmethod
    def _le(value_be: bytes, nbytes: int) -> bytes:
        return int.from_bytes(value_be, "big").to_bytes(nbytes, "little")

    def _schedule(self, key: bytes) -> bytes:
        if self._cached and self._cached[0] == key:
            return self._cached[1]
        if len(key) * 8 != self.key_bits:
            raise ValueError(f"{self.name} takes a {self.key_bits // 8}-byte key")
        e = self.unit.entries["key_schedule"]
        kp = e.params[0]
        karg = self._le(key, kp.nbytes) if kp.kind == "wide" else int.from_bytes(key, "big")
        r = self.program.call(e.symbol, [karg, Buffer(self.ks_param.nbytes)])
        ks = r.buffers[-1]
        self.last_key_schedule = r
        self._cached = (bytes(key), ks)
        return ks

    def _run(self, fn: str, key: bytes, block: bytes) -> bytes:
        if len(block) != self.block_bytes:
            raise ValueError(f"{self.name} takes {self.block_bytes}-byte blocks")
        ks = self._schedule(key)
        e = self.unit.entries[fn]
        bp = e.params[1]
        barg = self._le(block, bp.nbytes) if bp.kind == "wide" else int.from_bytes(block, "big")
        outn = 2 * (-(-e.results[0] // 16))
        r = self.program.call(e.symbol, [ks, barg, Buffer(outn)])
        self.last = r
        out = int.from_bytes(r.buffers[-1], "little")
        return out.to_bytes(self.block_bytes, "big")

    def encrypt_block(self, key: bytes, block: bytes) -> bytes:
        return self._run("encrypt_block", key, block)

    def decrypt_block(self, key: bytes, block: bytes) -> bytes:
        return self._run("decrypt_block", key, block)


@lru_cache(maxsize=64)
def _compiled(spec: str, chip_name: str, knobs_items: tuple) -> tuple[Compiled, Path]:
    chip = chips_mod.load(chip_name)
    unit = compile_spec(spec, chip, dict(knobs_items))
    return unit, build_elf(unit, chip)


def compiled(spec, chip_name: str, knobs: dict | None = None) -> tuple[Compiled, Path]:
    items = tuple(sorted((k, str(v)) for k, v in (knobs or {}).items()))
    return _compiled(str(spec), chip_name, items)


def sim_engine(spec, knobs: dict | None, chip_name: str):
    unit, elf = compiled(spec, chip_name, knobs)
    chip = chips_mod.load(chip_name)
    if unit.kind == "block":
        return SimBlockCipher(unit, chip, elf)
    if unit.kind == "aead":
        from aedsl.engines.sim_aead import SimAead
        return SimAead(unit, chip, elf)
    from aedsl.frontend.diagnostics import SpecError
    raise SpecError("neither a block cipher nor an AEAD scheme (no entry points to run)", str(spec))
