"""`aedsl ir SPEC [-k knob=value]... [--after PASS] [-P pass_knob=value]...`: print a spec's IR."""
from __future__ import annotations

import sys

from .options import UsageError, add_knob_argument

HELP = "print the IR of a spec (optionally after the pipeline up to a named pass)"


def add_arguments(p) -> None:
    p.add_argument("spec", help="path of a .ae spec")
    add_knob_argument(p)
    p.add_argument("--after", metavar="PASS", help="run the pass pipeline up to and including PASS")
    p.add_argument("--word-bits", type=int, choices=(16, 32), help="target word size for legalize "
                   "(16 = MSP430, 32 = ARMv6-M); without it no word legalization")
    p.add_argument("-P", "--pass-knob", action="append", default=[], metavar="NAME=VALUE",
                   help="a pass knob, e.g. table_fusion=rotate, inline=none (repeatable)")


def pass_knobs(items: list[str]) -> dict[str, str]:
    """`-P` settings checked against the knobs the pipeline's passes declare (KnobError)."""
    from ..ir import pipeline
    from ..knobs import KnobError, parse_knobs
    known = pipeline.knobs()
    out = {}
    for name, value in parse_knobs(items).items():
        if name not in known:
            raise KnobError(f"unknown pass knob {name!r} (pass knobs: {', '.join(sorted(known))})")
        out[name] = known[name].check(value)
    return out


def run(args) -> int:
    from ..frontend.elaborate import load_module
    from ..ir import pipeline
    from ..ir.printer import print_module
    from ..knobs import parse_knobs
    knobs = parse_knobs(args.knob)
    extra = pass_knobs(args.pass_knob)
    if args.word_bits:
        extra["word_bits"] = str(args.word_bits)
    if args.after is None and extra:
        raise UsageError("-P and --word-bits take effect with --after PASS")
    if args.after is not None:
        labels = [s.label for s in pipeline.STEPS]
        if args.after not in pipeline.STAGES and args.after not in labels:
            raise UsageError(f"--after {args.after!r}: no such pass (passes: {', '.join(pipeline.STAGES)})")
    # --word-bits is the target's word: also what a knob defaulting to `word` takes
    module = load_module(args.spec, knobs, *([args.word_bits] if args.word_bits else []))
    if args.after:
        module = pipeline.run(module, dict(knobs, **extra), until=args.after)
    sys.stdout.write(print_module(module))
    return 0
