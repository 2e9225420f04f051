"""`aedsl kat`: run known-answer vectors through an engine and print `N passed, M failed`.

Exit status: 0 when no vector failed (and at least one ran), 1 when some failed or all were
skipped, 2 for usage errors (unknown source/engine, unreadable file)."""
from __future__ import annotations

import argparse
import sys

HELP = "run known-answer test vectors (file or source name) through an engine"

ENGINE_FORMS = ("ref:<name> (reference library; plain `ref` = the source's own), interp (IR interpreter), "
                "sim (generated code in the --chip simulator)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", nargs="?", help="spec file (.ae); not needed for ref: engines")
    p.add_argument("-k", "--knob", action="append", default=[], metavar="KNOB=VALUE",
                   help="bind a spec knob (repeatable)")
    p.add_argument("--vectors", metavar="FILE_OR_SOURCE",
                   help="vector file, or a source name such as cavp:ccm:DVPT128 (see --list)")
    p.add_argument("--engine", default=None,
                   help=ENGINE_FORMS + ". Default: sim with --chip, else interp with a SPEC, else ref")
    p.add_argument("--chip", help="chip name, for simulator engines")
    from aedsl.vectors import READERS
    p.add_argument("--format", dest="fmt", choices=sorted(READERS),
                   help="vector format, when detection from name and content is not wanted")
    p.add_argument("--tag-len", type=int, help="tag bytes in CT of LWC-format files (default: inferred)")
    p.add_argument("--per-section", type=int,
                   help="CAVP GCM: keep the first N cases of each section (deterministic sample)")
    p.add_argument("--max-failures", type=int, default=10, help="failures printed in full (default 10)")
    p.add_argument("--list", action="store_true", help="list the vector source names and exit")


def parse_knobs(items: list[str]) -> dict[str, int | str]:
    knobs: dict[str, int | str] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise ValueError(f"knob {item!r} is not KNOB=VALUE")
        value = value.strip()
        try:
            knobs[name.strip()] = int(value, 0)
        except ValueError:
            knobs[name.strip()] = value
    return knobs


def make_engine(name: str, spec: str | None, knobs: dict, chip: str | None, source=None):
    """The engine object for `--engine` (see ENGINE_FORMS)."""
    if name == "ref" or name.startswith("ref:"):
        from aedsl.engines import reference as refengines
        ref = name[4:] if name.startswith("ref:") else (source.engine if source else "")
        if not ref:
            raise ValueError("plain `ref` needs a named vector source with a reference engine; use ref:<name>")
        return refengines.get(ref)
    if name == "interp":
        if not spec:
            raise ValueError("engine interp needs a SPEC argument")
        try:
            from aedsl.engines.interp import interp_engine
        except ImportError as e:
            raise ValueError(f"engine interp is not available yet (aedsl.engines.interp.interp_engine: {e})") from None
        return interp_engine(spec, knobs)
    if name == "sim":
        if not spec or not chip:
            raise ValueError("engine sim needs a SPEC argument and --chip")
        from aedsl.engines.sim import sim_engine
        return sim_engine(spec, knobs, chip)
    raise ValueError(f"unknown engine {name!r}; forms: {ENGINE_FORMS}")


def run(args: argparse.Namespace) -> int:
    from aedsl import vectors
    from aedsl.vectors import runner, sources

    if args.list:
        for s in sources.SOURCES.values():
            print(f"{s.name:30} {('ref:' + s.engine) if s.engine else '':24} {s.about}")
        return 0
    if not args.vectors:
        print("error: --vectors FILE_OR_SOURCE is required", file=sys.stderr)
        return 2
    options = {}
    if args.tag_len is not None:
        options["tag_len"] = args.tag_len
    if args.per_section is not None:
        options["per_section"] = args.per_section
    # `aedsl kat SPEC --chip CHIP` means the generated code in that chip's simulator (it used to
    # fall back to the reference library, which made such a run check nothing of ours)
    engine_name = args.engine or ("sim" if args.chip else "interp" if args.spec else "ref")
    if args.chip and engine_name != "sim":
        print(f"error: --chip is for the sim engine, not {engine_name}", file=sys.stderr)
        return 2
    try:
        knobs = parse_knobs(args.knob)
        source = sources.SOURCES.get(args.vectors)
        engine = make_engine(engine_name, args.spec, knobs, args.chip, source)
        vecs = vectors.load(args.vectors, fmt=args.fmt, **options)
    except (ValueError, KeyError, OSError, TypeError) as e:
        print(f"error: {e.args[0] if isinstance(e, KeyError) else e}", file=sys.stderr)
        return 2
    report = runner.run(engine, vecs, keep=args.max_failures)
    print(report)
    if report.passed == 0 and report.failed == 0:
        print("error: no vector ran (all skipped)", file=sys.stderr)
        return 1
    return 0 if report.ok else 1
