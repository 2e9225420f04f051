"""`aedsl compile SPEC --chip CHIP [-k knob=value]... -o DIR`: write the generated assembly (.S)
and its C header (.h) for one spec variant. Exit 0 on success, 2 on a usage or spec error."""
from __future__ import annotations

import argparse
import sys

HELP = "compile a spec to assembly (.S) and a C header (.h) for a chip"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="spec file (.ae)")
    p.add_argument("--chip", required=True, help="chip name (aedsl/chips/*.toml)")
    p.add_argument("-k", "--knob", action="append", default=[], metavar="KNOB=VALUE", help="bind a knob (repeatable)")
    p.add_argument("-o", "--out", required=True, metavar="DIR", help="output directory")


def run(args: argparse.Namespace) -> int:
    from aedsl.driver import compile_spec
    from aedsl.commands.kat import parse_knobs
    from aedsl.frontend.diagnostics import SpecError

    try:
        unit = compile_spec(args.spec, args.chip, parse_knobs(args.knob))
    except SpecError as e:
        print(e, file=sys.stderr)
        return 2
    except (ValueError, KeyError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    s, h = unit.write(args.out)
    for e in unit.entries.values():
        print(f"{e.symbol}: {e.code_bytes} bytes of code, frame {e.frame_bytes} bytes")
    print(f"wrote {s} and {h}")
    return 0
