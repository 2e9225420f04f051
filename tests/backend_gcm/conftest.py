"""Shared fixtures of the GCM tests: the variants compiled once per session (sim_engine caches
them in-process and on disk), and whether each target's binutils are installed."""
import random

import pytest

from aedsl.toolchain import ToolchainError, find_tool


def _have(tool: str) -> bool:
    try:
        find_tool(tool)
        return True
    except ToolchainError:
        return False


HAVE = {"msp430": _have("msp430-elf-as"), "armv6m": _have("arm-none-eabi-as")}
TARGET = {"cc430f6137": "msp430", "msp430f1611": "msp430", "stm32f030": "armv6m"}

# (chip, knobs): GCM's default GHASH (shoup4) with software AES on both targets and with the
# CC430 AES module; AES-256 once, so a second key schedule length goes through the same GHASH.
CONFIGS = [("cc430f6137", {}), ("cc430f6137", {"aes": "accel"}), ("cc430f6137", {"key_bits": 256}),
           ("stm32f030", {}), ("stm32f030", {"key_bits": 192})]


def config_id(c) -> str:
    return c[0] + "".join(f"-{k}={v}" for k, v in sorted(c[1].items()))


def skip_without_tools(chip: str):
    if not HAVE[TARGET[chip]]:
        pytest.skip(f"binutils for {TARGET[chip]} not installed")


@pytest.fixture
def rng():
    return random.Random(0x6C3)
