"""Energy from cycles: a model, not a measurement.

E = cycles x (datasheet active-mode current per MHz) x (supply voltage). A current of I uA/MHz
is I pC per clock cycle, so one cycle costs I x V pJ. The figures are the chip file's `[power]`
table (typical values of the datasheet table its `source` cites, or an estimate where the source
says ESTIMATE); `memory` picks the execution-from-flash
figure (the default, where our code runs) or the execution-from-RAM one where the datasheet gives
it. The model ignores everything a datasheet's typical figure does not describe: the code's own
mix of instructions and memory accesses, peripherals (an AES or MPY module working), temperature,
the clock source and the regulator. `aedsl bench` prints it per record (uJ, nJ/B); `aedsl explore`
adds it to each variant's metrics (aedsl.explore.task).

Seed 003 (Buhrow et al., MSP430F5528) *measured* energy on a board, integrating the supply
current over the encryption at Vdvcc = 2.85 V; its records are in `SEED003_UJ_PER_BLOCK` to be
printed beside our modelled figures, never mixed with them.
"""
from __future__ import annotations

from dataclasses import dataclass

# seed 003, Abstract and 5.2: measured uJ per 16-byte block, MSP430F5528 (block encryption only)
SEED003_UJ_PER_BLOCK = {"AES-128 (16-BIT-4T-ASM)": 2.18, "SPECK-128/128 (ASM)": 1.44}
SEED003_CHIP = "msp430f5528"


@dataclass(frozen=True)
class Energy:
    """Modelled energy of one measured operation."""
    uj: float                    # microjoules for the whole operation
    nj_per_byte: float | None    # nanojoules per message byte (None for 0 bytes)
    uj_per_block: float | None   # microjoules per 16-byte block (None for 0 bytes)


def pj_per_cycle(chip, memory: str = "flash") -> float | None:
    """Picojoules per clock cycle on `chip` (None: the chip file has no [power] table)."""
    p = chip.power
    if p is None:
        return None
    if memory == "ram":
        if p.ram_ua_per_mhz is None:
            raise ValueError(f"chip {chip.name}: the datasheet gives no execution-from-RAM current")
        return p.ram_ua_per_mhz * p.voltage
    if memory != "flash":
        raise ValueError(f"memory={memory!r}: expected flash or ram")
    return p.ua_per_mhz * p.voltage


def energy(chip, cycles: float, nbytes: int | None = None, memory: str = "flash") -> Energy | None:
    """The modelled energy of `cycles` clock cycles on `chip` spent on `nbytes` message bytes."""
    pj = pj_per_cycle(chip, memory)
    if pj is None:
        return None
    uj = cycles * pj * 1e-6
    if not nbytes:
        return Energy(uj, None, None)
    return Energy(uj, uj * 1e3 / nbytes, uj * 16 / nbytes)
