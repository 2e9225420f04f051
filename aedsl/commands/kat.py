"""`aedsl kat`: run known-answer vectors through an engine and print `N passed, M failed`.

Exit status: 0 when no vector failed (and at least one ran), 1 when some failed or all were
skipped, 2 for usage errors (unknown source/engine, unreadable file; `aedsl.cli` prints them)."""
from __future__ import annotations

import argparse

from .options import UsageError, add_knob_argument, byte_count, chip_name, positive_int

HELP = "run known-answer test vectors (file or source name) through an engine"

ENGINE_FORMS = ("ref:<name> (reference library; plain `ref` = the source's own), interp (IR interpreter), "
                "sim (generated code in the --chip simulator)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", nargs="?", help="spec file (.ae); not needed for ref: engines")
    add_knob_argument(p, help="bind a spec knob (repeatable)")
    p.add_argument("--vectors", metavar="FILE_OR_SOURCE",
                   help="vector file, or a source name such as cavp:ccm:DVPT128 (see --list)")
    p.add_argument("--engine", default=None,
                   help=ENGINE_FORMS + ". Default: sim with --chip, else interp with a SPEC, else ref")
    p.add_argument("--chip", type=chip_name, help="chip name or chip-file path, for simulator engines")
    from aedsl.vectors import READERS
    p.add_argument("--format", dest="fmt", choices=sorted(READERS),
                   help="vector format, when detection from name and content is not wanted")
    p.add_argument("--tag-len", type=positive_int, help="tag bytes in CT of LWC-format files (default: inferred)")
    p.add_argument("--per-section", type=positive_int,
                   help="CAVP GCM: keep the first N cases of each section (deterministic sample)")
    p.add_argument("--every", type=positive_int,
                   help="keep vectors 0, N, 2N, .. and the last of the file (deterministic sample)")
    p.add_argument("--max-failures", type=byte_count, default=10, help="failures printed in full (default 10)")
    p.add_argument("--list", action="store_true", help="list the vector source names and exit")


def make_engine(name: str, spec: str | None, knobs: dict, chip: str | None, source=None):
    """The engine object for `--engine` (see ENGINE_FORMS)."""
    if name == "ref" or name.startswith("ref:"):
        from aedsl.engines import reference as refengines
        ref = name[4:] if name.startswith("ref:") else (source.engine if source else "")
        if not ref:
            raise UsageError("plain `ref` needs a named vector source with a reference engine; use ref:<name>")
        if ref not in refengines.REF_ENGINES:
            raise UsageError(f"no reference engine {ref!r}; known: {', '.join(sorted(refengines.REF_ENGINES))}")
        return refengines.get(ref)
    if name == "interp":
        if not spec:
            raise UsageError("engine interp needs a SPEC argument")
        try:
            from aedsl.engines.interp import interp_engine
        except ImportError as e:
            raise UsageError(f"engine interp is not available yet (aedsl.engines.interp.interp_engine: {e})") from None
        return interp_engine(spec, knobs)
    if name == "sim":
        if not spec or not chip:
            raise UsageError("engine sim needs a SPEC argument and --chip")
        from aedsl.engines.sim import sim_engine
        return sim_engine(spec, knobs, chip)
    raise UsageError(f"unknown engine {name!r}; forms: {ENGINE_FORMS}")


def run(args: argparse.Namespace) -> int:
    import sys

    from aedsl import vectors
    from aedsl.knobs import parse_knobs
    from aedsl.vectors import runner, sources

    if args.list:
        for s in sources.SOURCES.values():
            print(f"{s.name:30} {('ref:' + s.engine) if s.engine else '':24} {s.about}")
        return 0
    if not args.vectors:
        raise UsageError("--vectors FILE_OR_SOURCE is required")
    options = {}
    if args.tag_len is not None:
        options["tag_len"] = args.tag_len
    if args.per_section is not None:
        options["per_section"] = args.per_section
    if args.every is not None:
        options["every"] = args.every
    # `aedsl kat SPEC --chip CHIP` means the generated code in that chip's simulator (it used to
    # fall back to the reference library, which made such a run check nothing of ours)
    engine_name = args.engine or ("sim" if args.chip else "interp" if args.spec else "ref")
    if args.chip and engine_name != "sim":
        raise UsageError(f"--chip is for the sim engine, not {engine_name}")
    knobs = parse_knobs(args.knob)
    source = sources.SOURCES.get(args.vectors)
    engine = make_engine(engine_name, args.spec, knobs, args.chip, source)
    vecs = vectors.load(args.vectors, fmt=args.fmt, **options)
    report = runner.run(engine, vecs, keep=args.max_failures)
    print(report)
    if report.passed == 0 and report.failed == 0:
        print("aedsl kat: error: no vector ran (all skipped)", file=sys.stderr)
        return 1
    return 0 if report.ok else 1
