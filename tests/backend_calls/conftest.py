"""Shared fixtures of the call tests: which toolchains are installed (each target's tests skip
without its own)."""
import pytest

from aedsl.toolchain import ToolchainError, find_tool


def _have(tool: str) -> bool:
    try:
        find_tool(tool)
        return True
    except ToolchainError:
        return False


HAVE = {"msp430": _have("msp430-elf-as"), "armv6m": _have("arm-none-eabi-as")}
TARGET_OF = {"cc430f6137": "msp430", "msp430f1611": "msp430", "stm32f030": "armv6m"}


def needs_tools_for(chip: str):
    return pytest.mark.skipif(not HAVE[TARGET_OF[chip]], reason=f"{TARGET_OF[chip]} binutils not installed")


def skip_without_tools(chip: str) -> None:
    if not HAVE[TARGET_OF[chip]]:
        pytest.skip(f"{TARGET_OF[chip]} binutils not installed")
