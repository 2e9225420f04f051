"""Table reads in arithmetic progression over a loop's reachable indices become a carried, stepped
value (aedsl/ir/passes/affine_tables.py): when the pass acts, when it does not, and that the
rewritten module computes what the spec says on the arguments its calls pass."""
from __future__ import annotations

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import affine_tables
from aedsl.ir.printer import print_module

from tests.paths import ROOT
from .tv import check_equivalent

ON = {"affine_tables": "on"}

PRIM = """
spec prim
table t: u8[8] = {0x07, 0x50, 0x47, 0x3e, 0x35, 0x2c, 0x23, 0x1a}
fn step(x: u8, n: u8) -> u8 {
    for i in 8 - n..8 {
        x = (x ^ t[i]) <<< 1
    }
    return x
}
"""


def _module(tmp_path, calls: str, prim: str = PRIM):
    (tmp_path / "prim.ae").write_text(prim)
    (tmp_path / "s.ae").write_text(f"spec s\nuse Q = prim()\nfn f(x: u8) -> u8 {{\n{calls}\n    return x\n}}\n")
    module = pipeline.run(load_module(tmp_path / "s.ae", {}), dict(ON, inline="none"), until="cse_dce")
    assert module.has_function("Q.step")                            # a call, not inlined
    return module


def _loop(module, fn="Q.step"):
    (loop,) = [op for op in walk_ops(module.function(fn).body) if op.opcode == "for"]
    return loop


def _passed(module, fn, callee="Q.step"):
    """The constants fn passes as the calls' last argument."""
    consts = {id(op.results[0]): op.attrs["value"] for op in walk_ops(module.function(fn).body)
              if op.opcode == "const"}
    return {consts[id(op.args[-1])] for op in walk_ops(module.function(fn).body)
            if op.opcode == "call" and op.attrs["callee"] == callee}


def _loads(loop):
    return [op for op in walk_ops(loop.regions[0]) if op.opcode == "load"]


def test_a_progression_over_the_reachable_indices_becomes_a_stepped_value(tmp_path):
    # t[1..8) = 0x50 - 9 i + 9: the calls start at 8 - 5 = 3 and 8 - 7 = 1, never at t[0]
    before = _module(tmp_path, "    x = Q.step(x, 5)\n    x = Q.step(x, 7)")
    after = affine_tables.run(before, ON)
    loop = _loop(after)
    assert _loads(loop) == []
    assert len(loop.args) == len(_loop(before).args) + 1           # c carried, entering a + b lo
    body = loop.regions[0]
    # t[1..9) as integers is 0x59 - 9 i, from 0x50 down to 0x11 after the last turn: no wrap, so
    # the step is `sub 9`, marked nowrap, and the start `0x11 + 9 n` (lo = 8 - n); n is read by
    # nothing else, so the calls pass it mapped (0x11 + 9 * 5, 0x11 + 9 * 7) and c enters as n
    step = next(op for op in body.ops if op.opcode == "sub" and op.args[0] is body.params[-1])
    assert body.yields[-1] is step.results[0] and step.attrs.get("nowrap")
    fn = after.function("Q.step")
    assert loop.args[-1] is fn.params[1]
    assert not any(op.opcode == "mul" for op in fn.body.ops)
    assert _passed(after, "f") == {0x3e, 0x50}
    assert loop.attrs.get("until") == 0x11                            # c after the last turn
    assert loop.attrs.get("entered")                                  # 8 - 5 and 8 - 7 are below 8
    assert check_equivalent(before, after, trials=30, functions=["f"]) == 30


def test_a_count_read_otherwise_is_passed_as_it_is(tmp_path):
    # n also feeds the result: the start `0x11 + 9 n` is computed in the function, marked nowrap
    prim = PRIM.replace("    return x\n}", "    return x ^ n\n}")
    before = _module(tmp_path, "    x = Q.step(x, 5)\n    x = Q.step(x, 7)", prim)
    after = affine_tables.run(before, ON)
    loop = _loop(after)
    start = [op for op in after.function("Q.step").body.ops if op.opcode in ("const", "mul", "add")]
    assert {op.attrs.get("value") for op in start} >= {9, 0x11}
    assert all(op.attrs.get("nowrap") for op in start if op.opcode in ("mul", "add"))
    assert "until" not in loop.attrs
    assert _passed(after, "f") == {5, 7}
    assert check_equivalent(before, after, trials=30, functions=["f"]) == 30


def test_a_progression_that_wraps_keeps_its_modular_step(tmp_path):
    # u[i] = 0xc0 + 0x20 i wraps modulo 256 at i = 2: the value is stepped by 0x20 with a mask
    prim = PRIM.replace("0x07, 0x50, 0x47, 0x3e, 0x35, 0x2c, 0x23, 0x1a",
                        "0xc0, 0xe0, 0x00, 0x20, 0x40, 0x60, 0x80, 0xa0")
    before = _module(tmp_path, "    x = Q.step(x, 5)\n    x = Q.step(x, 7)", prim)
    after = affine_tables.run(before, ON)
    body = _loop(after).regions[0]
    step = next(op for op in body.ops if op.opcode == "add" and op.args[0] is body.params[-1])
    assert body.yields[-1] is step.results[0] and not step.attrs.get("nowrap")
    assert not any(op.attrs.get("nowrap") for op in walk_ops(after.function("Q.step").body))
    assert check_equivalent(before, after, trials=30, functions=["f"]) == 30


def test_ascon_round_constants():
    # Ascon-p's rc[4..16): 0xf0 - 15 (i - 4); Ascon-128 calls permute with 12 and 6 rounds
    before = pipeline.run(load_module(ROOT / "specs/schemes/ascon128.ae", {}), ON, until="cse_dce")
    after = affine_tables.run(before, ON)
    loop = _loop(after, "P.permute")
    assert not any(op.args[0].name == "P.rc" for op in _loads(loop))
    # c = 60 + 15 rounds, then - 15 a turn: the calls pass 60 + 15 * 12 and 60 + 15 * 6
    assert _passed(after, "encrypt_with", "P.permute") == {0xf0, 0x96}
    assert loop.attrs.get("until") == 60 and loop.attrs.get("entered")
    assert check_equivalent(before, after, trials=4, functions=["encrypt", "decrypt"]) == 8


@pytest.mark.parametrize("calls", [
    "    x = Q.step(x, 8)",                 # reaches t[0], which breaks the progression
    "    x = Q.step(x, x & 3)",             # a count the module does not pass as a constant
    "    x = Q.step(x, 2)",                 # two indices: too few to call a progression
])
def test_left_alone(tmp_path, calls):
    before = _module(tmp_path, calls)
    assert print_module(affine_tables.run(before, ON)) == print_module(before)


@pytest.mark.parametrize("edit", [
    ("x = (x ^ t[i]) <<< 1", "x = (x ^ t[i] ^ i) <<< 1"),                  # the index read otherwise
    ("x = (x ^ t[i]) <<< 1", "x = (x ^ t[i] ^ s[i]) <<< 1"),               # a table of no progression
])
def test_a_loop_that_keeps_its_index_is_left_alone(tmp_path, edit):
    prim = PRIM.replace(*edit).replace("fn step", "table s: u8[8] = {1, 2, 4, 8, 16, 32, 64, 128}\nfn step")
    before = _module(tmp_path, "    x = Q.step(x, 5)", prim)
    assert print_module(affine_tables.run(before, ON)) == print_module(before)


def test_the_input_is_not_changed_and_off_is_the_default(tmp_path):
    before = _module(tmp_path, "    x = Q.step(x, 5)")
    text = print_module(before)
    assert print_module(affine_tables.run(before, {})) == text and not affine_tables.acts({})
    affine_tables.run(before, ON)
    assert print_module(before) == text
