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
    p.add_argument("--word-bits", type=int, choices=(16, 32), help="target word size for legalize "
                   "(16 = MSP430, 32 = ARMv6-M); without it no word legalization")
    p.add_argument("-P", "--pass-knob", action="append", default=[], metavar="NAME=VALUE",
                   help="a pass knob, e.g. table_fusion=rotate, inline=none (repeatable)")


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
            pass_knobs = dict(knobs, **parse_knobs(getattr(args, "pass_knob", []) or []))
            if getattr(args, "word_bits", None):
                pass_knobs["word_bits"] = str(args.word_bits)
            module = pipeline.run(module, pass_knobs, until=args.after)
        except KeyError as e:
            print(f"aedsl ir: {e.args[0]}", file=sys.stderr)
            return 2
    sys.stdout.write(print_module(module))
    return 0
