"""The text of an `aedsl ct` report (the JSON form is `CtReport.as_dict()`).

Refused findings come first, each with its spec line; then the secret-dependent memory indices
grouped by the table or memory they read (allowed unless --strict); then the simulator runs, one
line per entry point with its cycles and the public inputs they follow; then the verdict.
"""
from __future__ import annotations

from .check import CtReport


def _short(where: str) -> str:
    path, _, line = where.rpartition(":")
    return f"{path.rsplit('/', 1)[-1]}:{line}"


def _line_order(where: str) -> tuple:
    path, _, line = where.rpartition(":")
    return (path, int(line)) if line.isdigit() else (where, 0)


def render(rep: CtReport) -> str:
    knobs = " ".join(f"{k}={v}" for k, v in rep.knobs.items()) or "(defaults)"
    out = [f"{rep.spec} on {rep.chip} ({knobs}){'  [--strict]' if rep.strict else ''}"]
    refused = rep.refused()
    if refused:
        out.append(f"static: FAIL, {len(refused)} finding(s):")
        out += ["  " + f.render().replace("\n", "\n  ") for f in refused]
    else:
        out.append("static: pass (no secret-dependent branch, loop or variable-time instruction in the IR "
                   "or the machine code)")
    idx = rep.indices()
    if idx:
        note = "refused under --strict" if rep.strict else "allowed: no data cache on this chip; --strict refuses them"
        out.append(f"secret-dependent memory indices ({note}):")
        groups: dict[tuple[str, str], set[str]] = {}
        for f in idx:
            groups.setdefault((f.level, f.memory), set()).add(_short(f.where))
        for (level, memory), wheres in sorted(groups.items()):
            shown = ", ".join(sorted(wheres, key=_line_order))
            out.append(f"  {level:7} {memory}: {shown}")
    else:
        out.append("secret-dependent memory indices: none")
    d = rep.dynamic
    if d is not None:
        base = ", ".join(f"{k} {v}" for k, v in d.base.items())
        n = len(d.ops[0].cycles) if d.ops else 0
        out.append(f"dynamic: {'pass' if d.ok else 'FAIL'}, {n} random secrets at fixed public inputs ({base})"
                   + (f"; varied: {', '.join(d.varied)}" if d.varied else ""))
        for t in d.ops:
            cyc = str(t.cycles[0]) if t.constant else "/".join(map(str, t.cycles)) + " (DIFFER)"
            follows = ", ".join(t.follows) if t.follows else "-"
            out.append(f"  {t.op:14} cycles {cyc:>10}   follow: {follows}")
    else:
        out.append("dynamic: not run")
    out.append("constant time: yes" if rep.ok else "constant time: NO")
    return "\n".join(out)
