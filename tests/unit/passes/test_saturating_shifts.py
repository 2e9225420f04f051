"""saturating_shifts (aedsl/ir/passes/saturating_shifts.py): a wide shift by a public byte count
inside a loop is guarded by `count * 8 < width`, and its chain computed from 0 in the other arm.
Checked in the interpreter against the IR before the pass on the golden cases (whole and partial
blocks, so both arms run) and on NORX32-4-1's decryption, and where it must not act: outside a
loop, under an `if` that bounds the amount, a shift by a loop index, and a secret amount."""
import random

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.interp import Program
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import saturating_shifts

from tests.paths import ROOT
from .tv import check_equivalent

GOLDEN = ROOT / "tests/unit/passes/golden/saturating_shifts"

NOT_GUARDED = """spec saturating_not_guarded

// once per call: no loop
fn once(buf: bytes) -> u128 {
    n = len(buf)
    return load_le(buf, 0, 16, n) & ~(~(0 as u128) << (8 * n))
}

// bounded below the width by the enclosing if
fn bounded(buf: bytes) -> u128 {
    n = len(buf)
    acc = 0 as u128
    for i in 0..(n + 15) / 16 {
        count = if n - 16 * i < 16 then n - 16 * i else 16
        if count < 16 {
            acc = acc ^ ((1 as u128) << (8 * count))
        }
    }
    return acc
}

// a shift by the loop index walks bits
fn bits(x: u128) -> u16 {
    acc = 0 as u16
    for k in 0..8 {
        acc = acc ^ (x >> (16 * k))[15:0]
    }
    return acc
}

// a byte count mixed with a secret byte of the buffer
fn secret(buf: bytes) -> u128 {
    n = len(buf)
    acc = 0 as u128
    for i in 0..(n + 15) / 16 {
        k = (n - 16 * i) ^ (load_le(buf, 0, 1) as u32)
        acc = acc ^ ((1 as u128) << (8 * k))
    }
    return acc
}
"""


def _guards(module):
    return sum(op.opcode == "ult" and op.results[0].name.startswith("in_range")
               for f in module.functions for op in walk_ops(f.body))


def test_golden_cases_keep_their_results():
    rng = random.Random(11)
    for case, fn in (("first_bytes", "masked_sum"), ("padding", "absorb")):
        before = load_module(GOLDEN / f"{case}.ae", {})
        after = saturating_shifts.run(before, {})
        assert _guards(after) == 1
        p0, p1 = Program(before), Program(after)
        for n in (0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 70):
            buf = [rng.getrandbits(8) for _ in range(n)]
            assert p0.call(fn, [list(buf)]) == p1.call(fn, [list(buf)]), (case, n)


def test_norx_decryption_guards_its_first_bytes_mask():
    before = pipeline.run(load_module(ROOT / "specs/schemes/norx32_4_1.ae", {}), {}, until="identity_arms")
    after = saturating_shifts.run(before, {})
    assert _guards(after) == 1                  # the decryption's mask; the padding is under `count < rate`
    assert check_equivalent(before, after, trials=2, seed=5, functions=["decrypt"]) > 0
    assert _guards(saturating_shifts.run(before, {"saturating_shifts": "off"})) == 0


def test_where_it_must_not_act(tmp_path):
    path = tmp_path / "not_guarded.ae"
    path.write_text(NOT_GUARDED)
    before = load_module(path, {})
    after = saturating_shifts.run(before, {})
    for name in ("once", "bounded", "bits", "secret"):
        b, a = before.function(name), after.function(name)
        assert [op.opcode for op in walk_ops(a.body)] == [op.opcode for op in walk_ops(b.body)], name
