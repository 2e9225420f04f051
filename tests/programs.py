"""Generated code run in the simulator, for tests that check it against a Python model."""
from __future__ import annotations

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.sim.harness import Program


def compiled_program(spec, chip: str, knobs: dict | None = None, **options):
    """(the compiled unit, a simulator Program holding it) for `spec` on `chip` (`options`: of
    compile_spec, e.g. `entry`)."""
    c = chips.load(chip)
    unit = compile_spec(spec, c, knobs or {}, **options)
    return unit, Program(build_elf(unit, c), c)


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
