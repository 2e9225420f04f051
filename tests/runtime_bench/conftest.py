"""Shared pieces of the runtime/benchmark tests: the repo root and the msp430 tools check."""
from pathlib import Path

import pytest

from aedsl.toolchain import ToolchainError, find_tool

ROOT = Path(__file__).resolve().parents[2]

try:
    find_tool("msp430-elf-as")
    HAVE_TOOLS = True
except ToolchainError:
    HAVE_TOOLS = False

needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="msp430-elf binutils not installed (./dev main)")
