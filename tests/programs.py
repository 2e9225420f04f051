"""Generated code run in the simulator, for tests that check it against a Python model."""
from __future__ import annotations

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.sim.harness import Buffer, Program


def compiled_program(spec, chip: str, knobs: dict | None = None, **options):
    """(the compiled unit, a simulator Program holding it) for `spec` on `chip` (`options`: of
    compile_spec, e.g. `entry`)."""
    c = chips.load(chip)
    unit = compile_spec(spec, c, knobs or {}, **options)
    return unit, Program(build_elf(unit, c), c)


def call_entry(prog, entry, values) -> list[int]:
    """Call the exported function `entry` (codegen Entry) of `prog` with Python values, as its C
    convention wants them (docs/BACKENDS.md): a fixed array (a list of ints) as a buffer of its
    elements, a word by value, a wider scalar as a buffer of its little-endian bytes, then one
    out-buffer of 2*ceil(w/16) bytes per result; returns the results as ints."""
    args = []
    for p, v in zip(entry.params, values):
        if p.kind == "mem":
            args.append(Buffer(b"".join(w.to_bytes(p.stride, "little") for w in v)))
        elif p.kind == "word":
            args.append(v)
        else:
            args.append(Buffer(v.to_bytes(p.nbytes, "little")))
    args += [Buffer(2 * -(-w // 16)) for w in entry.results]
    r = prog.call(entry.symbol, args)
    return [int.from_bytes(b, "little") for b in r.buffers[-len(entry.results):]]


def check_ascon_p(prog, seed: int, rounds=(1, 6, 12)) -> None:
    """The generated `ascon_p_permute` in `prog` against the `ascon` package's permutation on a
    random state per round count (the state as five little-endian 64-bit words)."""
    import random

    from ascon._ascon import ascon_permutation

    rnd = random.Random(seed)
    for n in rounds:
        words = [rnd.getrandbits(64) for _ in range(5)]
        state = b"".join(w.to_bytes(8, "little") for w in words)
        got = prog.call("ascon_p_permute", [state, n]).buffers[0]
        ascon_permutation(words, n)
        assert got == b"".join(w.to_bytes(8, "little") for w in words), n
