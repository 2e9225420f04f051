"""`aedsl generate [--check] [--out DIR] [--chip NAME]... [--spec NAME]... [--jobs N] [--prune]`:
regenerate `generated/` -- every spec of the library (primitives/ and schemes/) x every chip with a
backend, at the spec's default knobs (and the extra knob sets in EXTRA), written as
`<out>/<target>/<chip>/<stem>.S` and `.h`.

A variant is kept when it compiles, assembles and links into the chip's flash and RAM (the
toolchain's generated linker script); the others are listed with their reason. With `--check`
nothing is written: exit 1 if a committed file differs from the compiler's output, is missing, or
is no longer produced by any variant (stale; with `--chip`/`--spec` only the selected variants are
compared and staleness is not judged). Stale files are reported, and deleted with `--prune`.
Exit 0 otherwise; 2 on a usage error."""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .options import UsageError, chip_name, positive_int

HELP = "regenerate generated/ (every spec x chip at default knobs); --check: exit 1 on any difference"

SPEC_DIRS = ("primitives", "schemes")
# spec stem -> the knob sets compiled instead of the defaults (SPECK's two sets the papers measure)
EXTRA = {"speck": [{"block_bits": 64, "key_bits": 128}, {"block_bits": 128, "key_bits": 128}]}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on any difference")
    p.add_argument("--out", default="generated", metavar="DIR",
                   help="the generated/ folder (default: ./generated, run from the repository root)")
    p.add_argument("--chip", action="append", type=chip_name, default=None, help="only this chip (repeatable)")
    p.add_argument("--spec", action="append", default=None, metavar="STEM",
                   help="only this spec of the library, by file stem, e.g. ccm (repeatable)")
    p.add_argument("--jobs", type=positive_int, default=1, help="worker processes (default 1)")
    p.add_argument("--prune", action="store_true", help="delete generated files that no variant produces")


def spec_files() -> list[Path]:
    from aedsl.resources import specs_dir
    return [p for d in SPEC_DIRS for p in sorted((specs_dir() / d).glob("*.ae"))]


def variants(stems: list[str] | None = None) -> list[tuple[Path, dict]]:
    """(spec file, knobs) of every variant generate writes for one chip."""
    files = spec_files()
    if stems:
        unknown = sorted(set(stems) - {f.stem for f in files})
        if unknown:
            raise UsageError(f"no spec {', '.join(unknown)} in the library's {' and '.join(SPEC_DIRS)}")
        files = [f for f in files if f.stem in stems]
    return [(f, knobs) for f in files for knobs in EXTRA.get(f.stem, [{}])]


def header_info(asm: str) -> tuple[str, dict]:
    """(spec file name, knobs) from a generated .S header ("; spec: X   chip: Y", "; knobs: a=1 b=2")."""
    spec = re.search(r"^[;@] spec: (\S+)", asm, re.M).group(1)
    m = re.search(r"^[;@] knobs: (.*)$", asm, re.M)
    knobs = {}
    if m and "=" in m.group(1):
        for item in m.group(1).split():
            k, _, v = item.partition("=")
            knobs[k] = int(v) if v.lstrip("-").isdigit() else v
    return spec, knobs


def spec_path(name: str) -> Path:
    """A spec of the library by its file name (as a generated header names it)."""
    for f in spec_files():
        if f.name == name:
            return f
    raise FileNotFoundError(f"no spec {name} in the library's {' and '.join(SPEC_DIRS)}")


def build_one(spec: Path, chip_name_: str, knobs: dict) -> tuple[str, str, str] | str:
    """(stem, assembly, header) if the variant compiles and links for the chip, else the reason
    it was left out (one line). Runs in a worker process."""
    from aedsl import chips, toolchain
    from aedsl.driver import compile_spec
    chip = chips.load(chip_name_)
    try:
        unit = compile_spec(spec, chip, knobs)
    except Exception as e:                              # a spec this backend cannot compile (yet)
        return f"compile: {str(e).splitlines()[0][:120]}"
    if not unit.entries:
        return "no exported functions"
    with tempfile.TemporaryDirectory() as tmp:
        s, _ = unit.write(tmp)
        try:
            obj = toolchain.assemble(s, Path(tmp) / "u.o", chip)
            toolchain.link([obj], Path(tmp) / "u.elf", chip)
        except toolchain.ToolchainError as e:
            lines = [ln for ln in str(e).splitlines() if "overflow" in ln or "error" in ln.lower()]
            return f"does not fit/link: {(lines or ['?'])[0][-120:]}"
    return unit.stem, unit.asm, unit.header


def run(args: argparse.Namespace) -> int:
    from aedsl import chips
    from aedsl.backends.registry import has_target, target_for

    out_root = Path(args.out)
    if args.check and not out_root.is_dir():
        raise UsageError(f"{out_root} is not a folder; run from the repository root or pass --out DIR")
    todo = []
    for name in args.chip or chips.names():
        chip = chips.load(name)
        if has_target(chip):
            todo += [(target_for(chip).name, name, spec, knobs) for spec, knobs in variants(args.spec)]
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(build_one, *zip(*[(s, c, k) for _, c, s, k in todo])))
    else:
        results = [build_one(s, c, k) for _, c, s, k in todo]
    produced, differ = set(), []
    for (target, chip, spec, knobs), res in zip(todo, results):
        rel = f"{target}/{chip}"
        if isinstance(res, str):
            print(f"skip  {rel}/{spec.stem} {knobs or ''}: {res}")
            continue
        stem, asm, header = res
        d = out_root / target / chip
        for suffix, text in ((".S", asm), (".h", header)):
            f = d / f"{stem}{suffix}"
            produced.add(f)
            if args.check:
                if not f.exists() or f.read_text() != text:
                    differ.append(f)
            else:
                d.mkdir(parents=True, exist_ok=True)
                f.write_text(text)
        print(f"{'check' if args.check else 'ok   '} {rel}/{stem}")
    selected = not args.chip and not args.spec
    stale = sorted((set(out_root.rglob("*.S")) | set(out_root.rglob("*.h"))) - produced) if selected else []
    for f in stale:
        print(f"stale {f}" + (" (deleted)" if args.prune and not args.check else ""))
        if args.prune and not args.check:
            f.unlink()
    for f in differ:
        print(f"DIFFERS {f}")
    if args.check:
        bad = len(differ) + len(stale)
        print(f"{len(produced) - len(differ)} files as generated" + (f", {bad} differ or are stale" if bad else ""),
              file=sys.stderr if bad else sys.stdout)
    # with --check a committed file that no variant produces any more (it stopped compiling, or
    # its name changed) is a difference too
    return 1 if differ or (args.check and stale) else 0
