"""C compiled for both targets (clang for MSP430, arm-none-eabi-gcc for ARM), linked, and run."""
from __future__ import annotations

import pytest

from aedsl import chips, toolchain
from aedsl.sim.harness import Program

from .conftest import ASM, harness_source

pytestmark = pytest.mark.needs("msp430", "armv6m")


def mix_reference(p: bytes, bias: int = 5) -> int:
    weights = (1, 2, 3, 4)
    s = bias
    for i, b in enumerate(p):
        s = ((s << 1) + (b ^ weights[i & 3])) & 0xFFFF
    return s


@pytest.mark.parametrize("name", ["cc430f6137", "msp430f1611", "stm32f030"])
def test_c_function_runs(name, build_dir):
    chip = chips.load(name)
    # Linked together with assembly, as the runtime will be (checks the ISA attributes agree).
    elf = toolchain.build([ASM / "mix.c", harness_source(chip)], build_dir / name / "mix.elf", chip, opt="-O2")
    p = Program(elf, chip)
    data = bytes([10, 200, 30, 40, 250, 6, 7])
    r = p.call("mix", [data, len(data)])
    assert r.return_value & 0xFFFF == mix_reference(data)
    assert p.elf.symbol_sizes()["bias"] == {"rom": 2, "ram": 2, "bench": 0}
