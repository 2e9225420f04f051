"""ROM the way the papers count it, with a per-symbol breakdown (`aedsl bench --rom-detail`).

    items = rom_items(program.elf, unit, used_entries={"key_setup", "encrypt_with", "decrypt_with"},
                      linked=linked_symbols(aead_runtime.api_elf(elf)))
    rom_bytes(items)                        # what the `ROM` column of `aedsl bench` shows
    print(format_detail(items))

Counted (seed 000 counts "the code of the algorithm and its constants", both directions, and the
API a caller links; its benchmark code is left out):
- `code`: the generated functions the API uses (the exported entries it calls and their local
  subroutines), from the compiled unit's object file;
- `constants`: the unit's tables (S-box, T-tables, GHASH tables, round constants);
- `api`: the runtime's `crypto_aead_encrypt` / `crypto_aead_decrypt` and the helpers they call
  (runtime/*/aead.c);
- `library`: compiler support routines the linked code calls (e.g. libgcc's multiply), which a
  caller links too.
Not counted: `bench` (the benchmark wrappers of runtime/*/bench.c), `startup` (a target's reset
handler, vector table and main: runtime/armv6m/startup.c, part of any firmware), `unused` (what
a caller of crypto_aead_* does not link: entry points the API does not call, e.g. a staged
scheme's one-shot encrypt when it is exported too, and the staged API `aedsl_aead_key_setup` /
`aedsl_aead_*_with`, which a caller uses instead of crypto_aead_* when it keeps an expanded key).

What a caller links is what the linker keeps: aead_runtime.build_with_runtime also links the unit
with aead.c alone (each function and object in a section of its own), from crypto_aead_encrypt
and crypto_aead_decrypt, dropping unused sections; `linked` is that link's symbols.

Each symbol is attributed to the object file that defines it (the build folder of
`aead_runtime.build_with_runtime` keeps the objects beside the ELF); the sizes are the ELF's
symbol sizes. Bytes of a ROM section that no sized symbol covers (alignment padding, unsized
code) are reported as `unattributed` and not counted.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from aedsl.sim.elf import ElfImage

COUNTED = ("code", "constants", "api", "library")
NOT_COUNTED = ("unused", "bench", "startup")
KINDS = COUNTED + NOT_COUNTED

# object file stem (aead_runtime.build_with_runtime) -> kind of what it defines
RUNTIME_OBJECTS = {"rt_aead": "api", "rt_bench": "bench", "rt_startup": "startup"}


@dataclass(frozen=True)
class RomItem:
    name: str
    kind: str          # one of KINDS
    bytes: int
    section: str

    @property
    def counted(self) -> bool:
        return self.kind in COUNTED


def _defined(obj: Path) -> set[str]:
    """Names of the sized or function/object symbols an object file defines."""
    out = set()
    with obj.open("rb") as f:
        elf = ELFFile(f)
        for sec in elf.iter_sections():
            if not isinstance(sec, SymbolTableSection):
                continue
            for sym in sec.iter_symbols():
                if sym.name and sym["st_shndx"] not in ("SHN_UNDEF", "SHN_ABS") \
                        and sym["st_info"]["type"] in ("STT_FUNC", "STT_OBJECT"):
                    out.add(sym.name)
    return out


def _owners(elf_path: Path, unit_stem: str) -> dict[str, str]:
    """symbol -> kind by the object file that defines it ("" for the generated unit's own)."""
    owners: dict[str, str] = {}
    for obj in sorted(elf_path.parent.glob("*.o")):
        kind = RUNTIME_OBJECTS.get(obj.stem, "unit" if obj.stem == unit_stem else None)
        if kind is None:
            continue
        for name in _defined(obj):
            owners.setdefault(name, kind)
    return owners


def linked_symbols(elf: Path) -> set[str]:
    """Names of the functions and objects defined in a linked ELF (e.g. the API link of
    aead_runtime.build_with_runtime, which keeps only what crypto_aead_* reach)."""
    return _defined(Path(elf))


def rom_items(img: ElfImage, unit, used_entries, linked: set[str] | None = None) -> list[RomItem]:
    """Every sized ROM symbol of the linked ELF (`img`, read by aedsl.sim.elf) with its kind (see
    the module docstring). `used_entries`: the names (in `unit.entries`) of the generated entries
    the API calls. `linked`: if given, the symbols a caller of the API links (`linked_symbols` of
    the API link); the unit's and the runtime's other symbols are `unused`."""
    owners = _owners(img.path, unit.stem)
    unused = {e.symbol for n, e in unit.entries.items() if n not in used_entries}
    rom_secs = {s.name for s in img.sections if s.rom}
    items = []
    for sym in img.symbols.values():
        if sym.kind not in ("func", "object") or not sym.size or sym.section not in rom_secs:
            continue
        owner = owners.get(sym.name)
        if linked is not None and owner in ("unit", "api") and sym.name not in linked:
            kind = "unused"
        elif owner == "unit":
            kind = "unused" if sym.name in unused else ("code" if sym.kind == "func" else "constants")
        elif owner is not None:
            kind = owner
        else:
            kind = "library"
        items.append(RomItem(sym.name, kind, sym.size, sym.section))
    items.sort(key=lambda i: (KINDS.index(i.kind), -i.bytes, i.name))
    return items


def unattributed(img: ElfImage, items: list[RomItem]) -> int:
    """ROM bytes of the ELF's ROM sections that no listed symbol covers (padding, unsized code)."""
    return max(0, img.sizes().rom - sum(i.bytes for i in items))


def rom_bytes(items: list[RomItem]) -> int:
    return sum(i.bytes for i in items if i.counted)


def totals(items: list[RomItem]) -> dict[str, int]:
    """Bytes per kind (every kind, in KINDS order)."""
    return {k: sum(i.bytes for i in items if i.kind == k) for k in KINDS}


def format_detail(items: list[RomItem], extra: int = 0) -> str:
    """The breakdown as text: one line per symbol, then the total per kind and the ROM."""
    lines = [f"{'bytes':>6}  {'kind':<10} {'section':<10} symbol"]
    for i in items:
        mark = "" if i.counted else "  (not counted)"
        lines.append(f"{i.bytes:>6}  {i.kind:<10} {i.section:<10} {i.name}{mark}")
    t = totals(items)
    lines.append("per kind: " + ", ".join(f"{k} {v}" for k, v in t.items() if v))
    if extra:
        lines.append(f"unattributed (padding, unsized): {extra} (not counted)")
    lines.append(f"ROM (code + constants + api + library): {rom_bytes(items)} B")
    return "\n".join(lines)
