"""Symbols, per-section and per-symbol ROM/RAM sizes, and the loaded memory image."""
from __future__ import annotations

import pytest

from aedsl import chips, toolchain
from aedsl.sim.elf import ElfError, read_elf

from .conftest import ALL_CHIPS


@pytest.mark.parametrize("name", ALL_CHIPS)
def test_sizes_of_the_harness_program(name, harness_elf):
    chip = chips.load(name)
    img = read_elf(harness_elf(name), chip, toolchain.bench_region(chip))
    sec = img.section_sizes()
    assert sec[".rodata"] == {"rom": 16, "ram": 0, "bench": 0}
    assert sec[".data"] == {"rom": 8, "ram": 8, "bench": 0}       # stored in flash, runs in RAM
    assert sec[".bss"] == {"rom": 0, "ram": 12, "bench": 0}
    assert sec[".benchbuf"] == {"rom": 0, "ram": 0, "bench": 1024}
    text = sec[".text"]["rom"]
    assert img.sizes().as_dict() == {"rom": text + 16 + 8, "ram": 8 + 12, "bench": 1024}
    per = img.symbol_sizes()
    assert per["table"] == {"rom": 16, "ram": 0, "bench": 0}
    assert per["counter"] == {"rom": 2, "ram": 2, "bench": 0}
    assert per["scratch"] == {"rom": 0, "ram": 12, "bench": 0}
    assert per["sum6"]["rom"] == 16    # MSP430: 5 one-word + 2 indexed (2 words) + RET; Thumb: 8 half-words


def test_symbols(harness_elf):
    chip = chips.load("stm32f030")
    img = read_elf(harness_elf("stm32f030"), chip)
    xor = img.symbol("xor_into")
    assert xor.kind == "func" and xor.thumb and xor.addr % 2 == 0 and xor.is_global
    assert img.symbol("table").kind == "object"
    assert img.address("midpoint") == img.address("two_phase") + 2
    with pytest.raises(ElfError, match="no symbol 'nope'.*xor_into"):
        img.symbol("nope")


def test_load_image_copies_data_to_ram(harness_elf):
    chip = chips.load("cc430f6137")
    img = read_elf(harness_elf("cc430f6137"), chip)
    mem: dict[int, int] = {}

    def write(addr, data):
        for i, b in enumerate(data):
            mem[addr + i] = b
    img.load_into(write)
    counter = img.address("counter")
    assert (mem[counter], mem[counter + 1]) == (41, 0)                   # VMA in RAM
    lma = next(s.lma for s in img.sections if s.name == ".data")
    assert (mem[lma], mem[lma + 1]) == (41, 0)                           # image in flash
    scratch = img.address("scratch")
    assert all(mem[scratch + i] == 0 for i in range(12))                # .bss zeroed
    assert not any(chip.flash.end <= a or a < chip.ram.origin for a in mem)  # nothing outside


def test_wrong_machine_is_rejected(harness_elf):
    with pytest.raises(ElfError, match="EM_MSP430"):
        read_elf(harness_elf("stm32f030"), chips.load("cc430f6137"))


def test_not_an_elf(tmp_path):
    p = tmp_path / "x.elf"
    p.write_text("hello")
    with pytest.raises(ElfError, match="not an ELF"):
        read_elf(p, chips.load("stm32f030"))
