"""The `aedsl` command line. Each subcommand lives in `aedsl/commands/<name>.py`, which provides
`HELP`, `add_arguments(parser)` and `run(args) -> int` (the exit code)."""
from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = ("check", "ir", "kat", "compile", "bench", "sim")


def _module(name: str):
    return importlib.import_module(f"aedsl.commands.{name}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aedsl", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        try:
            mod = _module(name)
        except ModuleNotFoundError as e:
            if e.name != f"aedsl.commands.{name}":
                raise
            continue  # command not implemented yet
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args._run(args)


if __name__ == "__main__":
    sys.exit(main())
