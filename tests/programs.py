"""Generated code run in the simulator, for tests that check it against a Python model."""
from __future__ import annotations

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.sim.harness import Program


def compiled_program(spec, chip: str, knobs: dict | None = None):
    """(the compiled unit, a simulator Program holding it) for `spec` on `chip`."""
    c = chips.load(chip)
    unit = compile_spec(spec, c, knobs or {})
    return unit, Program(build_elf(unit, c), c)
