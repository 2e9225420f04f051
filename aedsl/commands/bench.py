"""`aedsl bench SPEC --chip CHIP [-k knob=value]... [--json] [--key-setup include|exclude]
[--rom-detail] [--function NAME [--arg NAME=VALUE]...]`:
cycles, cycles/byte, ROM, RAM and stack of a compiled spec in the chip's simulator (aedsl/bench.py
says exactly what is measured). Exit 0 on success, 1 if a measurement failed (e.g. wrong
decryption), 2 on a usage or spec error (`aedsl.cli` reports the errors)."""
from __future__ import annotations

import argparse

from .options import UsageError, add_knob_argument, byte_count, chip_name, message_sizes, positive_int

HELP = "measure a compiled spec in the simulator: cycles/byte (16 B, IPI, 4 KB), ROM, RAM, stack"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="spec file (.ae)")
    p.add_argument("--chip", required=True, type=chip_name, help="chip name (aedsl/chips/*.toml) or path of a chip file")
    add_knob_argument(p)
    p.add_argument("--json", action="store_true", help="print the records as JSON")
    p.add_argument("--key-setup", choices=("include", "exclude"), default="exclude",
                   help="AEAD: measure key expansion with every message (Cifra, seed 001) or not (seed 000; "
                        "needs the spec's key-setup stage). Default exclude")
    p.add_argument("--sizes", type=message_sizes, default=None, metavar="LIST",
                   help="message sizes, comma-separated byte counts or 'ipi' (default 16,ipi,4096)")
    p.add_argument("--ad-len", type=byte_count, default=0, help="associated data bytes (default 0)")
    p.add_argument("--sweep", type=positive_int, nargs="?", const=16, default=None, metavar="STEP",
                   help="AEAD: also cycles vs message length 0..256 every STEP bytes (default 16), key setup included")
    p.add_argument("--function", metavar="NAME",
                   help="measure this one function of the spec alone (compiled with its callees, random inputs), "
                        "e.g. a permutation or a keystream step")
    p.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                   help="with --function: a scalar parameter's value (repeatable; the others are random)")
    p.add_argument("--rom-detail", action="store_true",
                   help="also list the ROM per symbol: the algorithm's code and constants, the runtime API, "
                        "and what is not counted (benchmark wrappers, start-up code)")
    p.add_argument("--max-steps", type=positive_int, default=None, metavar="N",
                   help="instructions one measured call may run before it counts as hung (default 50 000 000)")
    p.add_argument("--seed001", action=argparse.BooleanOptionalAction, default=None,
                   help="AEAD: also seed 001's workload (256 B message, 16 B AD, key setup included); "
                        "default on for ARM chips")


def parse_args(items: list[str]) -> dict[str, int]:
    """--arg NAME=VALUE items (integers, decimal or 0x hex)."""
    out = {}
    for item in items:
        name, eq, value = item.partition("=")
        try:
            out[name.strip()] = int(value, 0)
        except ValueError:
            raise UsageError(f"--arg {item!r}: expected NAME=INTEGER") from None
        if not eq or not name.strip():
            raise UsageError(f"--arg {item!r}: expected NAME=INTEGER")
    return out


def run(args: argparse.Namespace) -> int:
    from aedsl import bench
    from aedsl.knobs import parse_knobs

    knobs = parse_knobs(args.knob)
    steps = args.max_steps or bench.DEFAULT_MAX_STEPS
    if args.function:
        records = bench.bench_function(args.spec, args.chip, knobs, args.function, parse_args(args.arg), steps)
    elif args.arg:
        raise UsageError("--arg needs --function")
    else:
        records = bench.bench_spec(args.spec, args.chip, knobs, sizes=args.sizes or bench.DEFAULT_SIZES,
                                   ad_len=args.ad_len, key_setup=args.key_setup, sweep=args.sweep,
                                   seed001=args.seed001, max_steps=steps)
    detail = None
    if args.rom_detail:
        if args.function:
            raise UsageError("--rom-detail measures a whole scheme or block cipher, not --function")
        detail = bench.rom_detail(args.spec, args.chip, knobs)
    if args.json:
        if detail is None:
            print(bench.to_json(records))
        else:
            import json
            items, extra = detail
            print(json.dumps({"records": [r.as_dict() for r in records],
                              "rom_detail": [dict(name=i.name, kind=i.kind, bytes=i.bytes, section=i.section,
                                                  counted=i.counted) for i in items],
                              "unattributed": extra}, indent=1))
        return 0
    print(bench.HEADER)
    for r in records:
        print(r.line())
    notes = sorted({n for r in records for n in r.notes})
    if any(r.energy_uj is not None for r in records):
        from aedsl.energy import SEED003_CHIP, SEED003_UJ_PER_BLOCK
        from aedsl import chips
        if chips.load(args.chip).name == SEED003_CHIP:
            print("seed 003 measured on an MSP430F5528 board (a measurement, not our model): " +
                  ", ".join(f"{k} {v} uJ/block" for k, v in SEED003_UJ_PER_BLOCK.items()))
    via = sorted({r.via for r in records})
    print(f"measured through: {', '.join(via)}; " + "; ".join(notes) if notes else f"measured through: {', '.join(via)}")
    if detail is not None:
        from aedsl.rom import format_detail
        print()
        print(format_detail(*detail))
    return 0
