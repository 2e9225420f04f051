"""The `aedsl` command line. Each subcommand lives in `aedsl/commands/<name>.py`, which provides
`HELP`, `add_arguments(parser)` and `run(args) -> int` (the exit code).

All error handling of the commands is here: a command raises, and `main` turns the exception
into one line on stderr and an exit code, never a traceback:
- 2, bad input or an unusable set-up (`_user_errors`: a spec error with its caret display, a
  knob, an option, a file that cannot be read or parsed, a call that does not fit);
- 1, valid input the compiler cannot translate for this variant (`_compiler_limits`), or a run
  that failed (`_run_failures`: a fault or the step limit in the simulator, a wrong result);
- argparse's own errors (a malformed option) also exit 2 with one line.
Anything else is a bug and keeps its traceback."""
from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = ("check", "ir", "kat", "compile", "bench", "explore", "generate", "sim", "chips", "ct")


def _module(name: str):
    return importlib.import_module(f"aedsl.commands.{name}")


class _Parser(argparse.ArgumentParser):
    """argparse with its error on one line (the usage is one `--help` away)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
    from aedsl.chips import UnknownChipError
    from aedsl.commands.options import UsageError
    from aedsl.ct.dynamic import NothingToRun
    from aedsl.frontend.diagnostics import SpecError
    from aedsl.knobs import KnobError
    from aedsl.sim.elf import ElfError
    from aedsl.sim.harness import CallArgumentError
    from aedsl.toolchain import ToolchainError
    from aedsl.vectors.records import VectorFormatError, VectorKindError
    return (SpecError, KnobError, UsageError, UnknownChipError, ElfError, CallArgumentError,
            VectorFormatError, VectorKindError, ToolchainError, NothingToRun, OSError)


def _compiler_limits() -> tuple[type[Exception], ...]:
    """Valid input the compiler cannot (yet) translate for this target: a clear one-line message
    naming the reason and exit code 1, so a user can tell it from a mistake in the spec."""
    from aedsl.codegen.regalloc import RegAllocError
    from aedsl.codegen.select_base import SelectError
    from aedsl.ir.passes.legalize import LegalizeError
    return (SelectError, RegAllocError, LegalizeError)


def _run_failures() -> tuple[type[Exception], ...]:
    """The input was accepted, but running it failed: a fault or the step limit in the simulator,
    a measurement whose result is wrong. Exit code 1."""
    from aedsl.bench import MeasurementError
    from aedsl.sim.base import SimError
    return (SimError, MeasurementError)


def _message(e: Exception) -> str:
    if isinstance(e, OSError) and e.filename is not None:
        return f"{e.filename}: {e.strerror or e}"
    return str(e)


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, or argparse's own one-line error
        return e.code if isinstance(e.code, int) else 2
    prefix = f"aedsl {args.command}"
    try:
        return args._run(args)
    except _user_errors() as e:
        print(e.render() if hasattr(e, "render") else f"{prefix}: error: {_message(e)}", file=sys.stderr)
        return 2
    except _compiler_limits() as e:
        print(f"{prefix}: cannot compile this variant: {e}", file=sys.stderr)
        return 1
    except _run_failures() as e:
        print(f"{prefix}: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
