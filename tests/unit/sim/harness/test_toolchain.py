"""Finding the tools, assembling, and the linker scripts generated from the chip files."""
from __future__ import annotations

import pytest

from aedsl import chips, toolchain
from aedsl.sim.elf import read_elf
from aedsl.backends.registry import target_for

from .conftest import ALL_CHIPS


def test_missing_tool_names_the_bootstrap(monkeypatch, tmp_path):
    monkeypatch.setenv("AEDSL_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(toolchain.ToolchainError, match=r"msp430-elf-as not found.*\./dev"):
        toolchain.find_tool("msp430-elf-as")


def test_tools_found_for_both_targets():
    for name in ("cc430f6137", "stm32f030"):
        chip = chips.load(name)
        for t in ("as", "ld", "objdump"):
            assert toolchain.tool(chip, t).endswith(("msp430-elf-" if target_for(chip).name == "msp430" else "arm-none-eabi-") + t)


def test_assembler_error_is_reported(tmp_path):
    bad = tmp_path / "bad.s"
    bad.write_text("        frobnicate r4\n")
    with pytest.raises(toolchain.ToolchainError, match="frobnicate"):
        toolchain.assemble(bad, tmp_path / "bad.o", chips.load("cc430f6137"))


@pytest.mark.parametrize("name", ALL_CHIPS)
def test_bench_region_is_outside_the_chip(name):
    chip = chips.load(name)
    b = toolchain.bench_region(chip)
    assert b.length >= 1024
    for r in (chip.flash, chip.ram):
        assert b.end <= r.origin or b.origin >= r.end
    assert 0x1000 <= b.origin
    assert b.end <= chip.vectors.origin or b.origin >= chip.vectors.end


@pytest.mark.parametrize("name", ALL_CHIPS)
def test_linker_script_places_sections_in_the_chip_memory(name, harness_elf):
    chip = chips.load(name)
    img = read_elf(harness_elf(name), chip, toolchain.bench_region(chip))
    secs = {s.name: s for s in img.sections}
    assert secs[".text"].addr == chip.flash.origin
    assert chip.flash.origin <= secs[".rodata"].addr < chip.flash.end
    # .data runs in RAM and is stored in flash right after the read-only sections
    assert secs[".data"].addr == chip.ram.origin
    assert chip.flash.origin <= secs[".data"].lma < chip.flash.end
    assert secs[".data"].lma >= secs[".rodata"].addr + secs[".rodata"].size
    assert chip.ram.origin <= secs[".bss"].addr < chip.ram.end
    assert secs[".benchbuf"].addr == toolchain.bench_region(chip).origin
    assert img.address("__stack_top") == chip.ram.end
    assert img.address("__data_load_start") == secs[".data"].lma
    assert img.address("__bss_end") - img.address("__bss_start") == 12
    # No program header maps bytes outside flash, RAM and the benchmark region.
    for seg in img.segments:
        if seg.memsz:
            assert any(r.origin <= seg.vaddr and seg.vaddr + seg.memsz <= r.end
                       for r in (chip.flash, chip.ram, toolchain.bench_region(chip)))


def test_msp430_vectors_section(tmp_path):
    chip = chips.load("msp430f1611")
    src = tmp_path / "v.s"
    src.write_text("        .text\n        .global start\nstart:  jmp start\n"
                   "        .section .resetvec, \"ax\", @progbits\n        .word start\n")
    elf = toolchain.link([toolchain.assemble(src, tmp_path / "v.o", chip)], tmp_path / "v.elf", chip)
    img = read_elf(elf, chip)
    secs = {s.name: s for s in img.sections}
    assert secs[".resetvec"].addr == 0xFFFE
    assert secs[".resetvec"].rom == 2


def test_code_too_big_for_flash_is_a_link_error(tmp_path):
    chip = chips.load("stm32f030")
    src = tmp_path / "big.s"
    src.write_text(f"        .text\n        .skip {chip.flash.length + 4}\n")
    with pytest.raises(toolchain.ToolchainError, match="FLASH"):
        toolchain.link([toolchain.assemble(src, tmp_path / "big.o", chip)], tmp_path / "big.elf", chip)


def test_preprocessed_assembly(tmp_path):
    chip = chips.load("cc430f6137")
    src = tmp_path / "p.S"
    src.write_text("#define VALUE 0x1234\n        .text\n        .global f\nf:      mov #VALUE, r12\n        ret\n")
    elf = toolchain.link([toolchain.assemble(src, tmp_path / "p.o", chip)], tmp_path / "p.elf", chip)
    assert "#0x1234" in toolchain.disassemble(elf, chip)
