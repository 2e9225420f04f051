"""`aedsl chips [CHIP_FILE...] [--json]`: the known chips (aedsl/chips/*.toml, plus any chip files
named) with ISA, core, clock, memories, multiplier, accelerator and the datasheet power figures
the energy model uses."""
from __future__ import annotations

import json

HELP = "list the known chips: ISA, core, memories, multiplier, accelerator, power"
COLUMNS = ("name", "isa", "core", "clock_mhz", "flash", "ram", "multiplier", "accelerator", "power")


def add_arguments(p) -> None:
    p.add_argument("files", nargs="*", metavar="CHIP_FILE", help="also describe these chip files (.toml)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")


def run(args) -> int:
    from aedsl import chips
    rows = [chips.describe(chips.load(n)) for n in chips.names()]
    rows += [chips.describe(chips.load(f)) for f in args.files]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    cells = [[str(r[c]) if c != "clock_mhz" else f"{r[c]:g} MHz" for c in COLUMNS] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(COLUMNS)]
    print("  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)).rstrip())
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
    return 0
