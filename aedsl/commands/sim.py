"""`aedsl sim`: run one function of an ELF in the chip's simulator and report what it cost.
Exit 0 on success, 2 for a bad ELF, symbol or argument, 1 when the run faults or does not return
within the step limit (`aedsl.cli` reports the errors)."""
from __future__ import annotations

import argparse
import json

from .options import call_argument, chip_name, positive_int

HELP = "run a function of an ELF in the cycle-accurate simulator; report cycles, stack and sizes"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("elf", help="linked ELF file")
    p.add_argument("--chip", required=True, type=chip_name, help="chip name (aedsl/chips/*.toml) or path of a chip file")
    p.add_argument("--entry", required=True, help="function symbol to call")
    p.add_argument("--stop", help="stop when the PC reaches this symbol instead of at the return")
    p.add_argument("--arg", action="append", default=[], type=call_argument, metavar="VALUE",
                   help="argument, in order: an integer (0x.. allowed), hex:BYTES for a buffer passed by "
                        "pointer, or zeros:N for an N-byte zeroed buffer; buffers are printed after the run")
    p.add_argument("--bench", action="store_true",
                   help="place buffers in the simulator-only benchmark region instead of RAM")
    p.add_argument("--max-steps", type=positive_int, default=None, help="instruction limit (default 50 million)")
    p.add_argument("--stats", action="store_true", help="also report the instruction mix and memory accesses")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    from aedsl import chips
    from aedsl.sim.harness import DEFAULT_MAX_STEPS, Program

    chip = chips.load(args.chip)
    prog = Program(args.elf, chip, bench=args.bench)
    for sym in [args.entry] + ([args.stop] if args.stop else []):
        prog.elf.symbol(sym)
    r = prog.call(args.entry, args.arg, stop=args.stop, stats=args.stats,
                  max_steps=args.max_steps or DEFAULT_MAX_STEPS,
                  buffer_region="bench" if args.bench else "ram")

    out = {"elf": args.elf, "chip": chip.name, "entry": args.entry, "stopped_at": r.stopped_at,
           "cycles": r.cycles, "instructions": r.instructions, "stack_bytes": r.stack_bytes,
           "return_value": r.return_value, "registers": {f"r{i}": v for i, v in enumerate(r.registers)},
           "buffers": [b.hex() for b in r.buffers], **prog.sizes()}
    if r.stats is not None:
        out["stats"] = {"mnemonics": r.stats.mnemonics, "addressing_modes": r.stats.addressing_modes,
                        "mem_reads": r.stats.mem_reads, "mem_writes": r.stats.mem_writes}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{args.entry} on {chip.name}: {'returned' if r.stopped_at == 'return' else 'stopped at ' + (args.stop or r.stopped_at)}")
    print(f"  cycles        {r.cycles}")
    print(f"  instructions  {r.instructions}")
    print(f"  stack bytes   {r.stack_bytes}")
    print(f"  program size  ROM {out['rom']} B, RAM {out['ram']} B" + (f", bench {out['bench']} B" if out["bench"] else ""))
    print(f"  return value  {r.return_value:#x}")
    regs = [f"r{i}={v:#x}" for i, v in enumerate(r.registers)]
    for i in range(0, 16, 8):
        print("  " + " ".join(regs[i:i + 8]))
    for i, b in enumerate(r.buffers):
        print(f"  buffer {i}      {b.hex()}")
    if r.stats is not None:
        mix = sorted(r.stats.mnemonics.items(), key=lambda kv: -kv[1])
        print("  instruction mix: " + ", ".join(f"{m} {n}" for m, n in mix))
        print(f"  memory reads {r.stats.mem_reads}, writes {r.stats.mem_writes}")
    return 0

