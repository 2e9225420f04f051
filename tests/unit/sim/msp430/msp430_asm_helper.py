"""Assemble small MSP430 snippets with msp430-elf-as/ld and run them in Msp430Sim (test helper)."""
from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from aedsl import chips
from aedsl.sim.msp430 import Msp430Sim
from aedsl.toolchain import find_tool

# Fixed data addresses the snippets use (inside the chips' RAM).
RAM_CC430 = 0x1C00
RAM_F1611 = 0x1100


@functools.lru_cache(maxsize=None)
def assemble(src: str, cpu: str = "msp430x", text: int = 0x8000, data: int = 0x1C00) -> tuple[bytes, dict[str, int]]:
    """Assemble + link `src` with .text at `text`; return (text bytes, symbols).
    The linker defines EDE = data+0x20 and TONI = data+0x30 (symbolic-mode targets in RAM)."""
    with tempfile.TemporaryDirectory() as d:
        s, o, elf = Path(d) / "t.s", Path(d) / "t.o", Path(d) / "t.elf"
        s.write_text("\t.text\n\t.global _start\n_start:\n" + src + "\n")
        r = subprocess.run([find_tool("msp430-elf-as"), f"-mcpu={cpu}", "-o", str(o), str(s)], capture_output=True, text=True)
        if r.returncode:
            raise AssertionError(f"assembler failed:\n{r.stderr}\n{src}")
        ld_script = Path(d) / "t.ld"
        ld_script.write_text(f"EDE = {data + 0x20:#x}; TONI = {data + 0x30:#x};\nSECTIONS {{ .text {text:#x} : {{ *(.text) }} /DISCARD/ : {{ *(.MSP430.attributes) }} }}\n")
        r = subprocess.run([find_tool("msp430-elf-ld"), "-T", str(ld_script), "-o", str(elf), str(o)], capture_output=True, text=True)
        if r.returncode:
            raise AssertionError(f"linker failed:\n{r.stderr}\n{src}")
        with open(elf, "rb") as f:
            e = ELFFile(f)
            code = e.get_section_by_name(".text").data()
            syms = {}
            for sec in e.iter_sections():
                if isinstance(sec, SymbolTableSection):
                    for sym in sec.iter_symbols():
                        if sym.name:
                            syms[sym.name] = sym["st_value"]
        return bytes(code), syms


def make_sim(chip: str = "cc430f6137", extra_regions=()) -> Msp430Sim:
    return Msp430Sim(chips.load(chip), extra_regions)


def load(sim: Msp430Sim, src: str) -> dict[str, int]:
    """Assemble for the sim's CPU, load at the start of flash, point PC at it; return symbols."""
    chip = sim.chip
    code, syms = assemble(src, "msp430x" if chip.isa == "msp430x" else "msp430", chip.flash.origin, chip.ram.origin)
    sim.write(chip.flash.origin, code)
    sim.set_reg(0, chip.flash.origin)
    return syms


def cycles_of_first(sim: Msp430Sim, src: str, regs: dict[int, int] | None = None) -> int:
    """Run only the first instruction of `src`; return its cycles."""
    load(sim, src)
    for r, v in (regs or {}).items():
        sim.set_reg(r, v)
    c0 = sim.cycles
    info = sim.run(1)
    assert info.reason == "step_limit"
    return sim.cycles - c0
