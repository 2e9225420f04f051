"""`aedsl ct` for one variant: compile once (keeping the IR and the machine IR), run the IR and
machine-code taint analyses and, unless asked not to, the simulator runs; then the verdict.

A variant passes when no analysis finds a secret-dependent branch, loop or variable-time
instruction, every entry point takes the same cycles on every secret, and — under `strict` —
no memory access has a secret-dependent address either. Without `strict`, secret-dependent
indices (table lookups) are reported and allowed: the chips have no data cache, so an access
takes the same cycles at every address (docs/CONSTANT_TIME.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from aedsl import chips as chips_mod
from aedsl.codegen.unit import exported
from aedsl.driver import compile_spec

from . import dynamic, taint_ir, taint_mir
from .findings import Finding

REFUSED = ("branch", "loop", "variable-time", "untracked")


@dataclass
class CtReport:
    spec: str
    chip: str
    knobs: dict
    strict: bool
    ir: list[Finding] = field(default_factory=list)
    machine: list[Finding] = field(default_factory=list)
    dynamic: dynamic.DynamicResult | None = None

    def refused(self) -> list[Finding]:
        kinds = REFUSED + (("index",) if self.strict else ())
        return [f for f in self.ir + self.machine if f.kind in kinds]

    def indices(self) -> list[Finding]:
        return [f for f in self.ir + self.machine if f.kind == "index"]

    @property
    def static_ok(self) -> bool:
        return not self.refused()

    @property
    def ok(self) -> bool:
        return self.static_ok and (self.dynamic is None or self.dynamic.ok)

    def as_dict(self) -> dict:
        return {"spec": self.spec, "chip": self.chip, "knobs": self.knobs, "strict": self.strict, "ok": self.ok,
                "static_ok": self.static_ok, "refused": [f.as_dict() for f in self.refused()],
                "indices": [f.as_dict() for f in self.indices()],
                "dynamic": self.dynamic.as_dict() if self.dynamic is not None else None}


@lru_cache(maxsize=8)
def _compiled(spec: str, chip_name: str, knobs: tuple):
    """The variant compiled with its IR and machine IR kept (the analyses only read it: one
    compile serves a process's default, --strict and --json reports of one variant)."""
    return compile_spec(spec, chips_mod.load(chip_name), dict(knobs), keep=True)


def check(spec, chip_name: str, knobs: dict | None = None, strict: bool = False, run_dynamic: bool = True,
          secrets: int = 3) -> CtReport:
    chip = chips_mod.load(chip_name)
    unit = _compiled(str(spec), chip.name, tuple(sorted((k, str(v)) for k, v in (knobs or {}).items())))
    rep = CtReport(str(spec), chip.name, dict(unit.knobs), strict)
    rep.ir = taint_ir.analyse(unit.module, exported(unit.module))
    rep.machine = taint_mir.analyse(unit.mir, chip)
    if run_dynamic:
        seed = f"{unit.stem}/{chip.name}"
        rep.dynamic = dynamic.run(unit, chip, secrets=secrets, seed=seed)
    return rep
