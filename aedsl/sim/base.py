"""What every simulator offers the harness (`aedsl.sim.harness`).

A simulator is a thin Python class over a C core (`aedsl/sim/native/<target>.c`, loaded with
ctypes through `aedsl.sim.native`). The C core does decode, execute, cycle accounting and the
chip's peripherals; Python only moves data in and out. One implementation per target.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class SimError(Exception):
    """A fault in simulated code: undefined instruction, unaligned or unmapped access, an
    accelerator misuse (e.g. reading AESADOUT while BUSY), or the step limit. The message names
    the PC and the reason."""


@dataclass
class StopInfo:
    reason: str            # "stop_pc" (reached a stop address) | "step_limit" | "fault" | "halt"
    pc: int
    message: str = ""


@dataclass
class Stats:
    """Optional execution statistics (seed 002 style)."""
    mnemonics: dict[str, int] = field(default_factory=dict)        # instruction mix
    addressing_modes: dict[str, int] = field(default_factory=dict)  # source/destination modes
    mem_reads: int = 0
    mem_writes: int = 0


class Simulator:
    """Interface; see msp430.py / armv6m.py.

    Constructed with a `aedsl.chips.Chip`; memory regions and peripherals come from it.
    Registers are numbered as the ISA numbers them (MSP430 R0..R15, ARM r0..r15).
    """
    chip: object
    def reset(self) -> None: ...                          # registers, counters, peripherals to power-on state; memory kept
    def read(self, addr: int, n: int) -> bytes: ...       # debugger access: no cycles, no peripheral side effects
    def write(self, addr: int, data: bytes) -> None: ...  # idem (used by the ELF loader and the harness)
    def get_reg(self, i: int) -> int: ...
    def set_reg(self, i: int, value: int) -> None: ...
    @property
    def cycles(self) -> int: ...
    @property
    def instructions(self) -> int: ...
    def set_stack_watch(self, lo: int, hi: int) -> None: ...  # track the lowest address written in [lo, hi)
    def stack_low_water(self) -> int | None: ...              # lowest address written there, None if none
    def enable_stats(self, on: bool = True) -> None: ...
    def stats(self) -> Stats: ...
    def run(self, max_steps: int, stop_pcs: tuple[int, ...] = ()) -> StopInfo: ...
    # run() executes until PC is one of stop_pcs (checked before executing an instruction),
    # until max_steps instructions have run (reason "step_limit"), or raises SimError on a fault.
