"""What a sweep hands back: the CSV (one row per variant: knobs, cycles/byte per size, ROM, RAM,
stack, verification, Pareto membership, the reason a variant failed), the text table
`aedsl explore` prints, the JSON of `--json`, and the papers' figures measured on the same workload.

The plotted metric: block ciphers, encryption cycles/byte of one block (`enc_cpb`); AEAD schemes,
encryption cycles/byte at IPI when it was measured, else at the largest measured size."""
from __future__ import annotations

import csv
import io
import json
from types import SimpleNamespace

from aedsl import papers

from .pareto import front
from .task import Outcome


def plot_metric(outcomes: list[Outcome], sizes: tuple[str, ...]) -> str | None:
    """The metrics column plotted against ROM (see the module docstring)."""
    cols = next((o.metrics for o in outcomes if o.ok), None)
    if cols is None:
        return None
    if "enc_cpb" in cols:
        return "enc_cpb"
    if "ipi" in sizes:
        return "enc_cpb_ipi"
    nonzero = [s for s in sizes if s != "0"]
    return f"enc_cpb_{max(nonzero, key=int)}" if nonzero else None


def points(outcomes: list[Outcome], metric: str | None) -> dict[int, tuple[float, float] | None]:
    """Variant index -> (ROM, metric) for every measured variant, None for the others."""
    return {i: (o.rom_bytes, o.metrics[metric]) if o.ok and metric and o.metrics.get(metric) is not None else None
            for i, o in enumerate(outcomes)}


def pareto(outcomes: list[Outcome], metric: str | None) -> set[int]:
    return front(points(outcomes, metric))


def paper_figures(outcomes: list[Outcome], metric: str | None) -> list[papers.Figure]:
    """The papers' figures whose workload (chip, algorithm, operation, message and AD length, key
    setup) one of the measured variants matches, for the plotted metric's operation and size."""
    recs = [SimpleNamespace(**r) for o in outcomes if o.ok for r in o.records]
    if not metric:
        return []
    size = None if metric == "enc_cpb" else metric.rsplit("_", 1)[1]
    return [f for f, _ in papers.matching(recs)
            if f.op in ("encrypt", "encrypt_block") and (size is None or str(f.msg_len) == size)]


def knob_text(knobs: dict, names: list[str]) -> str:
    return " ".join(f"{k}={knobs[k]}" for k in names if k in knobs)


def _fmt(v) -> str:
    if v is None:
        return ""
    return f"{v:.1f}" if isinstance(v, float) else str(v)


def metric_columns(outcomes: list[Outcome]) -> list[str]:
    cols: list[str] = []
    for o in outcomes:
        cols += [c for c in o.metrics if c not in cols]
    return cols


def to_csv(spec: str, chip: str, names: list[str], outcomes: list[Outcome], metric: str | None) -> str:
    """The CSV text (`names`: the knob columns, swept ones first)."""
    front_ = pareto(outcomes, metric)
    mcols = metric_columns(outcomes)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["spec", "chip", *names, "variant_knobs", "verified", "rom_bytes", "ram_bytes", "stack_bytes",
                *mcols, "pareto", "reason"])
    for i, o in enumerate(outcomes):
        w.writerow([spec, chip, *(o.knobs.get(n, "") for n in names),
                    " ".join(f"{k}={v}" for k, v in sorted(o.variant_knobs.items())), o.verified,
                    _fmt(o.rom_bytes), _fmt(o.ram_bytes), _fmt(o.stack_bytes),
                    *(_fmt(o.metrics.get(c)) for c in mcols), "yes" if i in front_ else "", o.reason])
    return buf.getvalue()


def text(spec: str, chip: str, names: list[str], outcomes: list[Outcome], metric: str | None, hits: int) -> str:
    """The table `aedsl explore` prints: measured variants, then failed ones with their reason,
    then the papers' figures on the same workload."""
    front_ = pareto(outcomes, metric)
    mcols = metric_columns(outcomes)
    ok = [i for i, o in enumerate(outcomes) if o.ok]
    lines = [f"{spec} on {chip}: {len(outcomes)} variants, {len(ok)} measured, {len(outcomes) - len(ok)} failed"
             f" ({hits} from the cache); * = on the Pareto front of ROM and {metric or '-'}"]
    widths = [max(len(n), *(len(str(outcomes[i].knobs.get(n, ""))) for i in ok)) if ok else len(n) for n in names]
    head = [*names, "ROM", "RAM", "stack", *mcols]
    lines.append("  ".join([*(n.ljust(w) for n, w in zip(names, widths)),
                            *(h.rjust(max(len(h), 7)) for h in head[len(names):]), "", "verified"]))
    for i in ok:
        o = outcomes[i]
        cells = [*(str(o.knobs.get(n, "")).ljust(w) for n, w in zip(names, widths)),
                 *(_fmt(v).rjust(max(len(h), 7)) for h, v in zip(head[len(names):],
                   [o.rom_bytes, o.ram_bytes, o.stack_bytes, *(o.metrics.get(c) for c in mcols)])),
                 "*" if i in front_ else " ", o.verified]
        lines.append("  ".join(cells))
    failed = [o for o in outcomes if not o.ok]
    if failed:
        lines.append("not measured:")
        lines += [f"  {knob_text(o.knobs, names) or '(defaults)'}: {o.reason}" for o in failed]
    figs = paper_figures(outcomes, metric)
    if figs:
        lines.append("the papers on the same workload:")
        for f in figs:
            rom = f"ROM {f.rom_bytes} B" if f.rom_bytes is not None else "ROM not stated"
            lines.append(f"  seed {f.seed} ({f.where}) {f.label}: {f.cycles_per_byte:.1f} cycles/byte, {rom}")
    return "\n".join(lines)


def to_json(spec: str, chip: str, names: list[str], outcomes: list[Outcome], metric: str | None, hits: int) -> str:
    front_ = pareto(outcomes, metric)
    return json.dumps({
        "spec": spec, "chip": chip, "knobs": names, "metric": metric, "from_cache": hits,
        "variants": [{**o.as_dict(), "pareto": i in front_} for i, o in enumerate(outcomes)],
        "papers": [{"seed": f.seed, "where": f.where, "label": f.label, "cycles_per_byte": f.cycles_per_byte,
                    "rom_bytes": f.rom_bytes} for f in paper_figures(outcomes, metric)],
    }, indent=1)
