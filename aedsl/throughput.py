"""`python -m aedsl.throughput`: how many simulated cycles per second each simulator runs.

Workload: the hand-written SPECK-64/128 sample (runtime/samples/), `speck64_128_encrypt_n`
encrypting one block in place n times, so nearly all the time is spent inside the C core's run
loop (one `call` per up to 65535 blocks). n is chosen from a one-block calibration so the total
reaches --cycles simulated cycles (default 50 million) per chip. The result is checked against a
second, independent chain of single-block calls at the start, so a fast but wrong core is noticed.
Wall-clock numbers vary by machine; they are printed, never asserted.
"""
from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

from aedsl import chips
from aedsl.samples import build_speck, speck_vector
from aedsl.sim.cores import simulator_class
from aedsl.sim.harness import Program

DEFAULT_CHIPS = ("cc430f6137", "msp430f1611", "stm32f030")


def measure(chip_name: str, target_cycles: int, workdir: Path) -> dict:
    chip = chips.load(chip_name)
    prog = Program(build_speck(chip, workdir), chip)
    vec = speck_vector()
    key, block = vec["KeyBytes"], vec["PTBytes"]
    one = prog.call("speck64_128_encrypt_n", [key, block, 1])
    if one.buffers[1] != vec["CTBytes"]:
        raise SystemExit(f"{chip_name}: SPECK sample gives {one.buffers[1].hex()}, expected {vec['CTBytes'].hex()}")
    # Check n > 1 against chained single calls (3 blocks).
    chained = block
    for _ in range(3):
        chained = prog.call("speck64_128_encrypt", [key, chained, bytes(8)]).buffers[2]
    if prog.call("speck64_128_encrypt_n", [key, block, 3]).buffers[1] != chained:
        raise SystemExit(f"{chip_name}: speck64_128_encrypt_n disagrees with chained single calls")

    per_block = prog.call("speck64_128_encrypt_n", [key, block, 16]).cycles / 16
    cycles = instructions = 0
    seconds = 0.0
    while cycles < target_cycles:
        n = min(math.ceil((target_cycles - cycles) / per_block) + 1, (1 << (8 * simulator_class(chip).CALLS.word_bytes)) - 1)   # n is one machine word
        t0 = time.perf_counter()
        r = prog.call("speck64_128_encrypt_n", [key, block, n], max_steps=1 << 62)
        seconds += time.perf_counter() - t0
        cycles += r.cycles
        instructions += r.instructions
        block = r.buffers[1]
    return {"chip": chip_name, "isa": chip.isa, "cycles": cycles, "instructions": instructions,
            "seconds": seconds, "mcycles_per_s": cycles / seconds / 1e6,
            "minstr_per_s": instructions / seconds / 1e6, "cycles_per_block": one.cycles}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m aedsl.throughput", description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=float, default=50e6, help="simulated cycles per chip (default 50e6)")
    ap.add_argument("--chips", nargs="+", default=list(DEFAULT_CHIPS))
    args = ap.parse_args(argv)
    print(f"{'chip':<12} {'isa':<8} {'sim cycles':>12} {'instructions':>13} {'seconds':>8} "
          f"{'Mcycles/s':>10} {'Minstr/s':>9}")
    with tempfile.TemporaryDirectory(prefix="aedsl-throughput-") as tmp:
        for name in args.chips:
            m = measure(name, int(args.cycles), Path(tmp))
            print(f"{m['chip']:<12} {m['isa']:<8} {m['cycles']:>12} {m['instructions']:>13} {m['seconds']:>8.2f} "
                  f"{m['mcycles_per_s']:>10.1f} {m['minstr_per_s']:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
