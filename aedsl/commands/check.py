"""`aedsl check SPEC [-k knob=value]...`: parse, elaborate and width-check a spec."""
from __future__ import annotations

from .options import add_knob_argument

HELP = "check a spec: syntax, names, widths, knob values (exit 0 if clean, 2 on an error)"


def add_arguments(p) -> None:
    p.add_argument("spec", help="path of a .ae spec")
    add_knob_argument(p)


def run(args) -> int:
    from ..frontend.elaborate import load_module
    from ..knobs import parse_knobs
    module = load_module(args.spec, parse_knobs(args.knob))
    knobs = " ".join(f"{k}={v}" for k, v in module.knobs.items())
    print(f"{args.spec}: ok ({len(module.functions)} functions{', ' + knobs if knobs else ''})")
    return 0
