"""What the subcommands share about their arguments: `UsageError` (a bad combination of
arguments, which `aedsl.cli` prints as one line with exit code 2), the `-k` option, and argparse
types that validate a value where it is read (a positive integer, a chip name, a byte count, a
`--arg` of `aedsl sim`), so a bad number is refused before any work starts."""
from __future__ import annotations

import argparse

# Largest buffer or message a command line may ask for: the simulators' memories are 64 KB or
# less, so anything bigger cannot be placed and would only cost time and memory to refuse later.
MAX_BYTES = 1 << 20


class UsageError(ValueError):
    """Arguments that are each well-formed but do not fit together (or name nothing)."""


def add_knob_argument(p: argparse.ArgumentParser, help: str = "bind a knob (repeatable)") -> None:
    """`-k NAME=VALUE`, repeatable; parse the list with `aedsl.knobs.parse_knobs`."""
    p.add_argument("-k", "--knob", action="append", default=[], metavar="NAME=VALUE", help=help)


def _int(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def positive_int(text: str) -> int:
    """An integer >= 1 (decimal or 0x..)."""
    n = _int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected an integer >= 1")
    return n


def byte_count(text: str) -> int:
    """A number of bytes, 0 .. MAX_BYTES."""
    n = _int(text)
    if not 0 <= n <= MAX_BYTES:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a byte count 0..{MAX_BYTES}")
    return n


def chip_name(text: str) -> str:
    """The name of a chip file in aedsl/chips/, or the path of a chip's TOML file (read here, so
    a missing or incomplete file is refused before any work starts)."""
    from aedsl import chips
    try:
        chips.load(text)
    except chips.UnknownChipError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def message_sizes(text: str) -> tuple[str, ...]:
    """`aedsl bench --sizes`: comma-separated byte counts or `ipi`, at least one."""
    from aedsl import bench
    if not text.strip():
        raise argparse.ArgumentTypeError("expected at least one size (byte counts or 'ipi', comma-separated)")
    try:
        sizes = bench.parse_sizes(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    for s in sizes:
        if s != "ipi" and int(s) > MAX_BYTES:
            raise argparse.ArgumentTypeError(f"message size {s}: at most {MAX_BYTES} bytes")
    return sizes


def call_argument(text: str):
    """`aedsl sim --arg`: an integer (0x.. allowed), hex:BYTES (a buffer passed by pointer) or
    zeros:N (an N-byte zeroed buffer)."""
    from aedsl.sim.harness import Buffer
    form = "expected an integer, hex:BYTES or zeros:N"
    if text.startswith("hex:"):
        try:
            data = bytes.fromhex(text[4:])
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad --arg {text!r}: {form}") from None
        if len(data) > MAX_BYTES:
            raise argparse.ArgumentTypeError(f"bad --arg {text[:20]!r}...: more than {MAX_BYTES} bytes")
        return data
    if text.startswith("zeros:"):
        try:
            n = int(text[6:], 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad --arg {text!r}: {form}") from None
        if not 0 <= n <= MAX_BYTES:
            raise argparse.ArgumentTypeError(f"bad --arg {text!r}: zeros:N needs 0 <= N <= {MAX_BYTES}")
        return Buffer(n)
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad --arg {text!r}: {form}") from None
