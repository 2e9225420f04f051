"""ARMv6-M (Cortex-M0) simulator: a thin ctypes wrapper over `aedsl/sim/native/armv6m.c`.

The C core decodes, executes and counts cycles; this class only moves data. Cycle numbers come
from `aedsl.timing.armv6m` (DDI 0432C Table 3-1) and are handed to the core here.
Registers: 0..12 general, 13 = SP (the active one; MSP unless CONTROL.SPSEL), 14 = LR,
15 = PC as the address of the next instruction to execute (no Thumb bit).
"""
from __future__ import annotations

import ctypes as C
from typing import Sequence

from aedsl.sim import native
from aedsl.timing import armv6m as armv6m_timing
from aedsl.sim.base import BenchSpace, CallConv, SimError, Simulator, Stats, StopInfo

_STATUS = {0: "stop_pc", 1: "step_limit", 2: "halt", 3: "fault"}
_P = C.c_void_p


def _lib() -> C.CDLL:
    lib = native.load("armv6m")
    if getattr(lib, "_aedsl_typed", False):
        return lib
    sig = {
        "armv6m_new": (_P, []),
        "armv6m_free": (None, [_P]),
        "armv6m_timing_names": (C.c_char_p, []),
        "armv6m_mnemonic_names": (C.c_char_p, []),
        "armv6m_message": (C.c_char_p, [_P]),
        "armv6m_add_region": (C.c_int, [_P, C.c_uint32, C.c_uint32, C.c_int]),
        "armv6m_set_timing": (C.c_int, [_P, C.POINTER(C.c_int32), C.POINTER(C.c_int32), C.c_int]),
        "armv6m_set_flash_wait_states": (None, [_P, C.c_int]),
        "armv6m_reset": (None, [_P]),
        "armv6m_read": (C.c_int, [_P, C.c_uint32, C.c_char_p, C.c_uint32]),
        "armv6m_write": (C.c_int, [_P, C.c_uint32, C.c_char_p, C.c_uint32]),
        "armv6m_get_reg": (C.c_uint32, [_P, C.c_int]),
        "armv6m_set_reg": (None, [_P, C.c_int, C.c_uint32]),
        "armv6m_get_xpsr": (C.c_uint32, [_P]),
        "armv6m_set_xpsr": (None, [_P, C.c_uint32]),
        "armv6m_get_special": (C.c_uint32, [_P, C.c_int]),
        "armv6m_cycles": (C.c_uint64, [_P]),
        "armv6m_instructions": (C.c_uint64, [_P]),
        "armv6m_clear_counters": (None, [_P]),
        "armv6m_set_stack_watch": (None, [_P, C.c_uint32, C.c_uint32]),
        "armv6m_stack_low": (C.c_int, [_P, C.POINTER(C.c_uint32)]),
        "armv6m_enable_stats": (None, [_P, C.c_int]),
        "armv6m_get_stats": (None, [_P, C.POINTER(C.c_uint64), C.POINTER(C.c_uint64)]),
        "armv6m_mnemonic_count": (C.c_int, []),
        "armv6m_timing_count": (C.c_int, []),
        "armv6m_run": (C.c_int, [_P, C.c_uint64, C.POINTER(C.c_uint32), C.c_int]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    lib._aedsl_typed = True
    return lib


class ArmV6MSim(Simulator):
    """Cortex-M0 simulator for `chip` (an `aedsl.chips.Chip` with isa "armv6m").

    extra_regions: (origin, length) RAM regions added to the chip's flash and RAM, e.g. a
    benchmark-only buffer the harness needs beyond the chip's real SRAM.
    """

    SPECIAL = {"msp": 8, "psp": 9, "primask": 16, "control": 20}
    ISAS = {"armv6m": 0}
    ELF_MACHINE = "EM_ARM"
    # AAPCS (ARM IHI 0042 5.5, 5.2.1.2): r0-r3, then the stack, SP 8-byte aligned at a public
    # interface; result in r0; return address in LR with the Thumb bit set.
    CALLS = CallConv(word_bytes=4, arg_regs=(0, 1, 2, 3), ret_reg=0, sp_reg=13, pc_reg=15, link_reg=14,
                     return_address_bytes=0, stack_align=8, code_space_top=1 << 32, code_address_bit=1)
    # 64 KB just after RAM, 4 KB aligned (the SRAM alias space is otherwise empty on small parts)
    BENCH = BenchSpace(low="ram_end", top=1 << 32, align=0x1000)

    def __init__(self, chip, extra_regions: Sequence[tuple[int, int]] = ()):
        if chip.isa not in self.ISAS:
            raise ValueError(f"chip {chip.name} has isa {chip.isa!r}, not armv6m")
        self.chip = chip
        self._lib = lib = _lib()
        self._h = lib.armv6m_new()
        if not self._h:
            raise MemoryError("armv6m_new failed")
        regions = [(chip.flash.origin, chip.flash.length, 1), (chip.ram.origin, chip.ram.length, 0)]
        regions += [(int(o), int(n), 0) for o, n in extra_regions]
        for origin, length, is_flash in regions:
            rc = lib.armv6m_add_region(self._h, origin, length, is_flash)
            if rc:
                why = {-1: "too many regions", -2: "empty, wrapping or overlapping", -3: "out of memory"}[rc]
                raise ValueError(f"memory region 0x{origin:08x}+0x{length:x}: {why}")
        self.timing = armv6m_timing.rules(chip)
        names = lib.armv6m_timing_names().decode().split(",")
        if set(names) != set(self.timing):
            raise RuntimeError(f"C core timing classes {sorted(names)} differ from armv6m_timing {sorted(self.timing)}")
        base = (C.c_int32 * len(names))(*(self.timing[n].base for n in names))
        per = (C.c_int32 * len(names))(*(self.timing[n].per_register for n in names))
        if lib.armv6m_set_timing(self._h, base, per, len(names)):
            raise RuntimeError("armv6m_set_timing rejected the table")
        lib.armv6m_set_flash_wait_states(self._h, int(chip.flash_wait_states))
        self._mnemonics = lib.armv6m_mnemonic_names().decode().split(",")
        self.reset()

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            self._lib.armv6m_free(h)

    # --- state ---------------------------------------------------------------------------
    def reset(self) -> None:
        """Registers and counters to power-on state: SP and PC from the vector table at the flash
        origin, LR = 0xFFFFFFFF, flags zero. Memory and the stack-watch range are kept."""
        self._lib.armv6m_reset(self._h)

    def read(self, addr: int, n: int) -> bytes:
        buf = C.create_string_buffer(n)
        if self._lib.armv6m_read(self._h, addr, buf, n):
            raise SimError(f"debugger read of 0x{addr:08x}+{n} touches unmapped memory")
        return buf.raw

    def write(self, addr: int, data: bytes) -> None:
        data = bytes(data)
        if self._lib.armv6m_write(self._h, addr, data, len(data)):
            raise SimError(f"debugger write of 0x{addr:08x}+{len(data)} touches unmapped memory")

    def read_u32(self, addr: int) -> int:
        return int.from_bytes(self.read(addr, 4), "little")

    def write_u32(self, addr: int, value: int) -> None:
        self.write(addr, (value & 0xFFFFFFFF).to_bytes(4, "little"))

    def get_reg(self, i: int) -> int:
        if not 0 <= i < 16:
            raise IndexError(f"ARM register r{i} does not exist")
        return self._lib.armv6m_get_reg(self._h, i)

    def set_reg(self, i: int, value: int) -> None:
        """r13 writes drop bits 1:0 (SP is word aligned), r15 writes drop bit 0."""
        if not 0 <= i < 16:
            raise IndexError(f"ARM register r{i} does not exist")
        self._lib.armv6m_set_reg(self._h, i, value & 0xFFFFFFFF)

    @property
    def pc(self) -> int:
        return self.get_reg(15)

    def get_xpsr(self) -> int:
        """N Z C V in bits 31..28 and the T bit (24, always 1)."""
        return self._lib.armv6m_get_xpsr(self._h)

    def set_xpsr(self, value: int) -> None:
        self._lib.armv6m_set_xpsr(self._h, value & 0xFFFFFFFF)

    def get_flags(self) -> tuple[int, int, int, int]:
        """(N, Z, C, V), each 0 or 1."""
        x = self.get_xpsr()
        return (x >> 31) & 1, (x >> 30) & 1, (x >> 29) & 1, (x >> 28) & 1

    def set_flags(self, n: int, z: int, c: int, v: int) -> None:
        self.set_xpsr((bool(n) << 31) | (bool(z) << 30) | (bool(c) << 29) | (bool(v) << 28))

    def get_special(self, name: str) -> int:
        """"msp", "psp", "primask" or "control"."""
        return self._lib.armv6m_get_special(self._h, self.SPECIAL[name])

    # --- counters ------------------------------------------------------------------------
    @property
    def cycles(self) -> int:
        return self._lib.armv6m_cycles(self._h)

    @property
    def instructions(self) -> int:
        return self._lib.armv6m_instructions(self._h)

    def clear_counters(self) -> None:
        """Zero cycles, instructions and statistics without touching registers or memory."""
        self._lib.armv6m_clear_counters(self._h)

    def set_stack_watch(self, lo: int, hi: int) -> None:
        self._lib.armv6m_set_stack_watch(self._h, lo, hi)

    def stack_low_water(self) -> int | None:
        out = C.c_uint32()
        return out.value if self._lib.armv6m_stack_low(self._h, C.byref(out)) else None

    def enable_stats(self, on: bool = True) -> None:
        self._lib.armv6m_enable_stats(self._h, int(bool(on)))

    def stats(self) -> Stats:
        n = len(self._mnemonics)
        mix = (C.c_uint64 * n)()
        rw = (C.c_uint64 * 2)()
        self._lib.armv6m_get_stats(self._h, mix, rw)
        return Stats(mnemonics={m: int(c) for m, c in zip(self._mnemonics, mix) if c},
                     mem_reads=int(rw[0]), mem_writes=int(rw[1]))

    # --- execution -----------------------------------------------------------------------
    def run(self, max_steps: int, stop_pcs: tuple[int, ...] = ()) -> StopInfo:
        """Run until PC is in stop_pcs (checked before each instruction; a PC already there stops at
        once), max_steps instructions ("step_limit"), or BKPT ("halt", PC at the BKPT).
        Raises SimError on a fault; the message starts with "pc=0x........"."""
        stops = (C.c_uint32 * max(1, len(stop_pcs)))(*(p & ~1 for p in stop_pcs))
        st = self._lib.armv6m_run(self._h, max_steps, stops, len(stop_pcs))
        msg = self._lib.armv6m_message(self._h).decode()
        reason = _STATUS[st]
        if reason == "fault":
            raise SimError(msg)
        return StopInfo(reason, self.pc, msg)

    def step(self) -> StopInfo:
        """Execute one instruction."""
        return self.run(1)
