"""Shared fixtures for the ARMv6-M backend tests. Compiled variants are cached per session by
aedsl.engines.sim (in-process lru_cache + on-disk build cache keyed by the assembly).
Everything runs on the real STM32F030F4 (16 KB flash): AES is a subroutine (the call policy, inline=auto), so
every mode fits."""
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
def aead_engine(spec: str, **knobs):
    from aedsl.driver import compile_spec
    from aedsl.engines.sim_aead import SimAead
    from aedsl.engines.sim import build_elf
    chip = chips.load(CHIP)
    unit = compile_spec(spec, chip, knobs)
    return SimAead(unit, chip, build_elf(unit, chip))
