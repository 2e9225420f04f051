"""The external tools that turn assembly and C into an ELF for a chip, and the linker scripts.

Tools and where they are looked for:

- MSP430: ``msp430-elf-as``, ``msp430-elf-ld``, ``msp430-elf-objdump`` from
  ``$AEDSL_CACHE/msp430-elf-binutils/bin``, then ``~/.cache/aedsl/msp430-elf-binutils/bin``
  (where ``./dev`` builds them), then ``PATH``. C for MSP430 is compiled by
  ``clang --target=msp430-elf`` (clang's integrated assembler writes the object, so no
  msp430-elf-gcc is needed) and linked by msp430-elf-ld.
- ARMv6-M: ``arm-none-eabi-as``, ``-ld``, ``-gcc``, ``-objdump`` from ``PATH`` (Debian's
  gcc-arm-none-eabi).

What was found out about clang 14 for MSP430 (checked on Debian 12):
- ``clang --target=msp430-elf -O2 -ffreestanding -nostdlib -c`` works; the integrated assembler
  is fine, ``-fno-integrated-as`` is *not* needed.
- ``-mcpu=msp430x`` is accepted but ignored by the driver ("argument unused"): clang emits only
  original MSP430 instructions with 16-bit CALL/RET (small code model), which run on every
  MSP430 chip, so one object suits both ISAs. 32-bit multiply and shifts by a variable become
  calls to libgcc helpers (``__mspabi_mpyl`` …) that a ``-nostdlib`` link does not have: runtime C
  must avoid them or provide them.
- msp430-elf-ld refuses to link objects whose ``.MSP430.attributes`` disagree ("uses MSP430
  instructions but … uses MSP430X"). clang marks its objects Tag_ISA MSP430 unless given the
  ``ext`` target feature (``-Xclang -target-feature -Xclang +ext``), which changes the attribute
  to MSP430X and, in clang 14, not the generated code; so C for an msp430x chip gets that flag and
  links with assembly assembled with ``-mcpu=430x``.

Linker scripts are generated from the chip file (`aedsl.chips.Chip`), so a new chip needs no new
script; see `linker_script` for the symbols they define.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from aedsl.chips import Chip, Region


class ToolchainError(Exception):
    """A tool is missing or failed; the message carries the command and its output."""


BOOTSTRAP_HINT = "run ./dev main (or tools/bootstrap.sh) once to install the toolchains"


def _cache_root() -> Path:
    return Path(os.environ.get("AEDSL_CACHE", Path.home() / ".cache" / "aedsl"))


def _search_dirs() -> list[Path]:
    dirs = [_cache_root() / "msp430-elf-binutils" / "bin",
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
    return "arm-none-eabi-" if chip.target == "armv6m" else "msp430-elf-"


def tool(chip: Chip, name: str) -> str:
    """The chip's binutils tool `name` ("as", "ld", "objdump", "nm", "size", "gcc")."""
    return find_tool(_prefix(chip) + name)


def _run(cmd: list[str]) -> str:
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise ToolchainError(f"command failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}{res.stdout}")
    return res.stdout


# --- assembling and compiling --------------------------------------------------------------

def msp430_cpu_flag(chip: Chip) -> str:
    # "430xv2" would also be right for CPUXV2, but 430x accepts the same instructions and the
    # assembler's only difference (the CPU4 errata rules) does not matter to a simulator.
    return "-mcpu=430x" if chip.isa == "msp430x" else "-mcpu=430"


def assemble(src: str | Path, out: str | Path, chip: Chip, include_dirs=(), defines=()) -> Path:
    """Assemble one file into an object. A ``.S`` file (capital S) goes through the C
    preprocessor first (clang -E for MSP430, since msp430-elf-as has none; gcc for ARM), with
    ``-D`` `defines` ("NAME" or "NAME=VALUE") and ``-I`` `include_dirs`."""
    src, out = Path(src), Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    incs = [f"-I{d}" for d in include_dirs]
    defs = [f"-D{d}" for d in defines]
    if chip.target == "armv6m":
        if src.suffix == ".S":
            cmd = [tool(chip, "gcc"), "-mcpu=cortex-m0", "-mthumb", "-c", *incs, *defs, "-o", str(out), str(src)]
        else:
            cmd = [tool(chip, "as"), "-mcpu=cortex-m0", "-mthumb", *incs, "-o", str(out), str(src)]
        _run(cmd)
        return out
    as_cmd = [tool(chip, "as"), msp430_cpu_flag(chip), "-mY", "-mN", *incs, "-o", str(out)]
    if src.suffix == ".S":
        pre = _run([find_tool("clang"), "--target=msp430-elf", "-E", "-P", "-x", "assembler-with-cpp",
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


C_FLAGS_MSP430 = ["--target=msp430-elf", "-ffreestanding", "-nostdlib", "-fno-builtin"]
C_FLAGS_ARMV6M = ["-mcpu=cortex-m0", "-mthumb", "-ffreestanding", "-nostdlib",
                  "-fno-unwind-tables", "-fno-asynchronous-unwind-tables"]


def compile_c(src: str | Path, out: str | Path, chip: Chip, opt: str = "-Os", include_dirs=(),
              defines=(), extra_flags=()) -> Path:
    """Compile one C file into an object: clang for MSP430, arm-none-eabi-gcc for ARMv6-M."""
    src, out = Path(src), Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    common = [opt, "-std=c11", "-Wall", *[f"-I{d}" for d in include_dirs], *[f"-D{d}" for d in defines],
              *extra_flags, "-c", "-o", str(out), str(src)]
    if chip.target == "armv6m":
        cmd = [tool(chip, "gcc"), *C_FLAGS_ARMV6M, *common]
    else:
        isa = ["-Xclang", "-target-feature", "-Xclang", "+ext"] if chip.isa == "msp430x" else []
        cmd = [find_tool("clang"), *C_FLAGS_MSP430, *isa, *common]
    _run(cmd)
    return out


# --- linker scripts ----------------------------------------------------------------------

MSP430_ADDRESS_TOP = 0x10000   # 16-bit code and data pointers (CALL/RET, small model)


def msp430_vector_table(chip: Chip) -> Region:
    """Interrupt vectors at the top of the 16-bit space: 64 vectors (0xFF80) on the 5xx/6xx
    families (SLAU208 1.3.6), 16 (0xFFE0) on the 1xx family (SLAU049 2.2)."""
    size = 0x80 if chip.cpu == "cpuxv2" else 0x20
    return Region(MSP430_ADDRESS_TOP - size, size)


def bench_region(chip: Chip) -> Region:
    """A buffer area that does not exist on the real chip, for benchmark inputs larger than its RAM
    (e.g. 4 KB messages on a 4 KB-RAM part). It is mapped only in the simulator and reported
    apart from RAM. MSP430: the largest hole of the 16-bit space above the peripheral/boot area
    (0x1000) that is neither flash, RAM nor the vectors, so 16-bit pointers reach it. ARM: 64 KB
    just after RAM (the SRAM alias space is otherwise empty on small STM32 parts)."""
    if chip.target == "armv6m":
        start = (chip.ram.end + 0xFFF) & ~0xFFF
        return Region(start, 0x10000)
    taken = sorted([(chip.flash.origin, chip.flash.end), (chip.ram.origin, chip.ram.end),
                    (msp430_vector_table(chip).origin, MSP430_ADDRESS_TOP)])
    best, cur = Region(0, 0), 0x1000
    for lo, hi in taken + [(MSP430_ADDRESS_TOP, MSP430_ADDRESS_TOP)]:
        if lo > cur and lo - cur > best.length:
            best = Region(cur, min(lo, MSP430_ADDRESS_TOP) - cur)
        cur = max(cur, hi)
    if best.length == 0:
        raise ToolchainError(f"no room for a benchmark region in {chip.name}'s 16-bit address space")
    return best


def _common_sections(flash: str, ram: str) -> str:
    # Explicit program headers (PHDRS) keep ld from mapping the ELF and program headers into the
    # first segment below the flash origin, where a loader would write them into unmapped memory.
    # .data is placed in RAM with its initial image in flash (AT>), as startup code copies it;
    # the harness does that copy itself when it loads the ELF. .bss must not be NOLOAD: ld leaves
    # NOLOAD sections out of the segment's memory size, so a loader would not know to zero it.
    return f"""\
  .text : {{
    *(.text.startup .text.startup.*)
    *(.text .text.* .lower.text .lower.text.*)
  }} > {flash} :rom
  .rodata : ALIGN(4) {{
    *(.rodata .rodata.* .lower.rodata .lower.rodata.*)
  }} > {flash} :rom
  .data : ALIGN(4) {{
    __data_start = .;
    *(.data .data.* .lower.data .lower.data.*)
    . = ALIGN(4);
    __data_end = .;
  }} > {ram} AT> {flash} :ram
  __data_load_start = LOADADDR(.data);
  .bss : ALIGN(4) {{
    __bss_start = .;
    *(.bss .bss.* .lower.bss .lower.bss.* COMMON)
    . = ALIGN(4);
    __bss_end = .;
  }} > {ram}
  .noinit (NOLOAD) : ALIGN(4) {{
    *(.noinit .noinit.*)
    . = ALIGN(4);
    __ram_used_end = .;
  }} > {ram}
  .benchbuf (NOLOAD) : ALIGN(4) {{
    __bench_start = .;
    *(.benchbuf .benchbuf.*)
    __bench_end = .;
  }} > BENCH :bench
"""


def linker_script(chip: Chip, bench: Region | None = None) -> str:
    """The GNU ld script for `chip`. Sections: .text, .rodata (flash), .data (RAM, loaded from
    flash), .bss and .noinit (RAM), .benchbuf (the simulator-only `bench_region`), vectors.
    Symbols: __stack_top (end of RAM, the initial SP), __data_start/__data_end/__data_load_start,
    __bss_start/__bss_end, __ram_used_end (first free RAM byte), __bench_start/__bench_end."""
    bench = bench or bench_region(chip)
    if chip.target == "armv6m":
        return f"""\
/* Generated by aedsl.toolchain for {chip.name}; do not edit. */
OUTPUT_ARCH(arm)
MEMORY {{
  FLASH (rx)  : ORIGIN = {chip.flash.origin:#x}, LENGTH = {chip.flash.length:#x}
  RAM   (rwx) : ORIGIN = {chip.ram.origin:#x}, LENGTH = {chip.ram.length:#x}
  BENCH (rw)  : ORIGIN = {bench.origin:#x}, LENGTH = {bench.length:#x}
}}
PHDRS {{ vectors PT_LOAD; rom PT_LOAD; ram PT_LOAD; bench PT_LOAD; }}
__stack_top = ORIGIN(RAM) + LENGTH(RAM);
SECTIONS {{
  /* Cortex-M: the vector table (initial SP, reset handler, ...) is the first thing in flash. */
  .vectors : {{ KEEP(*(.vectors .vectors.* .isr_vector)) }} > FLASH :vectors
{_common_sections("FLASH", "RAM")}  .ARM.exidx : {{ *(.ARM.exidx* .gnu.linkonce.armexidx.*) }} > FLASH :rom
  .ARM.attributes 0 : {{ KEEP(*(.ARM.attributes)) }}
}}
"""
    vec = msp430_vector_table(chip)
    low_end = min(chip.flash.end, vec.origin)
    upper = ""
    if chip.flash.end > MSP430_ADDRESS_TOP:
        # Flash above 64 KB (MSP430F5528) needs 20-bit addresses; only explicitly ".upper" code and
        # tables go there.
        upper_mem = (f"  FLASH_HI (rx) : ORIGIN = {MSP430_ADDRESS_TOP:#x}, "
                     f"LENGTH = {chip.flash.end - MSP430_ADDRESS_TOP:#x}\n")
        upper = ("  .upper.text : { *(.upper.text .upper.text.* .either.text .either.text.*) } > FLASH_HI :upper\n"
                 "  .upper.rodata : { *(.upper.rodata .upper.rodata.*) } > FLASH_HI :upper\n")
    else:
        upper_mem = ""
    return f"""\
/* Generated by aedsl.toolchain for {chip.name}; do not edit. */
OUTPUT_ARCH(msp430)
MEMORY {{
  FLASH (rx)    : ORIGIN = {chip.flash.origin:#x}, LENGTH = {low_end - chip.flash.origin:#x}
{upper_mem}  VECTORS (rx)  : ORIGIN = {vec.origin:#x}, LENGTH = {vec.length - 2:#x}
  RESETVEC (rx) : ORIGIN = {MSP430_ADDRESS_TOP - 2:#x}, LENGTH = 2
  RAM (rwx)     : ORIGIN = {chip.ram.origin:#x}, LENGTH = {chip.ram.length:#x}
  BENCH (rw)    : ORIGIN = {bench.origin:#x}, LENGTH = {bench.length:#x}
}}
PHDRS {{ rom PT_LOAD; ram PT_LOAD; bench PT_LOAD; upper PT_LOAD; vectors PT_LOAD; resetvec PT_LOAD; }}
__stack_top = ORIGIN(RAM) + LENGTH(RAM);
SECTIONS {{
{_common_sections("FLASH", "RAM")}{upper}  .vectors : {{ KEEP(*(.vectors .vectors.*)) }} > VECTORS :vectors
  /* The reset vector alone (msp430-gcc's convention: a word in .resetvec). */
  .resetvec : {{ KEEP(*(.resetvec)) }} > RESETVEC :resetvec
  .MSP430.attributes 0 : {{ KEEP(*(.MSP430.attributes)) }}
}}
"""


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
