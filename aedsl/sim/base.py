"""What every simulator offers the harness (`aedsl.sim.harness`).

A simulator is a thin Python class over a C core (`aedsl/sim/native/<core>.c`, loaded with
ctypes through `aedsl.sim.native`). The C core does decode, execute, cycle accounting and the
chip's peripherals; Python only moves data in and out. One implementation per core.
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


@dataclass(frozen=True)
class CallConv:
    """How C calls a function on a core, as data, for the harness: argument words in `arg_regs`
    then on the stack; the result in `ret_reg`; the return address pushed on the stack
    (`return_address_bytes` > 0, MSP430 CALL) or held in `link_reg` (ARM LR, with the Thumb bit
    `code_address_bit`); SP aligned to `stack_align` at the call. Code addresses (and so the return
    sentinel) lie below `code_space_top` (MSP430's 16-bit CALL/RET)."""
    word_bytes: int
    arg_regs: tuple[int, ...]
    ret_reg: int
    sp_reg: int
    pc_reg: int
    link_reg: int | None
    return_address_bytes: int
    stack_align: int
    code_space_top: int
    code_address_bit: int = 0


@dataclass(frozen=True)
class BenchSpace:
    """Where a simulator may map the benchmark-only buffer region (`aedsl.sim.cores.bench_region`):
    the largest hole of the address space in [low, top) that is none of the chip's memories,
    starting at a multiple of `align`, at most `max_length` bytes long. `low` may be "ram_end"
    (the region starts right after RAM)."""
    low: int | str
    top: int
    align: int = 1
    max_length: int = 0x10000


class Simulator:
    """Interface; see msp430.py / armv6m.py.

    Class data every simulator declares: `ISAS` (the chip ISAs it runs, each mapped to the core
    variant flag its C core takes), `ELF_MACHINE` (pyelftools' e_machine name), `CALLS` (the C
    calling convention, `CallConv`) and `BENCH` (`BenchSpace`).

    Constructed with a `aedsl.chips.Chip`; memory regions and peripherals come from it.
    Registers are numbered as the ISA numbers them (MSP430 R0..R15, ARM r0..r15).
    """
    chip: object
    ISAS: dict[str, int] = {}
    ELF_MACHINE: str = ""
    CALLS: CallConv
    BENCH: BenchSpace
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
