"""The external tools that turn assembly and C into an ELF for a chip, and the linker scripts.

What each target needs is data in its package (`Backend.toolchain`, a `ToolchainSpec`, and
`Backend.linker_script`); this module finds the tools and runs them.

Tools and where they are looked for: ``<prefix>as``, ``ld``, ``objdump``, ``gcc`` ... (prefix from
the target, e.g. ``msp430-elf-``, ``arm-none-eabi-``) and ``clang`` in
``$AEDSL_CACHE/msp430-elf-binutils/bin``, then ``~/.cache/aedsl/msp430-elf-binutils/bin`` (where
``./dev`` builds the msp430 binutils), then ``PATH``.

Linker scripts are generated from the chip file (`aedsl.chips.Chip`) by the chip's target, so a
new chip needs no new script; every script defines the symbols listed in `linker_script`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from aedsl.backends.registry import target_for
from aedsl.chips import Chip, Region
from aedsl.resources import cache_root
from aedsl.sim.cores import bench_region


class ToolchainError(Exception):
    """A tool is missing or failed; the message carries the command and its output."""


BOOTSTRAP_HINT = "run ./dev main (or tools/bootstrap.sh) once to install the toolchains"


def _search_dirs() -> list[Path]:
    dirs = [cache_root() / "msp430-elf-binutils" / "bin",
            Path.home() / ".cache" / "aedsl" / "msp430-elf-binutils" / "bin"]
    out: list[Path] = []
    for d in dirs:
        if d not in out:
            out.append(d)
    return out


def find_tool(name: str) -> str:
    """Absolute path of tool `name` (e.g. "msp430-elf-as"), or ToolchainError naming ./dev."""
    for d in _search_dirs():
        p = d / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    found = shutil.which(name)
    if found:
        return found
    where = ", ".join(str(d) for d in _search_dirs())
    raise ToolchainError(f"{name} not found (looked in {where} and PATH); {BOOTSTRAP_HINT}")


def _prefix(chip: Chip) -> str:
    return target_for(chip).toolchain.prefix


def tool(chip: Chip, name: str) -> str:
    """The chip's binutils tool `name` ("as", "ld", "objdump", "nm", "size", "gcc")."""
    return find_tool(_prefix(chip) + name)


def _run(cmd: list[str]) -> str:
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise ToolchainError(f"command failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}{res.stdout}")
    return res.stdout


# --- assembling and compiling --------------------------------------------------------------

def assemble(src: str | Path, out: str | Path, chip: Chip, include_dirs=(), defines=()) -> Path:
    """Assemble one file into an object. A ``.S`` file (capital S) goes through the C
    preprocessor first (the target's `cpp`: the prefixed gcc, which then assembles too, or
    clang -E feeding the assembler), with ``-D`` `defines` ("NAME" or "NAME=VALUE") and ``-I``
    `include_dirs`."""
    src, out = Path(src), Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tc = target_for(chip).toolchain
    incs = [f"-I{d}" for d in include_dirs]
    defs = [f"-D{d}" for d in defines]
    as_flags = [*tc.isa_as_flags.get(chip.isa, ()), *tc.as_flags]
    if src.suffix == ".S" and tc.cpp == "gcc":
        _run([tool(chip, "gcc"), *as_flags, "-c", *incs, *defs, "-o", str(out), str(src)])
        return out
    as_cmd = [tool(chip, "as"), *as_flags, *incs, "-o", str(out)]
    if src.suffix == ".S":
        pre = _run([find_tool("clang"), *tc.cpp_flags, "-E", "-P", "-x", "assembler-with-cpp",
                    *incs, *defs, str(src)])
        with tempfile.NamedTemporaryFile("w", suffix=".s", dir=out.parent, delete=False) as f:
            f.write(pre)
        try:
            _run(as_cmd + [f.name])
        finally:
            os.unlink(f.name)
    else:
        _run(as_cmd + [str(src)])
    return out


def compile_c(src: str | Path, out: str | Path, chip: Chip, opt: str = "-Os", include_dirs=(),
              defines=(), extra_flags=()) -> Path:
    """Compile one C file into an object with the target's C compiler."""
    src, out = Path(src), Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tc = target_for(chip).toolchain
    common = [opt, "-std=c11", "-Wall", *[f"-I{d}" for d in include_dirs], *[f"-D{d}" for d in defines],
              *extra_flags, "-c", "-o", str(out), str(src)]
    cc = find_tool("clang") if tc.cc == "clang" else tool(chip, tc.cc)
    _run([cc, *tc.cc_flags, *tc.isa_cc_flags.get(chip.isa, ()), *common])
    return out


# --- linker scripts ----------------------------------------------------------------------

def linker_script(chip: Chip, bench: Region | None = None) -> str:
    """The GNU ld script for `chip`, from its target. Sections: .text, .rodata (flash), .data (RAM,
    loaded from flash), .bss and .noinit (RAM), .benchbuf (the simulator-only
    `aedsl.sim.cores.bench_region`), vectors. Symbols: __stack_top (end of RAM, the initial SP),
    __data_start/__data_end/__data_load_start, __bss_start/__bss_end, __ram_used_end (first free
    RAM byte), __bench_start/__bench_end."""
    return target_for(chip).linker_script(chip, bench or bench_region(chip))


def link(objects, out: str | Path, chip: Chip, entry: str | None = None, bench: Region | None = None,
         script: str | Path | None = None, extra_flags=()) -> Path:
    """Link objects into an ELF with the chip's generated script (written beside `out` as
    ``<out>.ld``) or with `script`. Unused sections are kept (no --gc-sections): every
    function in the objects stays callable from the harness."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if script is None:
        script = out.with_suffix(out.suffix + ".ld")
        Path(script).write_text(linker_script(chip, bench))
    cmd = [tool(chip, "ld"), "-T", str(script), "-o", str(out), *extra_flags]
    if entry:
        cmd += ["-e", entry]
    cmd += [str(o) for o in objects]
    _run(cmd)
    return out


def build(sources, out: str | Path, chip: Chip, opt: str = "-Os", include_dirs=(), defines=(),
          entry: str | None = None) -> Path:
    """Compile/assemble every source (by suffix: .c, .s, .S) into ``<out>.objs/`` and link `out`."""
    out = Path(out)
    objdir = out.parent / (out.name + ".objs")
    objs = []
    for i, s in enumerate(sources):
        s = Path(s)
        obj = objdir / f"{i}-{s.stem}.o"
        if s.suffix == ".c":
            compile_c(s, obj, chip, opt=opt, include_dirs=include_dirs, defines=defines)
        elif s.suffix in (".s", ".S"):
            assemble(s, obj, chip, include_dirs=include_dirs, defines=defines)
        else:
            raise ToolchainError(f"don't know how to build {s} (expected .c, .s or .S)")
        objs.append(obj)
    return link(objs, out, chip, entry=entry)


def disassemble(elf: str | Path, chip: Chip) -> str:
    """objdump -d text of an ELF (for debugging and reports)."""
    return _run([tool(chip, "objdump"), "-d", str(elf)])
