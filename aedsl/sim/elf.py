"""Reading a linked ELF: what to load where, its symbols, and how much ROM and RAM it takes.

Loading follows what a device programmer plus startup code would leave in memory, section by
section (the bytes a PT_LOAD segment holds outside its sections, such as the ELF headers GNU ld
puts in the first segment under a plain linker script, are not program content): every
allocated section's bytes are written at its load address (LMA, the flash image) and, where the
run address (VMA) differs, as for .data, also at the VMA (the startup copy); a .bss-like section
in a segment, or named .bss/.sbss, is zeroed at its VMA. Every section must lie in the chip's
flash, RAM (or the benchmark region); anything else, and any malformed ELF, is an `ElfError`.

Sizes (per section and per symbol):
- ROM = bytes stored in flash: .text, .rodata, vectors and the initial image of .data.
- RAM = bytes reserved in RAM: .data and .bss/.noinit. The stack is not included; the harness
  measures it per call.
- bench = sections in the simulator-only benchmark region (`aedsl.sim.cores.bench_region`),
  reported apart because they do not exist on the chip.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

from elftools.common.exceptions import ELFError, ELFParseError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from aedsl.chips import Chip, Region
from aedsl.sim.cores import bench_region, simulator_class


class ElfError(Exception):
    """An ELF that cannot be read, parsed, or placed in the chip's memory (the message names the file)."""


# What pyelftools (and the struct/construct parsing under it) raises on a malformed file.
_PARSE_ERRORS = (ELFError, ELFParseError, struct.error, ValueError, KeyError, IndexError, TypeError,
                 AttributeError, OverflowError, EOFError, UnicodeError)


@dataclass(frozen=True)
class Segment:
    vaddr: int          # run address
    paddr: int          # load address
    memsz: int          # (only the sections are loaded: see the module docstring)


@dataclass(frozen=True)
class Section:
    name: str
    addr: int           # VMA
    lma: int            # load address (== addr unless relocated like .data)
    size: int
    nobits: bool        # .bss-like: occupies memory, no bytes in the file
    rom: int            # bytes counted as ROM
    ram: int            # bytes counted as RAM
    bench: int          # bytes in the benchmark region
    data: bytes = b""   # the file bytes (empty for a nobits section)
    zeroed: bool = False  # a nobits section the loader zeroes (.bss in a segment or by name)


@dataclass(frozen=True)
class Symbol:
    name: str
    addr: int           # with the Thumb bit cleared for ARM functions
    size: int           # 0 when the assembly gave no .size
    kind: str           # "func" | "object" | "notype" | ...
    section: str        # "" for absolute symbols
    is_global: bool
    thumb: bool = False


@dataclass
class Sizes:
    rom: int = 0
    ram: int = 0
    bench: int = 0

    def as_dict(self) -> dict:
        return {"rom": self.rom, "ram": self.ram, "bench": self.bench}


@dataclass
class ElfImage:
    path: Path
    machine: str                          # "EM_MSP430" | "EM_ARM"
    entry: int
    segments: list[Segment] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    symbols: dict[str, Symbol] = field(default_factory=dict)

    def symbol(self, name: str) -> Symbol:
        try:
            return self.symbols[name]
        except KeyError:
            funcs = sorted(s.name for s in self.symbols.values() if s.kind == "func")
            raise ElfError(f"{self.path.name}: no symbol {name!r}; functions: {', '.join(funcs) or 'none'}") from None

    def address(self, name: str) -> int:
        return self.symbol(name).addr

    def sizes(self) -> Sizes:
        s = Sizes()
        for sec in self.sections:
            s.rom += sec.rom
            s.ram += sec.ram
            s.bench += sec.bench
        return s

    def section_sizes(self) -> dict[str, dict]:
        return {sec.name: {"rom": sec.rom, "ram": sec.ram, "bench": sec.bench}
                for sec in self.sections if sec.size}

    def symbol_sizes(self, kinds=("func", "object")) -> dict[str, dict]:
        """ROM/RAM per sized symbol. A .data object counts in both (its initial image is in flash)."""
        by_name = {sec.name: sec for sec in self.sections}
        out = {}
        for sym in self.symbols.values():
            sec = by_name.get(sym.section)
            if sym.kind not in kinds or sec is None or not sym.size:
                continue
            out[sym.name] = {"rom": sym.size if sec.rom else 0, "ram": sym.size if sec.ram else 0,
                             "bench": sym.size if sec.bench else 0}
        return out

    def ram_end(self, chip: Chip) -> int:
        """First RAM address after every section placed in RAM (where free RAM starts)."""
        end = chip.ram.origin
        for sec in self.sections:
            if sec.size and _inside(sec.addr, sec.size, chip.ram):
                end = max(end, sec.addr + sec.size)
        return end

    def bench_end(self, region: Region) -> int:
        end = region.origin
        for sec in self.sections:
            if sec.size and _inside(sec.addr, sec.size, region):
                end = max(end, sec.addr + sec.size)
        return end

    def load_into(self, write) -> None:
        """Write the memory image with `write(addr, data)` (a simulator's debugger write)."""
        for sec in self.sections:
            if sec.data:
                write(sec.lma, sec.data)
                if sec.addr != sec.lma:
                    write(sec.addr, sec.data)
            elif sec.zeroed and sec.size:
                write(sec.addr, bytes(sec.size))


def _inside(addr: int, size: int, region: Region) -> bool:
    return region.origin <= addr and addr + size <= region.end


def read_elf(path: str | Path, chip: Chip, bench: Region | None = None) -> ElfImage:
    """Read `path`, classifying sections against `chip`'s memory map (and the `bench` region);
    ElfError for a file that is not a well-formed ELF of the chip's machine, or whose sections do
    not fit the chip's memory."""
    path = Path(path)
    try:
        f = path.open("rb")
    except OSError as e:
        raise ElfError(f"cannot open {path}: {e.strerror}") from None
    with f:
        try:
            return _read(path, f, chip, bench)
        except _PARSE_ERRORS as e:
            raise ElfError(f"{path}: malformed ELF ({type(e).__name__}: {e})") from None


def _read(path: Path, f, chip: Chip, bench: Region | None) -> ElfImage:
    try:
        elf = ELFFile(f)
    except _PARSE_ERRORS as e:
        raise ElfError(f"{path} is not an ELF file ({e})") from None
    if elf.elfclass != 32:
        raise ElfError(f"{path.name} is a {elf.elfclass}-bit ELF; chip {chip.name} needs a 32-bit one")
    machine = elf["e_machine"]
    core = simulator_class(chip)
    want = core.ELF_MACHINE
    if machine != want:
        raise ElfError(f"{path.name} is for {machine}, but chip {chip.name} needs {want}")
    img = ElfImage(path=path, machine=machine, entry=elf["e_entry"])
    for seg in elf.iter_segments():
        if seg["p_type"] != "PT_LOAD":
            continue
        img.segments.append(Segment(seg["p_vaddr"], seg["p_paddr"], seg["p_memsz"]))
    img.sections = [_section(path, s, img.segments, chip, bench) for s in elf.iter_sections()
                    if s["sh_flags"] & SH_FLAGS.SHF_ALLOC and s["sh_size"]]
    if not any(sec.data for sec in img.sections):
        raise ElfError(f"{path.name} has no loadable section (no code or data to run)")
    symtab = elf.get_section_by_name(".symtab")
    if symtab is not None:
        _read_symbols(elf, symtab, img, thumb_target=bool(core.CALLS.code_address_bit))
    return img


def _section(path: Path, s, segments: list[Segment], chip: Chip, bench: Region | None) -> Section:
    addr, size = s["sh_addr"], s["sh_size"]
    nobits = s["sh_type"] == "SHT_NOBITS"
    lma = addr
    in_segment = False
    for seg in segments:
        if seg.vaddr <= addr < seg.vaddr + max(seg.memsz, 1) and seg.memsz:
            lma = seg.paddr + (addr - seg.vaddr)
            in_segment = True
            break
    in_bench = bench is not None and _inside(addr, size, bench)
    in_ram = not in_bench and _inside(addr, size, chip.ram)
    stored_in_flash = not nobits and not in_bench and _inside(lma, size, chip.flash)
    places = [(addr, "run")] if nobits or lma == addr else [(lma, "load"), (addr, "run")]
    memory = (chip.flash, chip.ram, chip.vectors, bench or bench_region(chip))
    for where, what in places:
        if not any(_inside(where, size, r) for r in memory if r):
            raise ElfError(f"{path.name}: section {s.name} ({what} address {where:#x}, {size} bytes) lies "
                           f"outside {chip.name}'s flash and RAM")
    data = b""
    if not nobits:
        data = s.data()
        if len(data) != size:
            raise ElfError(f"{path.name}: section {s.name} is cut short ({len(data)} of {size} bytes in the file)")
    zeroed = nobits and (in_segment or s.name.startswith((".bss", ".sbss")))
    return Section(name=s.name, addr=addr, lma=lma, size=size, nobits=nobits,
                   rom=size if stored_in_flash else 0, ram=size if in_ram else 0,
                   bench=size if in_bench else 0, data=data, zeroed=zeroed)


_KINDS = {"STT_FUNC": "func", "STT_OBJECT": "object", "STT_NOTYPE": "notype",
          "STT_SECTION": "section", "STT_FILE": "file"}


def _read_symbols(elf, symtab, img: ElfImage, thumb_target: bool) -> None:
    for sym in symtab.iter_symbols():
        kind = _KINDS.get(sym["st_info"]["type"], sym["st_info"]["type"])
        name = sym.name
        if not name or kind in ("section", "file") or name.startswith(("$", ".L")):
            continue  # ARM mapping symbols ($t, $d) and assembler locals
        shndx = sym["st_shndx"]
        if shndx == "SHN_UNDEF":
            continue
        section = "" if isinstance(shndx, str) else elf.get_section(shndx).name
        value = sym["st_value"]
        thumb = thumb_target and kind == "func" and bool(value & 1)
        s = Symbol(name=name, addr=value & ~1 if thumb else value, size=sym["st_size"], kind=kind,
                   section=section, is_global=sym["st_info"]["bind"] != "STB_LOCAL", thumb=thumb)
        old = img.symbols.get(name)
        # A global wins over a local of the same name; the first local wins among locals.
        if old is None or (s.is_global and not old.is_global):
            img.symbols[name] = s
