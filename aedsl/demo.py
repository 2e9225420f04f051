"""`python -m aedsl.demo` (what `./dev main` runs): the toolchain and simulators end to end.

Assembles the hand-written SPECK-64/128 samples in runtime/samples/ for each demo chip, links them
with the chip's generated linker script, runs one block encryption in the chip's simulator on
the SPECK paper's test vector, checks the ciphertext, and prints cycles, cycles/byte, stack and
code size. Exits 1 if any ciphertext is wrong.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from aedsl import chips
from aedsl.sim.harness import Program
from aedsl.toolchain import build

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES = REPO_ROOT / "runtime" / "samples"
DEMO_CHIPS = ("cc430f6137", "msp430f1611", "stm32f030")
SPECK_SOURCE = {"msp430": SAMPLES / "speck64_msp430.s", "armv6m": SAMPLES / "speck64_armv6m.s"}


def vectors_file() -> Path:
    base = os.environ.get("AEDSL_SHARED_VECTORS")
    root = Path(base) if base else REPO_ROOT.parent / "shared" / "vectors"
    return root / "speck" / "speck_paper_test_vectors.txt"


def speck_vector(name: str = "Speck64/128", path: Path | None = None) -> dict[str, bytes]:
    """KeyBytes/PTBytes/CTBytes of one [section] of the paper's vector file (byte form)."""
    path = path or vectors_file()
    section, fields = None, {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line[1:-1]
        elif section == name and "=" in line and not line.startswith("#"):
            k, v = (s.strip() for s in line.split("=", 1))
            fields[k] = v
    if not fields:
        raise ValueError(f"{path}: no [{name}] section")
    return {k: bytes.fromhex(fields[k]) for k in ("KeyBytes", "PTBytes", "CTBytes")}


def build_speck(chip, workdir: Path) -> Path:
    return build([SPECK_SOURCE[chip.target]], workdir / chip.name / "speck64.elf", chip)


def main(argv: list[str] | None = None) -> int:
    vec = speck_vector()
    print(f"SPECK-64/128 block encryption, hand-written samples, test vector from {vectors_file().name}")
    print(f"{'chip':<12} {'isa':<8} {'cycles':>7} {'cyc/byte':>9} {'instr':>6} {'stack B':>8} {'code B':>7}  result")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="aedsl-demo-") as tmp:
        for name in DEMO_CHIPS:
            chip = chips.load(name)
            prog = Program(build_speck(chip, Path(tmp)), chip)
            r = prog.call("speck64_128_encrypt", [vec["KeyBytes"], vec["PTBytes"], bytes(8)])
            ok = r.buffers[2] == vec["CTBytes"]
            failed += not ok
            verdict = "ok" if ok else f"WRONG: {r.buffers[2].hex()} != {vec['CTBytes'].hex()}"
            print(f"{name:<12} {chip.isa:<8} {r.cycles:>7} {r.cycles / 8:>9.1f} {r.instructions:>6} "
                  f"{r.stack_bytes:>8} {prog.elf.symbol('speck64_128_encrypt').size:>7}  {verdict}")
    print("cycles: first instruction of the function to its return, inclusive (aedsl/sim/harness.py)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
