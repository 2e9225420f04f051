"""`aedsl sim` on ELFs GNU ld writes with a plain script, on broken ELFs and on bad arguments:
cycles for the first, one line and exit 2 for the others, never a traceback."""
from __future__ import annotations

import struct

import pytest

from .conftest import MSP430_ASM, PLAIN_SCRIPT, link_with_script, one_line_error, run

CHIP = "cc430f6137"


def test_plain_script_elf_runs_and_reports_cycles(plain_elf):
    # the premise: the first LOAD segment starts below flash, where ld put the ELF headers
    from elftools.elf.elffile import ELFFile
    with open(plain_elf, "rb") as f:
        first = next(s for s in ELFFile(f).iter_segments() if s["p_type"] == "PT_LOAD")
        assert first["p_vaddr"] < 0x8000 and first["p_offset"] == 0
    rc, out, err = run("sim", plain_elf, "--chip", CHIP, "--entry", "add3", "--arg", "4", "--json")
    assert rc == 0, err
    import json
    r = json.loads(out)
    assert r["return_value"] == 4 + 3 + 5          # .data was copied to RAM from its flash image
    assert r["cycles"] > 0 and r["instructions"] == 3
    assert r["rom"] == 10 + 2 and r["ram"] == 2   # .text + .data image; .data in RAM


def test_section_at_a_peripheral_address_is_refused(tmp_path):
    asm = MSP430_ASM + '        .section .periph, "aw"\n        .word 1\n'
    script = PLAIN_SCRIPT.replace("SECTIONS {", "SECTIONS {\n  .periph 0x0100 : { *(.periph) }")
    elf = link_with_script(tmp_path, asm, script)
    rc, _, err = run("sim", elf, "--chip", CHIP, "--entry", "add3")
    assert rc == 2
    one_line_error(err, "prog.elf", ".periph", "0x100", "outside")


def _patched(tmp_path, elf, name, edit):
    data = bytearray(elf.read_bytes())
    edit(data)
    p = tmp_path / name
    p.write_bytes(bytes(data))
    return p


@pytest.mark.parametrize("name, edit", [
    ("truncated-half.elf", lambda d: d.__delitem__(slice(len(d) // 2, None))),
    ("truncated-header.elf", lambda d: d.__delitem__(slice(40, None))),
    ("bad-phoff.elf", lambda d: d.__setitem__(slice(28, 32), struct.pack("<I", 0xFFFFFF00))),
    ("bad-shoff.elf", lambda d: d.__setitem__(slice(32, 36), struct.pack("<I", 0xFFFFFF00))),
    ("class64.elf", lambda d: d.__setitem__(4, 2)),
    ("bad-shstrndx.elf", lambda d: d.__setitem__(slice(50, 52), struct.pack("<H", 0x7FFF))),
    ("not-elf.elf", lambda d: d.__setitem__(slice(0, 4), b"\x7fELG")),
])
def test_broken_elf_is_one_line_and_exit_2(plain_elf, tmp_path, name, edit):
    elf = _patched(tmp_path, plain_elf, name, edit)
    rc, _, err = run("sim", elf, "--chip", CHIP, "--entry", "add3")
    assert rc == 2, err
    one_line_error(err, name)


def test_missing_elf_is_exit_2(tmp_path):
    rc, _, err = run("sim", tmp_path / "nope.elf", "--chip", CHIP, "--entry", "add3")
    assert rc == 2
    one_line_error(err, "nope.elf")


@pytest.mark.parametrize("args, fragment", [
    (["--arg", "zeros:-1"], "zeros:N"),
    (["--arg", "zeros:0x7fffffff"], "zeros:N"),
    (["--arg", "hex:abc"], "hex:BYTES"),
    (["--max-steps", "0"], "--max-steps"),
    (["--max-steps", "-1"], "--max-steps"),
    (["--max-steps", "many"], "--max-steps"),
    (["--chip", ""], "unknown chip"),
])
def test_bad_option_values_are_exit_2(plain_elf, args, fragment):
    argv = ["sim", plain_elf, "--chip", CHIP, "--entry", "add3", *args]
    if "--chip" in args:
        argv = ["sim", plain_elf, "--entry", "add3", *args]
    rc, _, err = run(*argv)
    assert rc == 2
    one_line_error(err, fragment)


def test_too_many_stack_arguments_is_an_argument_error(plain_elf):
    rc, _, err = run("sim", plain_elf, "--chip", CHIP, "--entry", "add3", *["--arg", "1"] * 2100)
    assert rc == 2
    line = one_line_error(err, "2100 arguments", "stack")
    assert "debugger" not in line


def test_max_steps_is_a_real_limit(plain_elf):
    rc, _, err = run("sim", plain_elf, "--chip", CHIP, "--entry", "add3", "--max-steps", "1")
    assert rc == 1
    one_line_error(err, "did not return within 1 instructions")
