"""The sweep's PNG: ROM (x) against cycles/byte (y, the plotted metric of aedsl.explore.report)
for every measured variant, the Pareto front drawn as a staircase with its points labelled by
their knobs, and the papers' figures on the same workload beside ours -- a cross where the paper
states the ROM too, a dashed horizontal line where it states only the cycles/byte."""
from __future__ import annotations

from pathlib import Path

from .report import knob_text, paper_figures, pareto, points


def write(path: str | Path, title: str, names: list[str], outcomes, metric: str | None) -> None:
    """The PNG at `path`; front points are labelled with the knobs in `names` (the swept ones)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    pts = {i: p for i, p in points(outcomes, metric).items() if p is not None}
    front_ = sorted(pareto(outcomes, metric), key=lambda i: pts[i])
    fig = Figure(figsize=(9, 6), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if pts:
        ax.scatter([p[0] for p in pts.values()], [p[1] for p in pts.values()], s=22, color="0.55",
                   label="our variants", zorder=3)
    if front_:
        xs, ys = [pts[i][0] for i in front_], [pts[i][1] for i in front_]
        ax.step(xs, ys, where="post", color="tab:blue", lw=1.2, zorder=2)
        ax.scatter(xs, ys, s=34, color="tab:blue", label="Pareto front (ours)", zorder=4)
        for i in front_:
            ax.annotate(knob_text(outcomes[i].knobs, names) or "defaults", pts[i], xytext=(5, 4),
                        textcoords="offset points", fontsize=7, color="tab:blue")
    for k, f in enumerate(paper_figures(outcomes, metric)):
        label = f"seed {f.seed}: {f.label}"
        color = f"C{(k % 8) + 1}"
        if f.rom_bytes is not None:
            ax.scatter([f.rom_bytes], [f.cycles_per_byte], marker="x", s=50, color=color, zorder=5)
            ax.annotate(f"{label} ({f.cycles_per_byte:.0f})", (f.rom_bytes, f.cycles_per_byte), xytext=(5, -10),
                        textcoords="offset points", fontsize=7, color=color)
        else:
            ax.axhline(f.cycles_per_byte, color=color, ls="--", lw=0.9, zorder=1)
            ax.annotate(f"{label}: {f.cycles_per_byte:.0f} cyc/B (ROM not stated)", (0.01, f.cycles_per_byte),
                        xycoords=("axes fraction", "data"), xytext=(0, 2), textcoords="offset points",
                        fontsize=7, color=color)
    ax.set_xlabel("ROM (bytes: code + tables)")
    ax.set_ylabel(f"cycles/byte ({metric})" if metric else "cycles/byte")
    ax.set_title(title, fontsize=10)
    ax.grid(True, lw=0.3)
    if pts:
        ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
