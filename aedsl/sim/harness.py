"""Calling one function of a linked ELF in a simulator, the way C would call it, and measuring it.

    prog = Program("speck.elf", "cc430f6137")
    r = prog.call("speck64_128_encrypt", [key, pt, bytes(8)])
    r.cycles, r.stack_bytes, r.buffers[2]

Calling convention (what `call` sets up):
- MSP430 EABI: the first four argument words in R12, R13, R14, R15, the rest on the stack above
  the return address (2(SP), 4(SP), … at entry; 4(SP), … with ``ret20``); result in R12
  (R13:R12 for 32 bits). An int argument is one 16-bit word: pass a 32-bit value as two ints
  (low word first), as the EABI puts it in a register pair.
- AAPCS (ARMv6-M): r0–r3, then the stack at 0(SP), 4(SP), … at entry, SP 8-byte aligned; result
  in r0 (r1:r0 for 64 bits). The return address is LR = sentinel | 1.
- A `bytes`/`bytearray`/`Buffer` argument is copied into free RAM above .data/.bss (or into the
  simulator-only benchmark region, `aedsl.sim.cores.bench_region`) and passed as a pointer; every
  buffer is read back after the call (``RunResult.buffers``, in argument order).

The return address is a sentinel: MSP430 pushes a 16-bit return address (what CALL pushes; with
``ret20=True`` the 20-bit form CALLA pushes, for functions ending in RETA) pointing at the top
flash word (0xFFFE, the reset vector, never executed as code); ARM sets LR to the last half-word
of flash. The run stops when the PC reaches the sentinel (or the `stop` symbol).

Cycle accounting: ``cycles`` counts every cycle from the first instruction of the function up to
and including the instruction that returns (RET/RETA/POP {pc}/BX LR); the caller's CALL/BL is not
included (it belongs to the caller's code). With `stop`, the count ends before the instruction
at the stop symbol. ``instructions`` counts executed instructions the same way.

Stack: ``stack_bytes`` is how many bytes below the SP at entry the function wrote (its frame,
pushes and the return addresses of its own calls), from the simulator's lowest-written-address
watch. On MSP430 the return address pushed by the (simulated) caller is above the entry SP and
is not counted.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aedsl import chips as chips_mod
from aedsl.chips import Chip, Region
from aedsl.sim.base import SimError, Stats, StopInfo
from aedsl.sim.elf import ElfError, ElfImage, read_elf  # noqa: F401  (ElfError re-exported)
from aedsl.sim.cores import bench_region, return_sentinel, simulator_class, simulator_for

DEFAULT_MAX_STEPS = 50_000_000


class CallArgumentError(SimError, ValueError):
    """The call itself is wrong (argument type or width, buffers that do not fit), not the code."""
STACK_RESERVE = 256     # bytes kept free for the stack when placing buffers in RAM


@dataclass
class Buffer:
    """A memory argument: `data` (bytes, or an int n for n zero bytes) placed in `region`
    ("ram" or "bench"; None = the call's `buffer_region`) at an `align`-byte boundary."""
    data: bytes | int
    region: str | None = None
    align: int = 4

    @property
    def content(self) -> bytes:
        return bytes(self.data)  # bytes(n) is n zero bytes


@dataclass
class RunResult:
    cycles: int
    instructions: int
    stack_bytes: int
    return_value: int                  # R12 (MSP430) / r0 (ARM)
    registers: list[int]               # R0..R15 / r0..r15 after the run
    buffers: list[bytes]               # every buffer argument, read back, in argument order
    buffer_addrs: list[int]
    stopped_at: str                    # "return" | "stop" (the stop symbol) | "halt"
    pc: int
    stats: Stats | None = None
    sizes: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = {"cycles": self.cycles, "instructions": self.instructions, "stack_bytes": self.stack_bytes,
             "return_value": self.return_value, "registers": self.registers,
             "buffers": [b.hex() for b in self.buffers], "stopped_at": self.stopped_at, "pc": self.pc}
        if self.sizes:
            d.update(self.sizes)
        if self.stats is not None:
            d["stats"] = {"mnemonics": self.stats.mnemonics, "addressing_modes": self.stats.addressing_modes,
                          "mem_reads": self.stats.mem_reads, "mem_writes": self.stats.mem_writes}
        return d


class Program:
    """An ELF loaded into a simulator of `chip` (a Chip or a chip name).

    `bench`: map the benchmark region (True, or a Region to use instead of the default); it is
    mapped anyway when the ELF has a .benchbuf section."""

    def __init__(self, elf_path: str | Path, chip: Chip | str, bench: bool | Region = False):
        self.chip = chips_mod.load(chip) if isinstance(chip, str) else chip
        self.bench = bench if isinstance(bench, Region) else bench_region(self.chip)
        self.elf: ElfImage = read_elf(elf_path, self.chip, self.bench)
        self.bench_mapped = bool(bench) or self.elf.sizes().bench > 0
        self.sim = simulator_for(self.chip, (self.bench,) if self.bench_mapped else ())
        self.conv = simulator_class(self.chip).CALLS       # the C calling convention of the core
        self.word_bytes = self.conv.word_bytes
        self.sp_reg, self.pc_reg = self.conv.sp_reg, self.conv.pc_reg
        self.load()

    # --- memory and symbols ---------------------------------------------------------------
    def load(self) -> None:
        """(Re)write the ELF image: flash, .data initial values, zeroed .bss."""
        self.elf.load_into(self.sim.write)

    def address(self, symbol: str | int) -> int:
        return symbol if isinstance(symbol, int) else self.elf.address(symbol)

    def read(self, where: str | int, n: int) -> bytes:
        return self.sim.read(self.address(where), n)

    def write(self, where: str | int, data: bytes) -> None:
        self.sim.write(self.address(where), bytes(data))

    def sizes(self) -> dict:
        return self.elf.sizes().as_dict()

    # --- calls ----------------------------------------------------------------------------
    def call(self, symbol: str | int, args=(), stop: str | int | None = None,
             max_steps: int = DEFAULT_MAX_STEPS, stats: bool = False, buffer_region: str = "ram",
             ret20: bool = False, reload: bool = True) -> RunResult:
        """Call `symbol` with `args` (ints, bytes/bytearray, or `Buffer`) and run until it returns
        (or reaches `stop`). Raises SimError on a fault or when `max_steps` instructions pass."""
        if ret20 and not self.conv.return_address_bytes:
            raise CallArgumentError("ret20 is an MSP430X option")
        entry = self.address(symbol)
        stop_addr = self.address(stop) if stop is not None else None
        if reload:
            self.load()
        self.sim.reset()

        # Buffers go upwards from the end of the program's RAM (or the benchmark region).
        cursor = {"ram": _align(self.elf.ram_end(self.chip), 4), "bench": _align(self.elf.bench_end(self.bench), 4)}
        limit = {"ram": self.chip.ram.end, "bench": self.bench.end}
        words, buf_addrs, buf_lens = [], [], []
        for i, a in enumerate(args):
            if isinstance(a, (bytes, bytearray, memoryview)):
                a = Buffer(bytes(a))
            if isinstance(a, Buffer):
                region = a.region or buffer_region
                if region not in cursor:
                    raise CallArgumentError(f"argument {i}: unknown buffer region {region!r} (ram or bench)")
                if region == "bench" and not self.bench_mapped:
                    raise CallArgumentError("argument %d: the benchmark region is not mapped; use Program(..., bench=True)" % i)
                addr = _align(cursor[region], a.align)
                size = a.data if isinstance(a.data, int) else len(a.data)
                if size < 0:
                    raise CallArgumentError(f"argument {i}: a buffer of {size} bytes")
                cursor[region] = addr + size
                if cursor[region] > limit[region]:
                    raise CallArgumentError(f"argument {i}: buffers overflow the {region} region "
                                   f"(end {limit[region]:#x}, need {cursor[region]:#x})")
                data = a.content
                self.sim.write(addr, data)
                buf_addrs.append(addr)
                buf_lens.append(len(data))
                words.append(addr)
            elif isinstance(a, int):
                words.append(a)
            else:
                raise CallArgumentError(f"argument {i}: expected an int, bytes or Buffer, not {type(a).__name__}")
        mask = (1 << (8 * self.word_bytes)) - 1
        for i, w in enumerate(words):
            if not -(mask + 1) // 2 <= w <= mask:
                raise CallArgumentError(f"argument {i} = {w:#x} does not fit a {8 * self.word_bytes}-bit word")
        words = [w & mask for w in words]

        conv = self.conv
        n_reg = len(conv.arg_regs)
        reg_args, stack_args = words[:n_reg], words[n_reg:]
        sentinel = return_sentinel(self.chip)
        wb = conv.word_bytes
        # the return address: pushed below the stack arguments (MSP430 CALL: 2 bytes, CALLA: 4)
        # or held in the link register (with the Thumb bit)
        ret_size = (4 if ret20 else conv.return_address_bytes) if conv.return_address_bytes else 0
        sp = (self.chip.ram.end - wb * len(stack_args) - ret_size) & ~(conv.stack_align - 1)
        if sp < self.chip.ram.origin + STACK_RESERVE:
            raise CallArgumentError(f"{len(words)} arguments: the {len(stack_args)} passed on the stack need "
                                    f"{wb * len(stack_args)} bytes, leaving less than {STACK_RESERVE} bytes of "
                                    f"{self.chip.name}'s RAM for the stack")
        if ret_size:
            self.sim.write(sp, sentinel.to_bytes(ret_size, "little"))
        for j, w in enumerate(stack_args):
            self.sim.write(sp + ret_size + wb * j, w.to_bytes(wb, "little"))
        for r, w in zip(conv.arg_regs, reg_args):
            self.sim.set_reg(r, w)
        if conv.link_reg is not None:
            self.sim.set_reg(conv.link_reg, sentinel | conv.code_address_bit)
        if cursor["ram"] + STACK_RESERVE > sp:
            raise CallArgumentError(f"buffers need RAM up to {cursor['ram']:#x}, leaving less than {STACK_RESERVE} "
                           f"bytes of stack below {sp:#x}; pass buffer_region='bench'")
        self.sim.set_reg(self.sp_reg, sp)
        self.sim.set_reg(self.pc_reg, entry)
        buffers_top = cursor["ram"]
        self.sim.set_stack_watch(buffers_top, sp)
        if stats:
            self.sim.enable_stats(True)

        c0, n0 = self.sim.cycles, self.sim.instructions
        stops = (sentinel,) if stop_addr is None else (sentinel, stop_addr)
        name = symbol if isinstance(symbol, str) else f"{symbol:#x}"
        try:
            info: StopInfo = self.sim.run(max_steps, stops)
        except SimError as e:
            raise SimError(f"{name}: {e}") from None
        cycles, instructions = self.sim.cycles - c0, self.sim.instructions - n0
        run_stats = self.sim.stats() if stats else None
        if stats:
            self.sim.enable_stats(False)
        if info.reason == "step_limit":
            raise SimError(f"{name} did not return within {max_steps} instructions "
                           f"(PC={info.pc:#x}); runaway loop or raise max_steps")
        if info.reason == "fault":
            raise SimError(f"{name}: fault at PC={info.pc:#x}: {info.message}")
        if info.reason == "stop_pc":
            stopped_at = "stop" if (stop_addr is not None and info.pc == stop_addr) else "return"
        else:
            stopped_at = info.reason
        low = self.sim.stack_low_water()
        stack_bytes = 0 if low is None else sp - low
        if low is not None and low <= buffers_top:
            raise SimError(f"{name}: the stack grew down to the argument buffers ({low:#x}); "
                           f"pass buffer_region='bench'")
        regs = [self.sim.get_reg(i) for i in range(16)]
        out = [self.sim.read(a, n) for a, n in zip(buf_addrs, buf_lens)]
        return RunResult(cycles=cycles, instructions=instructions, stack_bytes=stack_bytes,
                         return_value=regs[conv.ret_reg], registers=regs, buffers=out, buffer_addrs=buf_addrs,
                         stopped_at=stopped_at, pc=info.pc, stats=run_stats)


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


__all__ = ["Program", "Buffer", "RunResult", "SimError", "CallArgumentError", "ElfError", "simulator_for", "DEFAULT_MAX_STEPS"]
