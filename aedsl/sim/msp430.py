"""MSP430 / MSP430X simulator: a ctypes wrapper over aedsl/sim/native/msp430.c.

The C core decodes, executes, counts cycles (tables from `aedsl.timing.msp430`) and models the
chip's peripherals (MPY16/MPY32, the AES128 or AES256 module, WDTCTL). This class only moves data in and out.

Timing contract for peripherals (relied on by the code generator): every data access of an
instruction happens at the END of that instruction; an AES/MPY operation started by a write
completes `latency` cycles after the end of the writing instruction, and a read sees the result
iff it happens at or after that cycle (see the header of msp430.c).
"""
from __future__ import annotations

import ctypes
from typing import Iterable, Sequence

from aedsl.chips import AES_KEY_LENGTHS as KEY_LENGTHS, AES_OPS, aes_latencies
from aedsl.sim import native
from aedsl.timing import msp430 as msp430_timing
from aedsl.sim.base import BenchSpace, CallConv, SimError, Simulator, Stats, StopInfo

_STATUS = {0: "stop_pc", 1: "step_limit", 2: "fault", 3: "halt"}
_K_RAM, _K_FLASH = 1, 2
# WDTCTL: accepted (writes ignored, reads 0) so runtimes can stop the watchdog.
_WDTCTL = {"cpuxv2": 0x015C, "msp430": 0x0120}
_u64 = ctypes.c_uint64


def _lib() -> ctypes.CDLL:
    lib = native.load("msp430")
    if getattr(lib, "_aedsl_typed", False):
        return lib
    P = ctypes.c_void_p
    sig = {
        "msp_timing_words": (ctypes.c_int, []),
        "msp_new": (P, [ctypes.c_int, ctypes.POINTER(ctypes.c_int32), ctypes.c_int]),
        "msp_free": (None, [P]),
        "msp_add_region": (ctypes.c_int, [P, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int]),
        "msp_set_mpy": (ctypes.c_int, [P, ctypes.c_int, ctypes.c_uint32]),
        "msp_set_aes": (ctypes.c_int, [P, ctypes.c_uint32] + [ctypes.c_uint32] * 4),
        "msp_set_aes_module": (ctypes.c_int, [P, ctypes.c_uint32, ctypes.c_int, ctypes.c_int,
                                              ctypes.POINTER(ctypes.c_uint32)]),
        "msp_set_wdt": (ctypes.c_int, [P, ctypes.c_uint32]),
        "msp_reset": (None, [P]),
        "msp_read_mem": (ctypes.c_int, [P, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_uint32]),
        "msp_write_mem": (ctypes.c_int, [P, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_uint32]),
        "msp_get_reg": (ctypes.c_uint32, [P, ctypes.c_int]),
        "msp_set_reg": (None, [P, ctypes.c_int, ctypes.c_uint32]),
        "msp_cycles": (_u64, [P]),
        "msp_insns": (_u64, [P]),
        "msp_set_cycles": (None, [P, _u64]),
        "msp_set_stack_watch": (None, [P, ctypes.c_uint32, ctypes.c_uint32]),
        "msp_stack_low": (ctypes.c_int64, [P]),
        "msp_enable_stats": (None, [P, ctypes.c_int]),
        "msp_nops": (ctypes.c_int, []),
        "msp_op_name": (ctypes.c_char_p, [ctypes.c_int]),
        "msp_mode_name": (ctypes.c_char_p, [ctypes.c_int]),
        "msp_stats": (ctypes.c_int, [P, ctypes.POINTER(_u64), ctypes.c_int]),
        "msp_message": (ctypes.c_char_p, [P]),
        "msp_aes_done": (_u64, [P]),
        "msp_run": (ctypes.c_int, [P, _u64, ctypes.POINTER(ctypes.c_uint32), ctypes.c_int]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    lib._aedsl_typed = True
    return lib


class Msp430Sim(Simulator):
    """Cycle-accurate MSP430 (isa "msp430", cpu "msp430") or MSP430X (isa "msp430x", cpu "cpuxv2").

    extra_regions: (origin, length) RAM regions added to the chip's flash and RAM (e.g. a
    benchmark-only buffer). Register values are 20-bit on MSP430X, 16-bit on MSP430.
    """

    DST_CLASSES = ("Rm", "PC", "x(Rm)", "EDE", "&EDE")
    # chip ISA -> the C core's extension flag (MSP430X instructions and 20-bit registers)
    ISAS = {"msp430": 0, "msp430x": 1}
    ELF_MACHINE = "EM_MSP430"
    # MSP430 EABI (SLAA534 4.2/4.3): R12-R15, then the stack above the return address that CALL
    # pushes (2 bytes; CALLA: 4); result in R12. Small code model: code below 64 KB.
    CALLS = CallConv(word_bytes=2, arg_regs=(12, 13, 14, 15), ret_reg=12, sp_reg=1, pc_reg=0, link_reg=None,
                     return_address_bytes=2, stack_align=2, code_space_top=0x10000)
    # the peripheral space ends at 0x1000 (SLAU208 1.4); 16-bit pointers must reach the region
    BENCH = BenchSpace(low=0x1000, top=0x10000)

    def __init__(self, chip, extra_regions: Iterable[tuple[int, int]] = ()):
        if chip.isa not in self.ISAS:
            raise ValueError(f"chip {chip.name} has isa {chip.isa!r}, not an MSP430")
        self.chip = chip
        self._lib = lib = _lib()
        table = msp430_timing.flat(chip.cpu)
        arr = (ctypes.c_int32 * len(table))(*table)
        self._h = lib.msp_new(self.ISAS[chip.isa], arr, len(table))
        if not self._h:
            raise RuntimeError(f"msp430 core rejected the timing table ({len(table)} words, "
                               f"core expects {lib.msp_timing_words()})")
        self.regions = [(chip.flash.origin, chip.flash.length, _K_FLASH), (chip.ram.origin, chip.ram.length, _K_RAM)]
        self.regions += [(o, n, _K_RAM) for o, n in extra_regions]
        for o, n, k in self.regions:
            if lib.msp_add_region(self._h, o, n, k) != 0:
                raise ValueError(f"memory region 0x{o:X}+0x{n:X} is odd or outside the address space")
        mpy = chip.multiplier
        if mpy.get("kind") in ("mpy16", "mpy32"):
            lib.msp_set_mpy(self._h, 1 if mpy["kind"] == "mpy16" else 2, mpy["base"])
        acc = chip.accelerator
        if acc.get("kind") in ("aes128", "aes256"):
            lat = aes_latencies(acc)
            mask = sum(1 << k for k, bits in enumerate(KEY_LENGTHS) if bits in lat)
            flat = [lat.get(bits, lat[128])[op] for bits in KEY_LENGTHS for op in AES_OPS]
            if lib.msp_set_aes_module(self._h, acc["base"], mask, int(bool(acc.get("xor_data_in", False))),
                                      (ctypes.c_uint32 * 12)(*flat)) != 0:
                raise ValueError(f"chip {chip.name}: the AES module at {acc['base']:#x} does not fit")
        lib.msp_set_wdt(self._h, _WDTCTL[chip.cpu])
        lib.msp_reset(self._h)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            self._lib.msp_free(h)
            self._h = None

    # -- state ------------------------------------------------------------------------------
    def reset(self) -> None:
        self._lib.msp_reset(self._h)

    def read(self, addr: int, n: int) -> bytes:
        buf = ctypes.create_string_buffer(n)
        if self._lib.msp_read_mem(self._h, addr, buf, n) != 0:
            raise SimError(f"debugger read of 0x{addr:05X}+{n} leaves the chip's flash/RAM")
        return buf.raw

    def write(self, addr: int, data: bytes) -> None:
        data = bytes(data)
        if self._lib.msp_write_mem(self._h, addr, data, len(data)) != 0:
            raise SimError(f"debugger write of 0x{addr:05X}+{len(data)} leaves the chip's flash/RAM")

    def get_reg(self, i: int) -> int:
        return self._lib.msp_get_reg(self._h, i)

    def set_reg(self, i: int, value: int) -> None:
        self._lib.msp_set_reg(self._h, i, value)

    @property
    def cycles(self) -> int:
        return self._lib.msp_cycles(self._h)

    @property
    def instructions(self) -> int:
        return self._lib.msp_insns(self._h)

    def aes_busy_until(self) -> int:
        """Cycle at which the last AES operation finishes (0 if none was started)."""
        return self._lib.msp_aes_done(self._h)

    # -- watch and statistics -------------------------------------------------------------
    def set_stack_watch(self, lo: int, hi: int) -> None:
        self._lib.msp_set_stack_watch(self._h, lo, hi)

    def stack_low_water(self) -> int | None:
        v = self._lib.msp_stack_low(self._h)
        return None if v < 0 else v

    def enable_stats(self, on: bool = True) -> None:
        self._lib.msp_enable_stats(self._h, 1 if on else 0)

    def stats(self) -> Stats:
        lib = self._lib
        nops = lib.msp_nops()
        n = nops + 8 + 5 + 2
        out = (_u64 * n)()
        lib.msp_stats(self._h, out, n)
        st = Stats()
        st.mnemonics = {lib.msp_op_name(i).decode(): out[i] for i in range(nops) if out[i]}
        for i in range(8):
            if out[nops + i]:
                st.addressing_modes["src:" + lib.msp_mode_name(i).decode()] = out[nops + i]
        for i, name in enumerate(self.DST_CLASSES):
            if out[nops + 8 + i]:
                st.addressing_modes["dst:" + name] = out[nops + 8 + i]
        st.mem_reads, st.mem_writes = out[n - 2], out[n - 1]
        return st

    # -- execution ------------------------------------------------------------------------
    def run(self, max_steps: int, stop_pcs: Sequence[int] = ()) -> StopInfo:
        stops = (ctypes.c_uint32 * max(1, len(stop_pcs)))(*stop_pcs)
        code = self._lib.msp_run(self._h, max_steps, stops, len(stop_pcs))
        reason = _STATUS[code]
        pc = self.get_reg(0)
        if reason == "fault":
            raise SimError(f"{self.chip.name}: {self._lib.msp_message(self._h).decode()}")
        return StopInfo(reason=reason, pc=pc)
