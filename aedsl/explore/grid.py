"""The variants of a sweep: `--sweep KNOB=V1,V2,...` parsed, every combination of the swept values
(the first `--sweep` varies slowest), each merged with the fixed `-k` knobs, and every name and
value checked against the knobs the spec, the IR passes and the chip's target declare -- before
any work starts, so a typo is one usage error, not a sweep of failures."""
from __future__ import annotations

import itertools

from aedsl.knobs import KnobError


def parse_sweep(items: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """`["unroll=1,full", ...]` -> [("unroll", ("1", "full")), ...]; KnobError if malformed, a
    knob is swept twice or a value repeats."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for item in items:
        name, sep, values = item.partition("=")
        name = name.strip()
        vals = tuple(v.strip() for v in values.split(","))
        if not sep or not name or not all(vals):
            raise KnobError(f"bad --sweep {item!r}; write KNOB=V1,V2,...")
        if name in dict(out):
            raise KnobError(f"knob {name} is swept twice")
        if len(set(vals)) != len(vals):
            raise KnobError(f"--sweep {name}: a value is given twice")
        out.append((name, vals))
    return out


def combinations(sweep: list[tuple[str, tuple[str, ...]]], fixed: dict[str, str]) -> list[dict[str, str]]:
    """Every combination of the swept values, with the fixed knobs; KnobError if a knob is both."""
    both = sorted(set(fixed) & {n for n, _ in sweep})
    if both:
        raise KnobError(f"knob {', '.join(both)} is both swept and fixed with -k")
    names = [n for n, _ in sweep]
    return [{**dict(zip(names, combo)), **fixed} for combo in itertools.product(*(v for _, v in sweep))]


def check(spec, chip, sweep: list[tuple[str, tuple[str, ...]]], fixed: dict[str, str]) -> None:
    """KnobError for a knob neither the spec nor the passes nor the target declares, or a value
    it does not take (SpecError if the spec itself does not elaborate)."""
    from aedsl.driver import knob_registry
    from aedsl.frontend.elaborate import load_module
    registry = knob_registry(chip, load_module(spec))
    for name, values in [*sweep, *((k, (v,)) for k, v in fixed.items())]:
        if name not in registry:
            raise KnobError(f"unknown knob {name!r}; this spec on {chip.name} takes: {', '.join(sorted(registry))}")
        for v in values:
            registry[name].check(v)
