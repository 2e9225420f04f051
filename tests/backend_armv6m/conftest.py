"""Shared fixtures for the ARMv6-M backend tests. Compiled variants are cached per session by
aedsl.backends.sim_engine (in-process lru_cache + on-disk build cache keyed by the assembly)."""
import dataclasses
import random
from functools import lru_cache

import pytest

from aedsl import chips
from aedsl.toolchain import ToolchainError, find_tool

try:
    find_tool("arm-none-eabi-as")
    HAVE_TOOLS = True
except ToolchainError:
    HAVE_TOOLS = False

needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="arm-none-eabi binutils not installed")

CHIP = "stm32f030"


@pytest.fixture
def rng():
    return random.Random(0xA4A6)


@lru_cache(maxsize=None)
def big_flash_chip():
    """The STM32F030 with 64 KB of flash (as on the STM32F030R8): EAX and OCB3 with software AES
    do not fit the 16 KB part yet (every AES call is inlined), so their correctness is checked
    on this variant; timing rules are the same Cortex-M0's."""
    c = chips.load(CHIP)
    return dataclasses.replace(c, name="stm32f030-64k", flash=chips.Region(c.flash.origin, 0x10000))


@lru_cache(maxsize=None)
def aead_engine(spec: str, chip_variant: str = CHIP, **knobs):
    from aedsl.backends.common.driver import compile_spec
    from aedsl.backends.sim_aead import SimAead
    from aedsl.backends.sim_engine import build_elf
    chip = big_flash_chip() if chip_variant != CHIP else chips.load(CHIP)
    unit = compile_spec(spec, chip, knobs)
    return SimAead(unit, chip, build_elf(unit, chip))
