"""`aedsl check SPEC [-k knob=value]...`: parse, elaborate and width-check a spec."""
from __future__ import annotations

import sys

from ..frontend.diagnostics import SpecError

HELP = "check a spec: syntax, names, widths, knob values (exit 0 if clean, 2 on an error)"


def add_knob_arguments(p) -> None:
    p.add_argument("-k", "--knob", action="append", default=[], metavar="NAME=VALUE",
                   help="bind a knob (repeatable)")


def parse_knobs(items: list[str]) -> dict[str, str]:
    knobs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise SpecError(f"bad knob setting {item!r}; write NAME=VALUE", "<command line>")
        knobs[name.strip()] = value.strip()
    return knobs


def add_arguments(p) -> None:
    p.add_argument("spec", help="path of a .ae spec")
    add_knob_arguments(p)


def run(args) -> int:
    from ..frontend.elaborate import load_module
    try:
        module = load_module(args.spec, parse_knobs(args.knob))
    except SpecError as e:
        print(e.render(), file=sys.stderr)
        return 2
    knobs = " ".join(f"{k}={v}" for k, v in module.knobs.items())
    print(f"{args.spec}: ok ({len(module.functions)} functions{', ' + knobs if knobs else ''})")
    return 0
