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
    parser = argparse.ArgumentParser(
        prog="aedsl",
        description="Compile authenticated-encryption specs to MSP430X and ARMv6-M assembly; "
                    "verify them on official vectors and measure them in cycle-accurate simulators.")
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


def _user_errors() -> tuple[type[Exception], ...]:
    """Errors that describe bad input or an unusable set-up, not a bug: they are printed as one
    clear message (a spec error with its caret) and exit with code 2, never as a traceback."""
    from aedsl.frontend.diagnostics import SpecError
    from aedsl.toolchain import ToolchainError
    from aedsl.vectors.records import VectorFormatError
    return (SpecError, ToolchainError, VectorFormatError)


def _compiler_limits() -> tuple[type[Exception], ...]:
    """Valid input the compiler cannot (yet) translate for this target: a clear one-line message
    naming the reason and exit code 1, so a user can tell it from a mistake in the spec."""
    from aedsl.codegen.regalloc import RegAllocError
    from aedsl.codegen.select_base import SelectError
    from aedsl.ir.passes.legalize import LegalizeError
    return (SelectError, RegAllocError, LegalizeError)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args._run(args)
    except _user_errors() as e:
        print(f"aedsl {args.command}: {e}" if not hasattr(e, "render") else e.render(),
              file=sys.stderr)
        return 2
    except _compiler_limits() as e:
        print(f"aedsl {args.command}: cannot compile this variant: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
