"""Shared helpers of the accelerator tests: compiled variants are cached per session by
aedsl.engines.sim (in-process lru_cache + on-disk build cache)."""
import pytest

from aedsl.toolchain import ToolchainError, find_tool

try:
    find_tool("msp430-elf-as")
    HAVE_TOOLS = True
except ToolchainError:
    HAVE_TOOLS = False

needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="msp430-elf binutils not installed (./dev main)")

CHIP = "cc430f6137"
SCHEDULES = ("none", "delay_slot")
