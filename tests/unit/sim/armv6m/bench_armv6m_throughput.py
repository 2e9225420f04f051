"""Hand-run throughput check of the ARMv6-M simulator (not collected by pytest; no timing asserts).

    .venv/bin/python tests/unit/sim/armv6m/bench_armv6m_throughput.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from armv6m_asm import load  # noqa: E402

from aedsl.chips import load as load_chip  # noqa: E402
from aedsl.sim.armv6m import ArmV6MSim  # noqa: E402

LOOP = """
    ldr r0, =5000000
    ldr r2, =0x20000000
loop:
    ldr r3, [r2]
    eors r3, r0
    str r3, [r2, #4]
    lsls r3, r3, #3
    adds r1, r1, r3
    subs r0, #1
    bne loop
    bkpt #0
    .ltorg
"""


def main() -> None:
    sim = ArmV6MSim(load_chip("stm32f030"))
    for stats in (False, True):
        load(sim, LOOP)
        sim.enable_stats(stats)
        t = time.perf_counter()
        stop = sim.run(10**9)
        dt = time.perf_counter() - t
        assert stop.reason == "halt", stop
        print(f"stats={'on ' if stats else 'off'}: {sim.cycles} cycles, {sim.instructions} instructions in "
              f"{dt:.3f} s = {sim.cycles / dt / 1e6:.0f} M simulated cycles/s "
              f"({sim.instructions / dt / 1e6:.0f} M instructions/s)")


if __name__ == "__main__":
    main()
