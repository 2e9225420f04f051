#!/usr/bin/env python3
"""Regenerate generated/: every spec x chip at its default knobs that compiles and fits the chip.

    .venv/bin/python tools/regen_generated.py            # write generated/<target>/<chip>/<stem>.S/.h
    .venv/bin/python tools/regen_generated.py --check    # exit 1 if a committed file differs

A variant is kept when it compiles, assembles and links into the chip's flash and RAM (the
toolchain's generated linker script). Extra variants beyond the defaults are listed in EXTRA
(SPECK's two parameter sets the papers measure). Files of variants that no longer build are
reported, not deleted (--prune deletes them). tests/unit/targets/test_generated.py
regenerates each committed file from the spec and knobs written in its header and diffs it.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SPEC_DIRS = ("specs/primitives", "specs/schemes")
# spec stem -> extra knob sets compiled besides the defaults
EXTRA = {"speck": [{"block_bits": 64, "key_bits": 128}, {"block_bits": 128, "key_bits": 128}]}


def variants():
    for d in SPEC_DIRS:
        for spec in sorted((ROOT / d).glob("*.ae")):
            for knobs in EXTRA.get(spec.stem, [{}]):
                yield spec, knobs


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
    for d in SPEC_DIRS:
        p = ROOT / d / name
        if p.exists():
            return p
    raise FileNotFoundError(f"no spec {name} under {', '.join(SPEC_DIRS)}")


def build_one(spec: Path, chip, knobs: dict):
    """The Compiled unit if it compiles and links for `chip`, else (None, reason)."""
    from aedsl import toolchain
    from aedsl.driver import compile_spec
    try:
        unit = compile_spec(spec, chip, knobs)
    except Exception as e:                              # a spec the backend cannot compile yet
        return None, f"compile: {str(e).splitlines()[0][:120]}"
    if not unit.entries:
        return None, "no exported functions"
    with tempfile.TemporaryDirectory() as tmp:
        s, _ = unit.write(tmp)
        try:
            obj = toolchain.assemble(s, Path(tmp) / "u.o", chip)
            toolchain.link([obj], Path(tmp) / "u.elf", chip)
        except toolchain.ToolchainError as e:
            lines = [ln for ln in str(e).splitlines() if "overflow" in ln or "error" in ln.lower()]
            return None, f"does not fit/link: {(lines or ['?'])[0][-120:]}"
    return unit, ""


def main(argv=None) -> int:
    from aedsl import chips
    from aedsl.backends.registry import has_target, target_for
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on a difference")
    ap.add_argument("--prune", action="store_true", help="delete generated files no variant produced")
    ap.add_argument("--chip", action="append", help="only these chips")
    args = ap.parse_args(argv)
    out_root = ROOT / "generated"
    produced, differ = set(), []
    for chip_name in args.chip or chips.names():
        chip = chips.load(chip_name)
        if not has_target(chip):
            continue
        target = target_for(chip).name
        for spec, knobs in variants():
            unit, why = build_one(spec, chip, knobs)
            rel = f"{target}/{chip.name}"
            if unit is None:
                print(f"skip  {rel}/{spec.stem} {knobs or ''}: {why}")
                continue
            d = out_root / target / chip.name
            for suffix, text in ((".S", unit.asm), (".h", unit.header)):
                f = d / f"{unit.stem}{suffix}"
                produced.add(f)
                if args.check:
                    if not f.exists() or f.read_text() != text:
                        differ.append(f)
                else:
                    d.mkdir(parents=True, exist_ok=True)
                    f.write_text(text)
            print(f"{'ok   ' if not args.check else 'check'} {rel}/{unit.stem}")
    stale = sorted((set(out_root.rglob("*.S")) | set(out_root.rglob("*.h"))) - produced) if not args.chip else []
    for f in stale:
        print(f"stale {f.relative_to(ROOT)}" + (" (deleted)" if args.prune and not args.check else ""))
        if args.prune and not args.check:
            f.unlink()
    for f in differ:
        print(f"DIFFERS {f.relative_to(ROOT)}")
    # with --check a committed file that no variant produces any more (it stopped compiling, or
    # its name changed) is a difference too
    return 1 if differ or (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
