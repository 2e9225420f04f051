"""`python -m aedsl.demo` (what `./dev main` runs): the compiler end to end, on both targets.

1. SPECK-64/128 (specs/primitives/speck.ae) is compiled for every demo chip that has a backend
   (`driver.BACKENDS`: cc430f6137 and msp430f1611, stm32f030 once the ARMv6-M backend exists),
   assembled, linked and run in the chip's simulator on the SPECK paper's test vector.
2. AES-128-CCM (specs/schemes/ccm.ae, software AES) is compiled for the same chips and run on a
   sample of Wycheproof's official CCM vectors; on chips where it fits together with the C runtime
   (runtime/msp430/), a 1500-byte message is measured through crypto_aead_encrypt/decrypt.

3. Beside the papers: variants measured on the very workload a seed paper reports (`aedsl.papers`,
   where the papers' figures are written down), each printed next to the paper's figure -- CCM
   with the accelerator on the CC430F6137 (seed 000, Tables 2 and 3), AES-128 with 16-bit
   T-tables and SPECK-128/128 on the MSP430F5528 (seed 003), AES-128 CCM and GCM on the Cortex-M0
   (seed 001, Cifra).

Prints cycles, cycles/byte, stack and code size; exits 1 if any result is wrong (or a compile
fails), 0 otherwise. Every number of ours comes from the simulators (aedsl/sim/harness.py).
"""
from __future__ import annotations

import itertools
import sys

from aedsl import chips, papers
from aedsl.backends.registry import has_target
from aedsl.resources import spec_path, specs_dir
from aedsl.samples import speck_vector, vectors_file

SPECK = spec_path("primitives/speck.ae")
CCM = spec_path("schemes/ccm.ae")
DEMO_CHIPS = ("cc430f6137", "msp430f1611", "stm32f030")
CCM_SAMPLE = 16          # Wycheproof vectors run per chip (the first applicable ones, in file order)


# (spec, chip, knobs, aedsl.bench.bench_spec arguments): each meets figures of a paper
PAPER_RUNS = (
    ("schemes/ccm.ae", "cc430f6137", {"aes": "accel"}, {"sizes": ("16", "ipi", "4096")}),
    ("primitives/aes.ae", "msp430f5528", {"key_bits": 128, "aes_tables": "t16x4"}, {}),
    ("primitives/speck.ae", "msp430f5528", {"block_bits": 128, "key_bits": 128}, {}),
    ("schemes/ccm.ae", "stm32f030", {"key_bits": 128}, {"sizes": (), "seed001": True}),
    ("schemes/gcm.ae", "stm32f030", {"key_bits": 128}, {"sizes": (), "seed001": True}),
)


def demo_chips() -> list:
    return [c for c in map(chips.load, DEMO_CHIPS) if has_target(c)]


def run_speck(chip, vec) -> bool:
    from aedsl.engines.sim import compiled, sim_engine
    eng = sim_engine(SPECK, {"block_bits": 64, "key_bits": 128}, chip.name)
    # the vector file's byte form is what engines take (aedsl/vectors/speck_paper.py)
    ct = eng.encrypt_block(vec["KeyBytes"], vec["PTBytes"])
    ok = ct == vec["CTBytes"]
    unit, _ = compiled(SPECK, chip.name, {"block_bits": 64, "key_bits": 128})
    code = unit.entries["encrypt_block"].code_bytes
    r = eng.last
    print(f"  {chip.name:<12} {chip.isa:<8} {r.cycles:>8} {r.cycles / 8:>9.1f} {r.stack_bytes:>8} {code:>7}  "
          + ("ok" if ok else f"WRONG: {ct.hex()} != {vec['CTBytes'].hex()}"))
    return ok


def run_ccm(chip) -> bool:
    from aedsl import bench, vectors
    from aedsl.engines.sim import sim_engine
    from aedsl.toolchain import ToolchainError
    from aedsl.vectors import runner
    eng = sim_engine(CCM, {}, chip.name)
    vecs = [v for v in vectors.load("wycheproof:aes_ccm") if eng.supports(len(v.key), len(v.nonce), len(v.tag))]
    rep = runner.run(eng, list(itertools.islice(vecs, CCM_SAMPLE)))
    ok = rep.failed == 0 and rep.passed > 0
    line = f"  {chip.name:<12} Wycheproof aes_ccm: {rep.passed} passed, {rep.failed} failed"
    try:
        recs = bench.bench_spec(CCM, chip, {}, sizes=("1500",), key_setup="include", seed001=False)
        enc, dec = recs[0], recs[1]
        line += (f"; 1500 B via crypto_aead_*: enc {enc.cycles_per_byte:.0f} cyc/B, dec {dec.cycles_per_byte:.0f} "
                 f"cyc/B, ROM {enc.rom_bytes} B, stack {max(enc.stack_bytes, dec.stack_bytes)} B")
    except ToolchainError as e:
        why = next((ln for ln in str(e).splitlines() if "overflowed" in ln), "link failed")
        line += f"; runtime build does not fit the chip ({why.split(': ')[-1]})"
    print(line + ("" if ok else "  FAILED"))
    for f in rep.failures[:3] if hasattr(rep, "failures") else []:
        print(f"    {f}")
    return ok


def _num(x, fmt: str = ".0f") -> str:
    return "-" if x is None else format(x, fmt)


def run_papers() -> int:
    """The PAPER_RUNS beside the papers' figures; the number of runs that failed."""
    from aedsl import bench
    from aedsl.backends.registry import has_target
    failed = 0
    print(f"  {'seed':<5} {'chip':<12} {'paper: what':<34} {'op':<13} {'msg':>5} {'cyc/B paper':>11} {'ours':>6} "
          f"{'ROM B paper':>11} {'ours':>6}")
    for rel, chip_name, knobs, kw in PAPER_RUNS:
        chip = chips.load(chip_name)
        if not has_target(chip):
            continue
        try:
            recs = bench.bench_spec(spec_path(rel), chip, knobs, **kw)
        except Exception as e:                     # report every run, then fail
            failed += 1
            print(f"  {chip_name:<12} {rel}: ERROR: {str(e).splitlines()[0]}")
            continue
        for f, r in papers.matching(recs, same_strategy=True):
            print(f"  {f.seed:<5} {chip_name:<12} {f.label[:34]:<34} {f.op:<13} {str(f.msg_len):>5} "
                  f"{_num(f.cycles_per_byte):>11} {_num(r.cycles_per_byte):>6} {_num(f.rom_bytes, 'd'):>11} "
                  f"{r.rom_bytes:>6}")
    return failed


def main(argv: list[str] | None = None) -> int:
    failed = 0
    targets = demo_chips()
    vec = speck_vector()
    print(f"SPECK-64/128 compiled from specs/{SPECK.relative_to(specs_dir())}; test vector from {vectors_file().name}")
    print(f"  {'chip':<12} {'isa':<8} {'cycles':>8} {'cyc/byte':>9} {'stack B':>8} {'code B':>7}  result")
    for chip in targets:
        try:
            failed += not run_speck(chip, vec)
        except Exception as e:                     # report every chip, then fail
            failed += 1
            print(f"  {chip.name:<12} ERROR: {str(e).splitlines()[0]}")
    print(f"AES-128-CCM (software AES) compiled from specs/{CCM.relative_to(specs_dir())}")
    for chip in targets:
        try:
            failed += not run_ccm(chip)
        except Exception as e:
            failed += 1
            print(f"  {chip.name:<12} ERROR: {str(e).splitlines()[0]}")
    print("Beside the papers: the same algorithm, chip and workload (seed 000: key setup excluded, no AD; "
          "seed 001: 256 B message, 16 B AD, key setup included; seed 003: one block, the cipher alone)")
    failed += run_papers()
    print("cycles: first instruction of the function to its return, inclusive (aedsl/sim/harness.py); "
          "message buffers in the benchmark region or RAM (aedsl/bench.py)")
    print("all results correct" if not failed else f"{failed} FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
