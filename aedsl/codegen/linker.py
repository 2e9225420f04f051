"""Linker-script text every target shares: the output sections of a linked unit and the symbols
the C runtime and the simulator harness read."""
from __future__ import annotations


def common_sections(flash: str, ram: str) -> str:
    """.text/.rodata in `flash`, .data in `ram` loaded from flash, .bss/.noinit in RAM and the
    simulator-only .benchbuf in BENCH.

    Explicit program headers (PHDRS) keep ld from mapping the ELF and program headers into the
    first segment below the flash origin, where a loader would write them into unmapped memory.
    .data is placed in RAM with its initial image in flash (AT>), as startup code copies it; the
    harness does that copy itself when it loads the ELF. .bss must not be NOLOAD: ld leaves NOLOAD
    sections out of the segment's memory size, so a loader would not know to zero it."""
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
