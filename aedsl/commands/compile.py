"""`aedsl compile SPEC --chip CHIP [-k knob=value]... -o DIR`: write the generated assembly (.S)
and its C header (.h) for one spec variant. Exit 0 on success, 2 on a usage or spec error, 1 if
the compiler cannot translate this variant (`aedsl.cli` reports the errors)."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from .options import UsageError, add_knob_argument, chip_name

HELP = "compile a spec to assembly (.S) and a C header (.h) for a chip"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="spec file (.ae)")
    p.add_argument("--chip", required=True, type=chip_name, help="chip name (aedsl/chips/*.toml) or path of a chip file")
    add_knob_argument(p)
    p.add_argument("-o", "--out", required=True, metavar="DIR", help="output directory")


def check_out_dir(out: str) -> None:
    """UsageError unless `out` is a folder or can be made one (checked before compiling, so a
    bad -o does not cost a whole compile)."""
    path = Path(out)
    if path.exists():
        if not path.is_dir():
            raise UsageError(f"-o {out}: exists and is not a folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"-o {out}: the folder is not writable")
        return
    parent = path.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"-o {out}: cannot make the folder, {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"-o {out}: cannot make the folder, {parent} is not writable")


def run(args: argparse.Namespace) -> int:
    from aedsl.driver import compile_spec
    from aedsl.knobs import parse_knobs

    knobs = parse_knobs(args.knob)
    check_out_dir(args.out)
    unit = compile_spec(args.spec, args.chip, knobs)
    s, h = unit.write(args.out)
    for e in unit.entries.values():
        print(f"{e.symbol}: {e.code_bytes} bytes of code, frame {e.frame_bytes} bytes")
    print(f"wrote {s} and {h}")
    return 0
