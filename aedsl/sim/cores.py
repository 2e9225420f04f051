"""The simulated cores: which simulator runs a chip (by the chip's ISA), and the address-space
facts the harness and the linker scripts share (the benchmark-only buffer region).

Each simulator class declares the ISAs it runs (`Simulator.ISAS`), so a chip file names its ISA and
this module finds the core; nothing here names an ISA.
"""
from __future__ import annotations

from aedsl.chips import Chip, Region
from aedsl.sim.armv6m import ArmV6MSim
from aedsl.sim.base import SimError
from aedsl.sim.msp430 import Msp430Sim

SIMULATORS = (Msp430Sim, ArmV6MSim)


def simulator_class(chip: Chip):
    """The simulator class whose core runs `chip`'s ISA."""
    for cls in SIMULATORS:
        if chip.isa in cls.ISAS:
            return cls
    raise SimError(f"no simulator for ISA {chip.isa!r} (chip {chip.name})")


def simulator_for(chip: Chip, extra_regions=()):
    """A fresh simulator for `chip`, with `extra_regions` (Regions or (origin, length) pairs)
    mapped as RAM."""
    extra = tuple((r.origin, r.length) if isinstance(r, Region) else tuple(r) for r in extra_regions)
    return simulator_class(chip)(chip, extra_regions=extra)


def bench_region(chip: Chip) -> Region:
    """A buffer area that does not exist on the real chip, for benchmark inputs larger than its RAM
    (e.g. 4 KB messages on a 4 KB-RAM part). It is mapped only in the simulator and reported apart
    from RAM: the largest hole of the core's `BenchSpace` that is neither flash, RAM nor the vector
    table (MSP430: above the peripherals and below 64 KB, so 16-bit pointers reach it; Cortex-M:
    64 KB just after RAM)."""
    space = simulator_class(chip).BENCH
    low = chip.ram.end if space.low == "ram_end" else space.low
    taken = sorted((r.origin, r.end) for r in (chip.flash, chip.ram, chip.vectors) if r is not None)
    best, cur = Region(0, 0), low
    for lo, hi in taken + [(space.top, space.top)]:
        start = -(-cur // space.align) * space.align
        end = min(lo, space.top)
        if end > start and end - start > best.length:
            best = Region(start, end - start)
        cur = max(cur, hi)
    if best.length == 0:
        raise SimError(f"no room for a benchmark region in {chip.name}'s address space")
    return Region(best.origin, min(best.length, space.max_length))


def return_sentinel(chip: Chip) -> int:
    """The return address the harness gives a called function: the last half-word of code space
    the chip has (MSP430: the reset vector word, never executed as code; ARM: the end of flash)."""
    return min(chip.flash.end, simulator_class(chip).CALLS.code_space_top) - 2
