"""`aedsl ir SPEC [-k knob=value]... [--after PASS]`: print a spec's IR."""
from __future__ import annotations

import sys

from ..frontend.diagnostics import SpecError
from .check import add_knob_arguments, parse_knobs

HELP = "print the IR of a spec (optionally after the pipeline up to a named pass)"


def add_arguments(p) -> None:
    p.add_argument("spec", help="path of a .ae spec")
    add_knob_arguments(p)
    p.add_argument("--after", metavar="PASS", help="run the pass pipeline up to and including PASS")


def run(args) -> int:
    from ..frontend.elaborate import load_module
    from ..ir import pipeline
    from ..ir.printer import print_module
    try:
        knobs = parse_knobs(args.knob)
        module = load_module(args.spec, knobs)
    except SpecError as e:
        print(e.render(), file=sys.stderr)
        return 2
    if args.after:
        try:
            module = pipeline.run(module, knobs, until=args.after)
        except KeyError as e:
            print(f"aedsl ir: {e.args[0]}", file=sys.stderr)
            return 2
    sys.stdout.write(print_module(module))
    return 0
