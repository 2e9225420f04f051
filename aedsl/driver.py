"""The compile driver: spec + chip + knobs -> assembly text, C header and entry metadata.

    unit = compile_spec("specs/primitives/speck.ae", "cc430f6137", {"block_bits": 64, "key_bits": 128})
    unit.asm, unit.header, unit.entries["encrypt_block"].symbol

Steps: frontend (`load_module`), the IR pass pipeline (`aedsl.ir.pipeline.run`), then the
chip's target (`aedsl.backends.registry.target_for`), which selects, allocates and emits.
"""
from __future__ import annotations

import dataclasses
import gc
from contextlib import contextmanager
from pathlib import Path

from aedsl import chips as chips_mod
from aedsl import unit_cache
from aedsl.backends import registry
from aedsl.codegen.interface import CODEGEN_KNOBS
from aedsl.codegen.unit import Compiled
from aedsl.frontend.diagnostics import SpecError
from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes.common import is_size_mode
from aedsl.ir.pipeline import run_passes
from aedsl.knobs import Knob

def knob_registry(chip, module=None) -> dict[str, Knob]:
    """Every knob of a variant by name: the IR passes', the chip's target's and, given the
    elaborated `module`, the spec's own (`Module.knob_decls`)."""
    target = registry.target_for(chip)
    out = dict(module.knob_decls) if module is not None else {}
    out.update(pipeline.knobs())
    out.update({k.name: k for k in CODEGEN_KNOBS})
    for name, values in target.knobs.items():
        out[name] = Knob(name, "target", tuple(values), target.knob_defaults.get(name),
                         doc=f"a knob of the {target.name} target")
    return out


def check_knobs(chip, knobs: dict) -> dict[str, str]:
    """The pass and target knobs among `knobs` with their values checked (KnobError otherwise);
    the others are left to the spec (the frontend rejects what it does not declare)."""
    reg = knob_registry(chip)
    return {k: (reg[k].check(v) if k in reg else str(v)) for k, v in knobs.items()}


# Size mode (`-k opt=size`): the spec knobs that choose a code shape take their smallest value,
# the first of each list that the spec declares: `unroll` its most rolled loop, `body` one
# subroutine for what encryption and decryption share (ccm.ae, gcm.ae, ocb3.ae).
SIZE_MODE_SPEC_KNOBS = {"unroll": ("looped", "1"), "body": ("shared",)}


def size_mode_spec_knobs(module, knobs: dict) -> dict:
    """Spec knob values size mode implies (applied like a target's implied knobs: only when the
    spec declares the knob and -k does not set it)."""
    if not is_size_mode(knobs):
        return {}
    out = {}
    for name, smallest in SIZE_MODE_SPEC_KNOBS.items():
        if name in module.knob_decls:
            values = module.knob_decls[name].values or ()
            out.update(next(({name: v} for v in smallest if v in values), {}))
    return out


def only_function(module, name: str, spec_path) -> None:
    """Keep in `module` only function `name` of the spec itself and the functions it calls, so the
    unit exports `name` (and its callees) whatever the spec is: one function of a scheme, e.g.
    a keystream step, compiled to be measured alone."""
    if "." in name or not module.has_function(name):
        own = sorted(f.name for f in module.functions if "." not in f.name)
        raise SpecError(f"no function {name!r} in the spec (its own functions: {', '.join(own)})", str(spec_path))
    keep, todo = set(), [name]
    while todo:
        fname = todo.pop()
        if fname not in keep:
            keep.add(fname)
            todo += [op.attrs["callee"] for op in walk_ops(module.function(fname).body) if op.opcode == "call"]
    module.functions = [f for f in module.functions if f.name in keep]


def _build_ir(spec_path, chip, backend, knobs: dict, own: set, entry: str | None, skip_passes):
    """The IR module of the spec under `knobs` (the spec knobs the target implies applied) after
    the passes with the pass knobs the target gives it, and the exported functions' interfaces
    before the passes (word legalization splits parameters)."""
    spec_knobs = {k: v for k, v in knobs.items() if k not in own}
    module = load_module(spec_path, spec_knobs, backend.word_bits)
    clash = sorted(own & set(module.knobs))
    if clash:
        # `-k NAME=...` would silently go to the pass instead of the spec
        raise SpecError(f"spec knob(s) {', '.join(clash)} share a name with a pass or backend knob; "
                        f"rename them in the spec", str(spec_path))
    implied = {k: v for k, v in {**backend.implied_spec_knobs(module, chip, knobs),
                                 **size_mode_spec_knobs(module, knobs)}.items()
               if k in module.knobs and k not in knobs}
    if implied:
        # a target choice that makes another value of a spec knob the better default (the
        # S-box-only AES has no inverse T-tables, so the plain inverse cipher wins): reload
        # with it; an explicit -k still overrides it
        module = load_module(spec_path, {**spec_knobs, **implied}, backend.word_bits)
    if entry is not None:
        only_function(module, entry, spec_path)
    pknobs = backend.pass_knobs(module, chip, knobs)
    interfaces = {f.name: f for f in module.functions}
    return run_passes(module, pknobs, skip_passes), interfaces


def compile_spec(spec_path: str | Path, chip, knobs: dict | None = None, skip_passes=None,
                 entry: str | None = None, keep: bool = False) -> Compiled:
    """Frontend, IR passes and the chip's target. `skip_passes` None: the target's own
    `skip_passes`. `entry`: compile only that function and its callees (`only_function`).
    `keep`: the unit also holds the IR module after the passes (`module`) and the machine IR of
    every function (`mir`), for analyses such as aedsl/ct. A variant compiled before with the
    same compiler comes from the unit cache (`aedsl.unit_cache`)."""
    with _few_collections():
        return _compile_spec(unit_cache.as_named(spec_path), chip, knobs, skip_passes, entry, keep)


# The cyclic garbage collector's first-generation threshold while compiling (CPython's default
# is 700 allocations). A compile makes millions of short-lived objects (machine instructions,
# operands, def/use sets) and almost no cycles, so at the default the collector walks the young
# objects thousands of times a compile: a quarter to a third of its time (AES-256 fully unrolled
# on cc430f6137: 8.1-9.0 s at the default, 5.9-6.8 s at this threshold, 6.0-7.2 s with the
# collector off). The older generations keep their thresholds, and the process's own are put
# back afterwards.
GC_THRESHOLD = 50_000


@contextmanager
def _few_collections():
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], GC_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def without_target_defaults(chip, knobs: dict) -> dict:
    """`knobs` less the target knobs given their default (`Backend.knob_defaults`): such a request
    names the variant that leaves them out (its entry in the unit cache, its files' stem)."""
    reg = knob_registry(chip)
    return {k: v for k, v in knobs.items()
            if not (k in reg and reg[k].owner == "target" and reg[k].default == str(v))}


def _compile_spec(spec_path, chip, knobs, skip_passes, entry, keep) -> Compiled:
    chip = chips_mod.load(chip) if isinstance(chip, str) else chip
    knobs = without_target_defaults(chip, knobs or {})
    name = unit_cache.key(spec_path, chip, knobs, skip_passes, entry)
    unit = _cached(name, keep, chip)
    if unit is not None:
        return unit
    if name is None:
        return _compile(spec_path, chip, knobs, skip_passes, entry, keep)
    with unit_cache.lock(name):
        unit = _cached(name, keep, chip)          # another process compiled it meanwhile
        if unit is not None:
            return unit
        # the request names the variant its own way: once the IR is built, the entry of what the
        # target compiles from it may be there already (the same variant named otherwise)
        backend, module = _ir(spec_path, chip, knobs, skip_passes, entry)
        target = unit_cache.module_key(spec_path, chip, module)
        with unit_cache.lock(target):
            unit = _cached(target, keep, chip)
            if unit is None:
                # compiled in full, so that a later request of either kind reads it back (the
                # full form costs a copy of each function's machine IR)
                unit = _generate(backend, module, chip, spec_path, True)
                unit_cache.store(target or name, unit)
                if not keep:
                    unit = unit_cache.plain(unit)
        unit_cache.alias(name, target)
    return unit


def _cached(name, keep: bool, chip):
    """The unit kept under `name`, with the machine descriptions of a full form made again (they
    are not stored); None when there is none."""
    unit = unit_cache.load(name, keep)
    if unit is not None and keep:
        backend = registry.target_for(chip)
        unit.mir = [dataclasses.replace(k, machine=backend.machine(chip, k.mf)) for k in unit.mir]
    return unit


def _compile(spec_path, chip, knobs, skip_passes, entry, keep) -> Compiled:
    return _generate(*_ir(spec_path, chip, knobs, skip_passes, entry), chip, spec_path, keep)


def _ir(spec_path, chip, knobs, skip_passes, entry):
    """The chip's target and the IR module it compiles: the spec under the knobs, after the
    passes, with the target's knobs that name the variant and the exported interfaces."""
    knobs = check_knobs(chip, knobs or {})
    backend = registry.target_for(chip)
    if skip_passes is None:
        skip_passes = backend.skip_passes
    # knobs of the IR passes and of the target are not the spec's: the frontend does not see
    # them; a target may translate its own knobs into pass knobs (`pass_knobs`)
    own = set(knob_registry(chip))
    extra = {k: v for k, v in knobs.items() if k in own}
    module, interfaces = _build_ir(spec_path, chip, backend, knobs, own, entry, skip_passes)
    retry = backend.retry_knobs(module, chip, knobs)
    if retry is not None:
        # the target's default did not pay on this spec (a table strategy whose fusion found
        # nothing): the variant is built as the target says instead, under the same name
        module, interfaces = _build_ir(spec_path, chip, backend, retry, own, entry, skip_passes)
    module.knobs.update(extra)           # they name the variant (stem, file header)
    module.interfaces = interfaces
    return backend, module


def _generate(backend, module, chip, spec_path, keep) -> Compiled:
    """The target's half: select, allocate and emit `module` (`keep`: with the IR module and the
    machine IR in the unit)."""
    if not keep:
        return backend.compile_module(module, chip, str(spec_path))
    unit = backend.compile_module(module, chip, str(spec_path), keep_mir=True)
    unit.module = module
    return unit
