"""One variant of a sweep, start to end, as a worker runs it: compile, verify on a vector sample,
measure. `run_task(task)` never raises for a variant that fails: it returns an `Outcome` whose
`reason` is one line (cannot compile, does not fit, wrong results, ...), so the sweep goes on.

Verification comes first: the generated code runs in the chip's simulator on up to `sample`
official vectors the spec's sources hold for this key/nonce/tag/block size
(aedsl.vectors.by_spec), judged as `aedsl kat` judges them. A spec without official vectors here
is checked against the IR interpreter (the spec's reference semantics) on a few random inputs
instead. Only a variant that passes is measured (aedsl.bench.bench_spec).

Metrics (`Outcome.metrics`, the CSV's columns): block ciphers -- `enc_cpb`, `dec_cpb` (one block)
and `key_schedule_cycles`; AEAD schemes -- `enc_cpb_<size>`, `dec_cpb_<size>` for every message
size (None at 0 bytes) and `key_setup_cycles` when key setup is measured apart. Then, when the chip
file has a `[power]` table, the modelled energy of encryption (aedsl.energy, as `aedsl bench` shows
it; a model from the datasheet current, not a measurement), in nanojoules: block ciphers --
`enc_nj_per_block`, `enc_nj_per_byte`; AEAD schemes -- `enc_nj_<size>` (the whole operation) and
`enc_nj_per_byte_<size>` (None at 0 bytes) for every message size.
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

INTERP_CASES = 3                     # random inputs when a spec has no official vectors here


@dataclass(frozen=True)
class Task:
    spec: str                        # spec file path
    chip: str                        # chip name
    knobs: tuple[tuple[str, str], ...]
    sizes: tuple[str, ...]           # AEAD message sizes (bytes or "ipi")
    ad_len: int
    key_setup: str                   # include | exclude
    sample: int                      # vectors run before measuring

    @property
    def knob_dict(self) -> dict[str, str]:
        return dict(self.knobs)


@dataclass
class Outcome:
    knobs: dict                      # as the sweep set them
    ok: bool = False
    reason: str = ""                 # why not ok (one line)
    verified: str = ""               # "fips197: 4 passed" ...
    variant_knobs: dict = field(default_factory=dict)   # every knob of the compiled variant
    rom_bytes: int | None = None
    ram_bytes: int | None = None
    stack_bytes: int | None = None
    metrics: dict = field(default_factory=dict)
    records: list = field(default_factory=list)        # aedsl.bench.Record as dicts
    cacheable: bool = True           # False when the failure may be the machine's, not the variant's

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Outcome":
        return cls(**d)


class WrongResult(Exception):
    """The generated code disagrees with the vectors (or the interpreter)."""


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:200] if text else type(e).__name__


def _why(e: Exception) -> tuple[str, bool]:
    """(one-line reason, cacheable) for an exception a variant raised."""
    from aedsl.bench import MeasurementError
    from aedsl.codegen.regalloc import RegAllocError
    from aedsl.codegen.select_base import SelectError
    from aedsl.frontend.diagnostics import SpecError
    from aedsl.ir.passes.legalize import LegalizeError
    from aedsl.knobs import KnobError
    from aedsl.sim.base import SimError
    from aedsl.toolchain import ToolchainError
    if isinstance(e, ToolchainError):
        for ln in str(e).splitlines():
            if "overflowed by" in ln:
                return "does not fit: " + ln.split(": ")[-1].strip(), True
        return f"toolchain: {_first_line(e)}", False
    if isinstance(e, (SpecError, KnobError)):
        return f"cannot compile: {_first_line(e)}", True
    if isinstance(e, (SelectError, RegAllocError, LegalizeError)):
        return f"cannot compile: {_first_line(e)}", True
    if isinstance(e, WrongResult):
        return f"wrong results: {_first_line(e)}", True
    if isinstance(e, (SimError, MeasurementError)):
        return f"failed run: {_first_line(e)}", True
    return f"{type(e).__name__}: {_first_line(e)}", False


def _accepts(engine):
    if hasattr(engine, "block_bytes"):
        return lambda v: (hasattr(v, "block_bytes") and engine.supports(len(v.key))
                          and v.block_bytes in (None, engine.block_bytes) and v.pt and len(v.pt) % engine.block_bytes == 0)
    return lambda v: hasattr(v, "nonce") and engine.supports(*v.params)


def _interp_vectors(task: Task, engine, chip) -> list:
    """INTERP_CASES vectors computed by the IR interpreter on random inputs (fixed seed)."""
    from aedsl.driver import knob_registry
    from aedsl.engines.interp import interp_engine
    from aedsl.vectors.records import AeadVector, BlockVector
    own = knob_registry(chip)
    ref = interp_engine(task.spec, {k: v for k, v in task.knobs if k not in own})
    rng = random.Random(2024)
    out = []
    if hasattr(engine, "block_bytes"):
        key = rng.randbytes(engine.key_bits // 8)
        for i in range(INTERP_CASES):
            pt = rng.randbytes(engine.block_bytes)
            out.append(BlockVector(f"interp#{i}", key, pt, ref.encrypt_block(key, pt)))
        return out
    d = engine.unit.domains
    # the smallest non-zero length each domain allows; 0 where that is all it allows (CTR's tag)
    lens = [next((n for n in sorted(d.get(name, ())) if n), min(d.get(name, ()), default=None))
            for name in ("key_len", "nonce_len", "tag_len")]
    if None in lens or not engine.supports(*lens):
        return []
    k, n, t = lens
    for i, (ad_len, msg_len) in enumerate(((0, 0), (3, 17), (16, 40))[:INTERP_CASES]):
        key, nonce, ad, msg = (rng.randbytes(x) for x in (k, n, ad_len, msg_len))
        ct = ref.encrypt(key, nonce, ad, msg, t)
        out.append(AeadVector(f"interp#{i}", key, nonce, ad, msg, ct[:len(msg)], ct[len(msg):]))
    return out


def verify(task: Task, chip) -> str:
    """Run the sample; the summary line, or WrongResult."""
    from aedsl.engines.sim import sim_engine
    from aedsl.vectors import by_spec, runner
    engine = sim_engine(task.spec, task.knob_dict, chip.name)
    used, vecs = by_spec.sample(Path(task.spec).stem, engine.unit.knobs, _accepts(engine), task.sample)
    if not vecs:
        used, vecs = ["interpreter"], _interp_vectors(task, engine, chip)
    if not vecs:
        raise WrongResult("no vector of the sample fits this variant, and the interpreter cannot make one")
    rep = runner.run(engine, vecs, keep=1)
    if rep.failed or not rep.passed:
        first = str(rep.failures[0]) if rep.failures else rep.summary()
        raise WrongResult(f"{', '.join(used)}: {rep.summary()}; {first}")
    return f"{', '.join(used)}: {rep.passed} passed"


def _nj(uj: float | None) -> float | None:
    return None if uj is None else uj * 1e3


def _metrics(recs, sizes) -> dict:
    by = {(r.op, str(r.msg_len)): r for r in recs if not r.workload}
    modelled = any(r.energy_uj is not None for r in recs)       # the chip file has [power]
    if "encrypt_block" in {r.op for r in recs}:
        enc = by_op(recs, "encrypt_block")
        out = {"enc_cpb": enc.cycles_per_byte,
               "dec_cpb": by_op(recs, "decrypt_block").cycles_per_byte,
               "key_schedule_cycles": by_op(recs, "key_schedule").cycles}
        if modelled:
            out["enc_nj_per_block"] = _nj(enc.energy_uj)
            out["enc_nj_per_byte"] = enc.energy_nj_per_byte
        return out
    out = {}
    for s in sizes:
        for op, short in (("encrypt", "enc"), ("decrypt", "dec")):
            r = by.get((op, s))
            out[f"{short}_cpb_{s}"] = r.cycles_per_byte if r else None
    ks = [r for r in recs if r.op == "key_setup"]
    if ks:
        out["key_setup_cycles"] = ks[0].cycles
    if modelled:
        for s in sizes:
            r = by.get(("encrypt", s))
            out[f"enc_nj_{s}"] = _nj(r.energy_uj) if r else None
            out[f"enc_nj_per_byte_{s}"] = r.energy_nj_per_byte if r else None
    return out


def by_op(recs, op: str):
    return next(r for r in recs if r.op == op)


def run_task(task: Task) -> dict:
    """The outcome of one variant, as a dict (what crosses the process or network boundary)."""
    from aedsl import bench, chips
    out = Outcome(knobs=task.knob_dict)
    try:
        chip = chips.load(task.chip)
        unit, _ = bench.compile_unit(task.spec, chip, task.knob_dict)
        out.variant_knobs = {k: str(v) for k, v in unit.knobs.items()}
        out.verified = verify(task, chip)
        recs = bench.bench_spec(task.spec, chip, task.knob_dict, sizes=task.sizes, ad_len=task.ad_len,
                                key_setup=task.key_setup, seed001=False)
    except Exception as e:                # every failure of a variant is its row's reason
        out.reason, out.cacheable = _why(e)
        if out.reason.startswith("wrong results"):
            out.verified = out.reason
        return out.as_dict()
    main = [r for r in recs if r.op in ("encrypt", "encrypt_block")]
    out.ok = True
    out.rom_bytes, out.ram_bytes = main[0].rom_bytes, main[0].ram_bytes
    out.stack_bytes = max(r.stack_bytes for r in recs if r.op in ("encrypt", "decrypt", "encrypt_block", "decrypt_block"))
    out.metrics = _metrics(recs, task.sizes)
    out.records = [r.as_dict() for r in recs]
    return out.as_dict()
