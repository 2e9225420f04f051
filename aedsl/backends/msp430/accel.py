"""The CC430 AES128 module in MSP430 code: lowering of `accel_start` / `accel_result`.

The chip file gives the module's base address and latencies (`[accelerator]` of
aedsl/chips/*.toml); the register offsets are the module's own map (TI SLAU259 AES128 chapter,
../shared/facts/TARGETS.md), the same for every chip that has it.

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

from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, MInst, R
from aedsl.codegen.accel import SCHEDULE_VALUES, AccelConfig, AccelPorts, AccelSelection

AES128_REGS = {"AESACTL0": 0x0, "AESASTAT": 0x4, "AESAKEY": 0x6, "AESADIN": 0x8, "AESADOUT": 0xA}
AES128_OP = {"encrypt": 0, "decrypt": 1, "keygen": 2, "decrypt_generated_key": 3}
AESBUSY = 0x1
M16 = 0xFFFF


def io_operand(chip, reg: str) -> Mem:
    """The absolute operand of accelerator register `reg` on `chip`."""
    return Mem(None, f"{chip.accelerator['base'] + AES128_REGS[reg]:#06x}")


def latencies(chip) -> dict:
    a = chip.accelerator
    return {"encrypt": a["latency_encrypt"], "decrypt": a["latency_decrypt"], "keygen": a["latency_keygen"],
            "decrypt_generated_key": a["latency_decrypt_generated_key"]}


def make_ports(chip, cost) -> AccelPorts | None:
    """The machine-IR view of the module for aedsl/codegen/accel (None without the module)."""
    if chip.accelerator.get("kind") != "aes128":
        return None
    io = {io_operand(chip, r) for r in AES128_REGS}
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


class Msp430Accel(AccelSelection):
    """Selector hooks of `AccelSelection` for the AES128 module."""

    def configure_accel(self, chip, schedule: str) -> None:
        if schedule not in SCHEDULE_VALUES:
            raise ValueError(f"schedule={schedule} is not allowed; choose one of {', '.join(SCHEDULE_VALUES)}")
        if chip is None or chip.accelerator.get("kind") != "aes128":
            self.accel = None
            return
        self.accel_chip = chip
        self.accel = AccelConfig(latency=latencies(chip), delay_slot=(schedule != "none"))

    def _io(self, reg: str) -> Mem:
        return io_operand(self.accel_chip, reg)

    def accel_mode(self, kind: str) -> int:
        return AES128_OP[kind]

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
        self._write_words(limbs, "AESAKEY")

    def accel_write_block(self, limbs: list) -> None:
        self._write_words(limbs, "AESADIN")

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
        out = []
        for j in range(8):
            d = base.disp
            if j:
                d = d + 2 * j if isinstance(d, int) else (
                    Frame(d.kind, d.key, d.extra + 2 * j) if isinstance(d, Frame) else f"{d}+{2 * j}")
            out.append(Mem(base.base, d))
        return out
