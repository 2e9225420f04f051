"""Test helper: assemble a Thumb snippet with GNU binutils and load it into an ArmV6MSim.

`assemble(src, origin)` returns (image bytes, {symbol: address}); results are cached per process
because many parametrized cases share sources.
"""
from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path

from aedsl.toolchain import find_tool


def _run(cmd: list[str], cwd: Path) -> str:
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr}")
    return res.stdout


@functools.lru_cache(maxsize=None)
def assemble(src: str, origin: int) -> tuple[bytes, dict[str, int]]:
    """Assemble `src` (GNU syntax, unified) for Cortex-M0 and link its .text at `origin`."""
    text = "\t.syntax unified\n\t.cpu cortex-m0\n\t.thumb\n\t.text\n" + src + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "s.s").write_text(text)
        _run([find_tool("arm-none-eabi-as"), "-mcpu=cortex-m0", "-mthumb", "-o", "s.o", "s.s"], d)
        _run([find_tool("arm-none-eabi-ld"), "-Ttext", hex(origin), "-e", hex(origin), "-o", "s.elf", "s.o"], d)
        _run([find_tool("arm-none-eabi-objcopy"), "-O", "binary", "-j", ".text", "s.elf", "s.bin"], d)
        syms = {}
        for line in _run([find_tool("arm-none-eabi-nm"), "s.elf"], d).splitlines():
            parts = line.split()
            if len(parts) == 3:
                syms[parts[2]] = int(parts[0], 16)
        return (d / "s.bin").read_bytes(), syms


def load(sim, src: str, origin: int | None = None) -> dict[str, int]:
    """Assemble, write at `origin` (default: the chip's flash origin), point PC at it and set SP
    to the top of RAM. Returns the symbol table."""
    origin = sim.chip.flash.origin if origin is None else origin
    image, syms = assemble(src, origin)
    sim.write(origin, image)
    sim.reset()
    sim.set_reg(15, origin)
    sim.set_reg(13, sim.chip.ram.end)
    return syms
