"""`aedsl ct SPEC --chip CHIP [-k knob=value]... [--strict] [--static-only] [--secrets N] [--json]`:
is the compiled variant constant time? Secret-taint analysis of the IR and of the selected machine
code, then the code run in the simulator on random secrets (aedsl/ct, docs/CONSTANT_TIME.md).
Exit 0 when it is, 1 when a finding or a cycle difference says it is not, 2 on a usage or spec
error (`aedsl.cli` reports the errors)."""
from __future__ import annotations

import argparse
import json

from .options import add_knob_argument, chip_name, positive_int

HELP = "check that a compiled spec runs in constant time (static taint analysis + simulator runs)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="spec file (.ae)")
    p.add_argument("--chip", required=True, type=chip_name, help="chip name (aedsl/chips/*.toml)")
    add_knob_argument(p)
    p.add_argument("--strict", action="store_true",
                   help="also refuse secret-dependent memory indices (a power/EM threat model)")
    p.add_argument("--static-only", action="store_true", help="skip the simulator runs")
    p.add_argument("--secrets", type=positive_int, default=3, metavar="N",
                   help="random secrets per entry point in the simulator runs (default 3)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    from aedsl.ct.check import check
    from aedsl.ct.report import render
    from aedsl.knobs import parse_knobs

    rep = check(args.spec, args.chip, parse_knobs(args.knob), strict=args.strict,
                run_dynamic=not args.static_only, secrets=args.secrets)
    print(json.dumps(rep.as_dict(), indent=1) if args.json else render(rep))
    return 0 if rep.ok else 1
