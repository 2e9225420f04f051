"""Shared pieces of the CLI input tests: running `aedsl` in-process and the ELFs they feed it."""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from aedsl import chips, cli, toolchain

ROOT = Path(__file__).resolve().parents[3]
SPECS = ROOT / "specs"

# A function and a .data word for MSP430, in the original instruction set (runs on every chip).
MSP430_ASM = """\
        .text
        .global add3
        .type   add3, @function
add3:
        add     #3, r12
        add     &counter, r12
        ret
        .size   add3, .-add3
        .data
        .global counter
counter: .word 5
"""

# GNU ld with a plain MEMORY/SECTIONS script (no PHDRS, no headers placement): ld puts the ELF
# and program headers in the first LOAD segment, just below the first section, so below flash.
PLAIN_SCRIPT = """\
MEMORY {
  ram (rwx) : ORIGIN = 0x1c00, LENGTH = 0x1000
  rom (rx)  : ORIGIN = 0x8000, LENGTH = 0x7f80
}
SECTIONS {
  .text : { *(.text*) } > rom
  .data : { *(.data*) } > ram AT> rom
  .bss  : { *(.bss*) } > ram
}
"""


def run(*argv) -> tuple[int, str, str]:
    """`aedsl ARGV` in-process: (exit code, stdout, stderr). An exception escaping `cli.main`
    (what a user would see as a traceback) fails the calling test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def one_line_error(err: str, *fragments: str) -> str:
    """The stderr of a refused input: exactly one line, holding every fragment."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for f in fragments:
        assert f in lines[0], err
    return lines[0]


def link_with_script(tmp: Path, asm: str, script: str, chip_name: str = "cc430f6137") -> Path:
    """Assemble `asm` and link it with the project's toolchain and our own ld `script`."""
    chip = chips.load(chip_name)
    src = tmp / "prog.s"
    src.write_text(asm)
    obj = toolchain.assemble(src, tmp / "prog.o", chip)
    ld = tmp / "plain.ld"
    ld.write_text(script)
    return toolchain.link([obj], tmp / "prog.elf", chip, script=ld)


@pytest.fixture(scope="session")
def plain_elf(tmp_path_factory) -> Path:
    """An msp430 ELF linked with a plain script (headers in the first LOAD segment below flash)."""
    return link_with_script(tmp_path_factory.mktemp("plain-elf"), MSP430_ASM, PLAIN_SCRIPT)
