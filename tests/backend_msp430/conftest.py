"""Shared fixtures: compiled variants are cached per session by aedsl.engines.sim
(in-process lru_cache + on-disk build cache keyed by the generated assembly)."""
import random

import pytest

from aedsl.toolchain import ToolchainError, find_tool

try:
    find_tool("msp430-elf-as")
    HAVE_TOOLS = True
except ToolchainError:
    HAVE_TOOLS = False

needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="msp430-elf binutils not installed (./dev main)")

CHIPS = ("cc430f6137", "msp430f1611")


@pytest.fixture
def rng():
    return random.Random(0xAED5)
