"""Knob `subroutine_saves` (codegen/interface.py `compile_module`): with `caller` a subroutine
saves no register and each call of it names what it overwrites (`Backend.clobbered`), so the
caller keeps its values across the call elsewhere and saves what the subroutine overwrites of its
own callee-saved registers; with `callee` every function keeps the calling convention's saves.
Generated code against the interpreter on both targets, with values live across calls, a
subroutine calling another and a loop around the calls."""
import random
import re

import pytest

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer, Program

from tests.paths import SPECS

PRIM = """spec prim
fn mix(x: u16, y: u16) -> u16 {
    a = x ^ (y <<< 7)
    b = y + (x >>> 3)
    c = (a + (b <<< 5)) ^ 0x3c5a
    d = (c ^ a) <<< 11
    return d + (b ^ c)
}

fn rounds(x: u16, y: u16, n: u8) -> u16 {
    for i in 0..n {
        x = mix(x, y) ^ y
        y = y + 0x9e37
    }
    return x
}
"""
SCHEME = """spec s
use Q = prim()
fn f(a: u16, b: u16, c: u16) -> u16 {
    s = a
    for i in 0..3 {
        s = Q.rounds(s ^ c, b, 4) + a
        b = Q.mix(b, c) ^ s
    }
    return s ^ b ^ c
}
"""


def body(asm: str, symbol: str) -> list[str]:
    text = asm.split(f"\n{symbol}:")[1].split(".size")[0]
    return [ln.strip() for ln in text.splitlines()
            if ln.startswith("\t") and ln.strip() and not ln.strip().startswith(("@", ";", "."))]


def _saves(ins: list[str]) -> set[str]:
    """The registers the prologue pushes (r4 and up; the high ones through low copies)."""
    out = set()
    for i in ins:
        m = re.fullmatch(r"(?:push|pushm(?:\.[aw])?)\s+(?:\{(.*)\}|#\d+, (r\d+)|(r\d+))", i)
        if m is None:
            if out or not i.startswith(("mov", "push", "sub", "subs")):
                break
            continue
        for r in re.findall(r"r\d+", (m.group(1) or m.group(2) or m.group(3))):
            out.add(r)
    return out - {"r0", "r1", "r2", "r3", "lr"}


@pytest.mark.needs("msp430")
@pytest.mark.needs("armv6m")
@pytest.mark.parametrize("saves", ["caller", "callee"])
@pytest.mark.parametrize("chip", ["stm32f030", "msp430f1611"])
def test_against_the_interpreter(tmp_path, chip, saves):
    (tmp_path / "prim.ae").write_text(PRIM)
    spec = tmp_path / "s.ae"
    spec.write_text(SCHEME)
    c = chips.load(chip)
    unit = compile_spec(spec, c, {"inline": "none", "subroutine_saves": saves})
    mix, rounds = body(unit.asm, "s_Q_mix"), body(unit.asm, "s_Q_rounds")
    assert any(re.match(r"(bl|call)\s+#?s_Q_mix", i) for i in rounds)        # a subroutine calling one
    if saves == "caller":
        assert not _saves(mix) and not _saves(rounds)
    else:
        assert _saves(rounds)                       # its loop keeps values across the call
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(spec, {}))
    e = unit.entries["f"]
    limb = 4 if c.isa == "armv6m" else 2
    rng = random.Random(11)
    for _ in range(16):
        args = [rng.randrange(1 << 16) for _ in range(3)]
        r = prog.call(e.symbol, [*args, Buffer(limb)])
        assert int.from_bytes(r.buffers[-1], "little") == ref.call("f", args)[0]


@pytest.mark.needs("armv6m")
def test_ascon_permutation_saves_nothing_for_its_mode():
    """Ascon-128's permutation on Cortex-M0: with `caller` (speed mode's default) it pushes only
    LR (its sixth high spill slot); with `callee`, r4-r11 as AAPCS wants."""
    spec = SPECS / "schemes" / "ascon128.ae"
    caller = body(compile_spec(spec, "stm32f030").asm, "ascon128_P_permute")
    callee = body(compile_spec(spec, "stm32f030", {"subroutine_saves": "callee"}).asm, "ascon128_P_permute")
    assert re.fullmatch(r"push\s+\{lr\}", caller[0]) and caller[-1] == "pop\t{pc}"
    assert _saves(callee) == {f"r{k}" for k in range(4, 8)} and "mov\tr4, r8" in callee
