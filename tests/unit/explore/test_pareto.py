"""The Pareto front of `aedsl explore`, on synthetic points: the `pareto` column of a CSV written
from made-up outcomes must name exactly the rows no other row beats on ROM and cycles/byte."""
import csv
import io
import random

from aedsl.explore import report
from aedsl.explore.pareto import front
from aedsl.explore.task import Outcome

RNG_SEED = 12


def test_front_by_hand():
    pts = {"a": (100, 50.0), "b": (200, 40.0), "c": (200, 45.0), "d": (50, 90.0), "e": (300, 40.0),
           "f": (100, 50.0), "g": None}
    # c is beaten by b; e by b (same cpb, more ROM); a and f are equal, so both stay; g was not measured
    assert front(pts) == {"a", "b", "d", "f"}
    assert front({}) == set() and front({"x": None}) == set() and front({"x": (1, 1.0)}) == {"x"}


def _outcomes(rng, n):
    out = []
    for i in range(n):
        o = Outcome(knobs={"unroll": str(i % 3), "tables": f"t{i}"})
        if rng.random() < 0.15:
            o.reason = "does not fit: region `FLASH' overflowed by 12 bytes"
        else:
            o.ok, o.rom_bytes, o.ram_bytes, o.stack_bytes = True, rng.randrange(200, 20000), 0, rng.randrange(60)
            o.metrics = {"enc_cpb": round(rng.uniform(80, 500), 1), "dec_cpb": 1.0, "key_schedule_cycles": 10.0}
            o.verified = "fips197: 1 passed"
        out.append(o)
    return out


def test_csv_pareto_column_on_synthetic_sweeps(rng):
    for _ in range(20):
        outcomes = _outcomes(rng, rng.randrange(1, 30))
        text = report.to_csv("aes", "msp430f5528", ["unroll", "tables"], outcomes, "enc_cpb")
        rows = list(csv.DictReader(io.StringIO(text)))
        assert len(rows) == len(outcomes)
        measured = [(i, int(r["rom_bytes"]), float(r["enc_cpb"])) for i, r in enumerate(rows) if r["rom_bytes"]]
        expect = {i for i, rom, cpb in measured
                  if not any(r2 <= rom and c2 <= cpb and (r2, c2) != (rom, cpb) for _, r2, c2 in measured)}
        assert {i for i, r in enumerate(rows) if r["pareto"] == "yes"} == expect
        for r, o in zip(rows, outcomes):
            assert (r["reason"] == o.reason) and (bool(r["rom_bytes"]) == o.ok)


def test_plot_metric():
    block = [Outcome(knobs={}, ok=True, metrics={"enc_cpb": 1.0})]
    aead = [Outcome(knobs={}, ok=True, metrics={"enc_cpb_16": 1.0, "enc_cpb_ipi": 2.0, "enc_cpb_4096": 3.0})]
    assert report.plot_metric(block, ("16",)) == "enc_cpb"
    assert report.plot_metric(aead, ("16", "ipi", "4096")) == "enc_cpb_ipi"
    assert report.plot_metric(aead, ("0", "16", "4096")) == "enc_cpb_4096"
    assert report.plot_metric([Outcome(knobs={})], ("16",)) is None


def test_random_fronts_are_antichains():
    rng = random.Random(RNG_SEED)
    pts = {i: (rng.randrange(50), rng.randrange(50)) for i in range(200)}
    f = front(pts)
    assert f and all(not (pts[a][0] <= pts[b][0] and pts[a][1] <= pts[b][1] and pts[a] != pts[b])
                     for a in f for b in f)
