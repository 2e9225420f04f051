"""`aedsl explore SPEC --chip CHIP --sweep KNOB=V1,V2,... [--sweep ...] [-k KNOB=V]... [--sizes LIST]
[--ad-len N] [--key-setup include|exclude] [--sample N] [--jobs N | --dask ADDRESS] [--csv FILE]
[--plot FILE.png] [--json] [--no-cache]`: every combination of the swept knob values compiled,
verified on a vector sample, measured (aedsl/explore/ does the work), printed as a table with the
Pareto front of ROM against cycles/byte marked, optionally written as CSV and as a PNG with the
papers' figures on the same workload drawn beside ours.

A variant that does not compile, does not fit or gives wrong results is listed with its reason and
the sweep goes on. Exit 0 when at least one variant was measured and none gave wrong results, 1
otherwise; 2 on a usage error (an unknown knob or value is refused before any work starts)."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from .options import UsageError, add_knob_argument, byte_count, chip_name, message_sizes, positive_int

HELP = "sweep knobs of a spec on a chip: compile, verify and measure every variant; CSV, Pareto plot"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="spec file (.ae)")
    p.add_argument("--chip", required=True, type=chip_name, help="chip name (aedsl/chips/*.toml) or path of a chip file")
    p.add_argument("--sweep", action="append", default=[], metavar="KNOB=V1,V2,...",
                   help="a knob and the values to try (repeatable: every combination is compiled)")
    add_knob_argument(p, help="a knob fixed for every variant (repeatable)")
    p.add_argument("--sizes", type=message_sizes, default=None, metavar="LIST",
                   help="AEAD message sizes, comma-separated byte counts or 'ipi' (default 16,ipi,4096)")
    p.add_argument("--ad-len", type=byte_count, default=0, help="AEAD associated data bytes (default 0)")
    p.add_argument("--key-setup", choices=("include", "exclude"), default="exclude",
                   help="AEAD: measure key expansion with every message or not (as aedsl bench; default exclude)")
    p.add_argument("--sample", type=positive_int, default=8, help="vectors run on each variant before it is measured (default 8)")
    p.add_argument("--jobs", type=positive_int, default=None,
                   help="worker processes (default: the machine's CPUs; 1 runs in this process)")
    p.add_argument("--dask", metavar="ADDRESS", help="hand the variants to this dask.distributed scheduler instead")
    p.add_argument("--csv", metavar="FILE", help="write one row per variant")
    p.add_argument("--plot", metavar="FILE.png", help="write ROM against cycles/byte with the Pareto front")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--no-cache", action="store_true", help="measure every variant again (the results are still stored)")


def run(args: argparse.Namespace) -> int:
    from aedsl import bench, chips
    from aedsl.explore import grid, plot, report, sweep
    from aedsl.explore.cache import Cache
    from aedsl.explore.task import Task
    from aedsl.knobs import parse_knobs

    if not args.sweep:
        raise UsageError("give at least one --sweep KNOB=V1,V2,... (aedsl bench measures a single variant)")
    if args.dask and args.jobs:
        raise UsageError("--jobs and --dask exclude each other (the dask cluster has its own workers)")
    if args.plot and Path(args.plot).suffix.lower() != ".png":
        raise UsageError(f"--plot {args.plot}: the plot is a PNG file (FILE.png)")
    if not Path(args.spec).is_file():
        raise FileNotFoundError(2, "No such file", args.spec)
    chip = chips.load(args.chip)
    swept, fixed = grid.parse_sweep(args.sweep), parse_knobs(args.knob)
    combos = grid.combinations(swept, fixed)
    sizes = args.sizes or bench.DEFAULT_SIZES
    tasks = [Task(str(args.spec), chip.name, tuple(sorted(k.items())), tuple(sizes), args.ad_len, args.key_setup,
                  args.sample) for k in combos]
    cache = Cache()
    if args.no_cache:
        cache.get = lambda key: None
    if not sweep.all_cached(tasks, cache):
        # (a variant in the cache was checked when it was measured: same spec text, same compiler)
        grid.check(args.spec, chip, swept, fixed)
    with sweep.executor(args.jobs or os.cpu_count() or 1, args.dask) as pool:
        outcomes, hits = sweep.run(tasks, pool, cache, progress=not args.json)

    names = [n for n, _ in swept] + list(fixed)
    metric = report.plot_metric(outcomes, tuple(sizes))
    stem = Path(args.spec).stem
    if args.csv:
        Path(args.csv).write_text(report.to_csv(stem, chip.name, names, outcomes, metric))
    if args.plot:
        title = (f"{stem} on {chip.name}: " + ", ".join(f"{n} in {{{','.join(v)}}}" for n, v in swept)
                 + "".join(f", {k}={v}" for k, v in fixed.items()))
        plot.write(args.plot, title, [n for n, _ in swept], outcomes, metric)
    if args.json:
        print(report.to_json(stem, chip.name, names, outcomes, metric, hits))
    else:
        print(report.text(stem, chip.name, names, outcomes, metric, hits))
        for what, f in (("CSV", args.csv), ("plot", args.plot)):
            if f:
                print(f"wrote {what} {f}")
    wrong = any(o.reason.startswith("wrong results") for o in outcomes)
    return 0 if any(o.ok for o in outcomes) and not wrong else 1
