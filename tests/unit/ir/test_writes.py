"""Memories written completely before they are read (aedsl/ir/writes.py), and the selectors'
use of it: a local whose zeroing is dead is not zeroed."""
from __future__ import annotations

import pytest

from aedsl.driver import compile_spec
from aedsl.frontend.elaborate import load_module
from aedsl.ir.writes import written_first

SPEC = """
spec w

fn fill(x: u32, out: u32[16]) {
    for i in 0..16 {
        out[i] = x ^ (i as u32)
    }
}

fn peek(t: u32[16]) -> u32 {
    return t[3]
}

fn by_loop(x: u32) -> u32 {
    var t: u32[16]
    for i in 0..16 {
        t[i] = x + (i as u32)
    }
    return t[2] ^ t[15]
}

fn by_call(x: u32) -> u32 {
    var t: u32[16]
    fill(x, t)
    return t[5]
}

fn by_stores(x: u32) -> u32 {
    var t: u32[2]
    t[1] = x
    t[0] = x + 1
    return t[0] ^ t[1]
}

fn read_first(x: u32) -> u32 {
    var t: u32[16]
    y = t[0]
    fill(x, t)
    return y ^ t[1]
}

fn part(x: u32) -> u32 {
    var t: u32[16]
    for i in 0..15 {
        t[i] = x
    }
    return t[15]
}

fn some_stores(x: u32) -> u32 {
    var t: u32[2]
    t[1] = x
    return t[0] ^ t[1]
}

fn maybe(x: u32) -> u32 {
    var t: u32[2]
    if x == 0 {
        t[0] = 1
    }
    t[1] = x
    return t[0]
}

fn by_pairs(x: u32) -> u32 {
    var t: u32[16]
    for j in 0..8 {
        t[2 * j] = x
        t[2 * j + 1] = x ^ 1
    }
    return t[9]
}

fn odd_only(x: u32) -> u32 {
    var t: u32[16]
    for j in 0..8 {
        t[2 * j + 1] = x
    }
    return t[2]
}

fn unrolled(x: u32) -> u32 {
    var t: u32[16]
    @unroll(2)
    for i in 0..16 {
        t[i] = x + (i as u32)
    }
    return t[3]
}

fn passes_it(x: u32) -> u32 {
    var t: u32[16]
    return peek(t) ^ x
}
"""

WRITTEN = {"by_loop": True, "by_call": True, "by_stores": True, "by_pairs": True, "read_first": False,
           "part": False, "some_stores": False, "maybe": False, "passes_it": False, "odd_only": False}


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("w") / "w.ae"
    path.write_text(SPEC)
    return path


@pytest.mark.parametrize("fn", sorted(WRITTEN))
def test_written_first(spec_path, fn):
    module = load_module(spec_path, {})
    f = module.function(fn)
    (t,) = f.locals
    assert written_first(module, f.body, t) is WRITTEN[fn]


def test_a_loop_unrolled_by_two_still_writes_it_all(spec_path):
    # after the unroll pass the loop runs j over 0..8 storing t[2j] and t[2j + 1]
    from aedsl.ir import pipeline
    module = pipeline.run(load_module(spec_path, {}), {}, until="cse_dce")
    f = module.function("unrolled")
    (loop,) = [op for op in f.body.ops if op.opcode == "for"]
    assert sum(op.opcode == "store" for op in loop.regions[0].ops) == 2
    assert written_first(module, f.body, f.locals[0])


@pytest.mark.parametrize("chip", ["msp430f1611", "stm32f030"])
def test_dead_zeroing_is_left_out(spec_path, chip):
    # each function's own code: zeroing a 16-word local is a loop on both targets
    unit = compile_spec(spec_path, chip, {"inline": "none"})
    body = {}
    name = None
    for line in unit.asm.splitlines():
        if line.endswith(":") and not line.startswith("."):
            name = line[:-1]
            body[name] = []
        elif name:
            body[name].append(line)
    for fn, written in WRITTEN.items():
        if fn in ("by_stores", "some_stores", "maybe"):
            continue            # two words: zeroed by stores, not a loop
        lines = "\n".join(body[f"w_{fn}"])
        assert ("_zero" in lines) is not written, fn


@pytest.mark.parametrize("chip", ["msp430f1611", "stm32f030"])
def test_code_without_the_zeroing_agrees_with_the_interpreter(spec_path, chip, require_tools):
    require_tools(chip)
    import random

    from aedsl.ir.interp import compile_module
    from aedsl.sim.harness import Buffer
    from tests.programs import compiled_program
    ref = compile_module(load_module(spec_path, {}))
    unit, prog = compiled_program(spec_path, chip, {"inline": "none"})
    rnd = random.Random(9)
    for fn in ("by_loop", "by_call", "by_stores", "by_pairs", "read_first", "part", "odd_only"):
        for _ in range(3):
            x = rnd.getrandbits(32)
            # a u32 is a word on ARMv6-M, two words by reference on MSP430
            arg = Buffer(x.to_bytes(4, "little")) if chip.startswith("msp430") else x
            r = prog.call(unit.entries[fn].symbol, [arg, Buffer(4)])
            assert int.from_bytes(r.buffers[-1], "little") == ref.call(fn, [x])[0], (chip, fn)
