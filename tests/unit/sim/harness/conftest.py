"""Shared builds for the harness tests: the routines in asm/ assembled and linked per chip."""
from __future__ import annotations

from pathlib import Path

import pytest

from aedsl import chips, toolchain
from aedsl.backends.registry import target_for

ASM = Path(__file__).parent / "asm"
ALL_CHIPS = ("cc430f6137", "msp430f1611", "msp430f5528", "msp430fr5969", "stm32f030", "samd21g18")


def harness_source(chip) -> Path:
    return ASM / ("harness_armv6m.s" if target_for(chip).name == "armv6m" else "harness_msp430.s")


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("harness-builds")


@pytest.fixture(scope="session")
def harness_elf(build_dir, require_tools):
    """chip name -> ELF of asm/harness_<target>.s linked with the chip's generated script (under
    the root conftest's missing-tool rule)."""
    cache: dict[str, Path] = {}

    def get(name: str) -> Path:
        require_tools(name)
        if name not in cache:
            chip = chips.load(name)
            cache[name] = toolchain.build([harness_source(chip)], build_dir / name / "harness.elf", chip)
        return cache[name]
    return get
