"""identity_arms (aedsl/ir/passes/identity_arms.py): an op whose operand is an `if` result that
one arm gives as the op's identity moves into the other arm. Checked in the interpreter against
the IR before the pass (both arms taken), on the golden cases and on NORX32-4-1 (the payload's
`x ^ pad(count)`), and where it must not act: a select, an if result read twice, the if result
as a subtraction's left operand, an identity that is not the op's, and an operand defined after
the `if`."""
import random

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.interp import Program
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import identity_arms

from tests.paths import ROOT
from .tv import check_equivalent

GOLDEN = ROOT / "tests/unit/passes/golden/identity_arms"

NOT_SUNK = """spec identity_not_sunk

fn twice(x: u32, n: u32) -> (u32, u32) {
    p = 0 as u32
    if n < 4 {
        p = (1 as u32) << (8 * n)
    }
    return x ^ p, p
}

fn left_of_sub(x: u32, n: u32) -> u32 {
    p = 0 as u32
    if n < 4 {
        p = x >>> 5
    }
    return p - x
}

fn not_identity(x: u32, n: u32) -> u32 {
    p = 1 as u32
    if n < 4 {
        p = x >>> 5
    }
    return x ^ p
}

fn later_operand(x: u32, n: u32) -> u32 {
    p = 0 as u32
    if n < 4 {
        p = x >>> 5
    }
    y = x * n
    return y ^ p
}

fn secret_select(x: u32, n: u32) -> u32 {
    return x ^ (if n < 4 then x >>> 5 else 0 as u32)
}
"""


def _in_arms(module, opcode):
    """How many `opcode` ops stand directly in an arm of an `if`."""
    return sum(x.opcode == opcode for f in module.functions for op in walk_ops(f.body) if op.opcode == "if"
               for arm in op.regions for x in arm.ops)


def _same_results(before, after, name, inputs):
    p0, p1 = Program(before), Program(after)
    for args in inputs:
        assert p0.call(name, list(args)) == p1.call(name, list(args)), (name, args)


def test_golden_cases_keep_their_results():
    """Both arms taken, on the boundary of each condition."""
    rng = random.Random(3)
    pad = load_module(GOLDEN / "padding.ae", {})
    _same_results(pad, identity_arms.run(pad, {}), "absorb",
                  [(rng.getrandbits(128), n) for n in (0, 1, 7, 15, 16, 17, 1 << 31)])
    ops = load_module(GOLDEN / "operands.ae", {})
    sunk = identity_arms.run(ops, {})
    _same_results(ops, sunk, "f", [(rng.getrandbits(16), rng.getrandbits(16), c) for c in (0, 3, 7, 8, 9, 0xffff)])
    assert _in_arms(sunk, "and") == 1 and _in_arms(sunk, "sub") == 1


def test_norx_payload_xors_the_pad_in_the_partial_block_arm_only():
    before = pipeline.run(load_module(ROOT / "specs/schemes/norx32_4_1.ae", {}), {}, until="cse_dce")
    after = identity_arms.run(before, {})
    assert _in_arms(after, "xor") > _in_arms(before, "xor")
    assert check_equivalent(before, after, trials=2, seed=5, functions=["encrypt", "decrypt"]) > 0
    assert identity_arms.run(before, {"identity_arms": "off"}) is not before     # off: a copy, unchanged
    assert _in_arms(identity_arms.run(before, {"identity_arms": "off"}), "xor") == _in_arms(before, "xor")


def test_where_it_must_not_act(tmp_path):
    path = tmp_path / "not_sunk.ae"
    path.write_text(NOT_SUNK)
    before = load_module(path, {})
    after = identity_arms.run(before, {})
    for name in ("twice", "left_of_sub", "not_identity", "later_operand", "secret_select"):
        b, a = before.function(name), after.function(name)
        assert [op.opcode for op in walk_ops(a.body)] == [op.opcode for op in walk_ops(b.body)], name
        _same_results(before, after, name, [(0x9e3779b9, n) for n in (0, 3, 4, 5)])
