"""The MSP430 AES modules in MSP430 code: lowering of `accel_start` / `accel_result`.

Two modules share the register map (TI SLAU259 AES128 chapter, ../shared/facts/TARGETS.md; SLAU367
AES256 chapter): the CC430's AES128 (kind "aes128": AES-128 only) and the FR5xx/FR6xx AES256
(kind "aes256": AESACTL0.AESKLx selects a 128-, 192- or 256-bit key, and AESAXDIN at +0xC takes
data XORed into the state). The chip file gives the kind, base address, key lengths and
latencies (`[accelerator]` of aedsl/chips/*.toml). AESACTL0 holds OPx (bits 1:0) and, on the
AES256 module, KLx (bits 3:2); a new KLx clears the key, so there the mode is written before the
key (`AccelConfig.mode_before_key`).

Byte order: the module takes and gives bytes in AES order (byte 0 first), two per word access,
low byte first. A u128 value here is 8 little-endian 16-bit limbs of the big-endian block, so
AES bytes 0,1 are the high and low byte of limb 7: each word is written/read as `swpb`(limb),
limb 7 first. Immediates are swapped at compile time.

Decryption: OP=01 decrypts with the cipher key (latency_decrypt, 214 cycles on the CC430);
OP=10 turns the loaded key into the last round key (latency_keygen, 52) after which OP=11
decrypts in latency_decrypt_generated_key (167). Repeated decryptions with one key in a loop use
the generated key: one key generation (16 key bytes + 52 cycles) and one key reload afterwards
(the module then holds the last round key, not the cipher key) are repaid after two blocks (47
cycles saved per block). A single decryption uses OP=01 (no set-up to repay). The choice is made
by `aedsl/codegen/accel` (`AccelSelection`) from the loop's dataflow (one key, decryptions only).
"""
from __future__ import annotations

from aedsl.chips import aes_key_lengths, aes_latencies
from aedsl.codegen.mir import Frame, Imm, Ind, Lbl, Mem, MInst, R, at_offset
from aedsl.codegen.select_base import SelectError
from aedsl.codegen.accel import SCHEDULE_VALUES, AccelConfig, AccelPorts, AccelSelection

AES128_REGS = {"AESACTL0": 0x0, "AESASTAT": 0x4, "AESAKEY": 0x6, "AESADIN": 0x8, "AESADOUT": 0xA}
AES256_REGS = {**AES128_REGS, "AESAXDIN": 0xC}
AES128_OP = {"encrypt": 0, "decrypt": 1, "keygen": 2, "decrypt_generated_key": 3}
AES_KL = {128: 0, 192: 1, 256: 2}          # AESACTL0.AESKLx (SLAU367), shifted left by 2
KINDS = ("aes128", "aes256")
AESBUSY = 0x1
M16 = 0xFFFF


def _regs(chip) -> dict:
    return AES256_REGS if chip.accelerator.get("kind") == "aes256" else AES128_REGS


def io_operand(chip, reg: str) -> Mem:
    """The absolute operand of accelerator register `reg` on `chip`."""
    return Mem(None, f"{chip.accelerator['base'] + _regs(chip)[reg]:#06x}")


def latencies(chip) -> dict:
    """{key bits: {op: cycles}} of the chip's module."""
    return aes_latencies(chip.accelerator)


def make_ports(chip, cost) -> AccelPorts | None:
    """The machine-IR view of the module for aedsl/codegen/accel (None without the module)."""
    if chip.accelerator.get("kind") not in KINDS:
        return None
    io = {io_operand(chip, r) for r in _regs(chip)}
    stat = io_operand(chip, "AESASTAT")

    def is_io(op) -> bool:
        return op in io

    def cycles(inst: MInst) -> int:
        if inst.mn in ("accel.go", "accel.wait", "label", "comment"):
            return 0
        return cost(inst)[1]

    def expand_wait(make_label, inst: MInst) -> list[MInst]:
        top = make_label("busy")
        return [MInst("label", [Lbl(top)], loc=inst.loc), MInst("bit", [Imm(AESBUSY), stat], loc=inst.loc),
                MInst("jnz", [Lbl(top)], loc=inst.loc)]

    return AccelPorts(is_io=is_io, cycles=cycles, expand_wait=expand_wait)


def _swap(limb):
    if isinstance(limb, Imm):
        v = limb.value & M16
        return Imm(((v << 8) | (v >> 8)) & M16)
    return None


def _top_of_words(limbs: list) -> Mem | None:
    """The address just above `limbs` when they are consecutive words of memory through one
    register or in the frame (limb j at the first one's address + 2j), else None."""
    first, n = limbs[0], len(limbs)
    if n < 2 or not isinstance(first, (Mem, Ind)) or (isinstance(first, Mem) and first.base is None):
        return None
    if any(x != at_offset(first, 2 * j) for j, x in enumerate(limbs)):
        return None
    top = at_offset(first, 2 * n)
    return top if isinstance(top.disp, (int, Frame)) else None


class Msp430Accel(AccelSelection):
    """Selector hooks of `AccelSelection` for the AES128 and AES256 modules."""

    def configure_accel(self, chip, schedule: str, chain: str = "xor_in", rolled_keys: bool = False) -> None:
        """`rolled_keys` (size mode): a key read from memory is written by a loop (below)."""
        self.rolled_keys = rolled_keys
        if schedule not in SCHEDULE_VALUES:
            raise ValueError(f"schedule={schedule} is not allowed; choose one of {', '.join(SCHEDULE_VALUES)}")
        if chain not in ("xor_in", "software"):
            raise ValueError(f"aes_chain={chain} is not allowed; choose xor_in or software")
        if chip is None or chip.accelerator.get("kind") not in KINDS:
            self.accel = None
            return
        self.accel_chip = chip
        lat = latencies(chip)
        self.accel = AccelConfig(latency=lat[128], delay_slot=(schedule != "none"), latency_by_key=lat,
                                 mode_before_key=chip.accelerator["kind"] == "aes256",
                                 xor_in=bool(chip.accelerator.get("xor_data_in")) and chain == "xor_in")

    def _io(self, reg: str) -> Mem:
        return io_operand(self.accel_chip, reg)

    def accel_mode(self, kind: str, key_bits: int = 128) -> int:
        if key_bits not in aes_key_lengths(self.accel_chip):
            raise SelectError(f"{self.mf.name}: AES-{key_bits}: the {self.accel_chip.name} AES module takes "
                              f"{'/'.join(map(str, aes_key_lengths(self.accel_chip)))}-bit keys only")
        return AES128_OP[kind] | AES_KL[key_bits] << 2

    def accel_set_mode(self, mode: int) -> None:
        self.emit("mov", Imm(mode), self._io("AESACTL0"))

    def _write_words(self, limbs: list, reg: str) -> None:
        dst = self._io(reg)
        for limb in reversed(limbs):            # AES byte 0 is the high byte of the top limb
            s = _swap(limb)
            if s is None:
                t = self.copy(limb)
                self.emit("swpb", t)
                s = t
            self.emit("mov", s, dst)

    def accel_write_key(self, limbs: list) -> None:
        top = _top_of_words(limbs) if getattr(self, "rolled_keys", False) and self.depth == 0 else None
        if top is None:
            self._write_words(limbs, "AESAKEY")
            return
        # Size mode: the key's words, from the top one down, by a loop (SLAU144 cycles: 11 a
        # word and 4 to set up, where the unrolled `mov k(p), t; swpb t; mov t, &AESAKEY`
        # takes 8; 20 bytes where it takes 10 a word). Every start that reloads the key --
        # OCB3 has six in its crypt -- then costs 20 bytes instead of 80.
        q, c, t = R(self.vreg()), R(self.vreg()), R(self.vreg())
        if isinstance(top.disp, Frame):
            self.emit("lea", top, q)
        else:
            self.emit("mov", R(top.base), q)
            self.emit("add", Imm(top.disp), q)
        self.emit("mov", Imm(len(limbs)), c)
        loop = self.mf.label("key")
        self.label(loop)
        self.emit("sub", Imm(2), q)
        self.emit("mov", Ind(q.reg), t)
        self.emit("swpb", t)
        self.emit("mov", t, self._io("AESAKEY"))
        self.emit("dec", c)
        self.emit("jnz", Lbl(loop))

    def accel_write_block(self, limbs: list) -> None:
        self._write_words(limbs, "AESADIN")

    def accel_write_block_xor(self, limbs: list) -> None:
        self._write_words(limbs, "AESAXDIN")

    def accel_read(self, n: int) -> list:
        src = self._io("AESADOUT")
        limbs = [None] * n
        for j in reversed(range(n)):
            r = R(self.vreg())
            self.emit("movio", src, r)           # a FIFO read: never removed as dead
            self.emit("swpb", r)
            limbs[j] = r
        return limbs

    def accel_key_limbs(self, b, idx: int) -> list:
        base = self.elem_addr(b, self.imm_limbs(idx, 16), 0)
        return [at_offset(base, 2 * j) for j in range(b.elem_width // 16)]
