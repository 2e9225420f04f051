"""Golden tests of the IR passes: `golden/<pass>/<case>.ae` is a small spec, `<case>.out` the
printed IR after the pipeline has run through stage <pass> (aedsl/ir/pipeline.py).

A case's header line `// golden: KEY=VALUE ...` sets pass knobs (word_bits=16, table_fusion=
rotate, inline=entries, ...) and optionally `from=STAGE`, the first stage run (the earlier ones
are skipped, to show one pass's effect alone). Without `from` the output is what
`aedsl ir CASE.ae --after PASS -P KEY=VALUE ...` prints. Each case must also change the IR
(the output differs from the IR before the stage), so that it shows what the pass does. A file
whose header says `// golden: used` is no case but a spec the cases beside it `use` (a pass
that acts on a used spec's functions: affine_tables).

    AEDSL_UPDATE_GOLDEN=1 python -m pytest tests/unit/passes/test_golden.py   # rewrite the .out files
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.printer import print_module

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("AEDSL_UPDATE_GOLDEN") == "1"


def header(path: Path) -> dict[str, str]:
    """The KEY=VALUE pairs of the case's `// golden:` lines."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        m = re.match(r"\s*//\s*golden:(.*)", line)
        if m:
            for item in m.group(1).split():
                key, _, value = item.partition("=")
                out[key] = value
    return out


CASES = sorted(p for p in GOLDEN.glob("*/*.ae") if "used" not in header(p))


def run_case(path: Path) -> tuple[str, str]:
    """(IR before the case's stage, IR after it), printed."""
    stage = path.parent.name
    knobs = header(path)
    first = knobs.pop("from", pipeline.STAGES[0])
    stages = pipeline.STAGES
    skip = frozenset(stages[:stages.index(first)])
    module = load_module(path, {})
    at = stages.index(stage)
    assert stages.index(first) <= at, f"{path.name}: from={first} comes after {stage}"
    earlier = [s for s in stages[:at] if s not in skip]
    before = pipeline.run(module, knobs, until=earlier[-1], skip=skip) if earlier else module
    after = pipeline.run(module, knobs, until=stage, skip=skip)
    return print_module(before), print_module(after)


def test_every_pipeline_stage_has_two_cases():
    for stage in pipeline.STAGES:
        assert sum(1 for p in CASES if p.parent.name == stage) >= 2, stage
    assert {p.parent.name for p in CASES} <= set(pipeline.STAGES)


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_golden(path):
    before, after = run_case(path)
    assert after != before, f"{path.parent.name}/{path.name}: the pass changes nothing here"
    expected = path.with_suffix(".out")
    if UPDATE:
        expected.write_text(after)
    assert expected.exists(), f"{expected} is missing (AEDSL_UPDATE_GOLDEN=1 writes it)"
    assert after == expected.read_text()
