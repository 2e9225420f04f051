"""The register-pressure schedule (aedsl/ir/passes/schedule.py): it lowers the peak number of
live values where legalization left limbs interleaved, keeps effects in order, and
`op_order=source` leaves the IR as written. (Its results are checked against the interpreter by
test_translation_validation.py, like every pass.)"""
from __future__ import annotations

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import schedule
from aedsl.ir.printer import print_module

from tests.paths import SPECS


def _loop_body(module, fn):
    return next(op for op in module.function(fn).body.ops if op.opcode == "for").regions[0]


def test_the_ascon_round_needs_fewer_live_words():
    before = pipeline.run(load_module(SPECS / "primitives" / "ascon_p.ae", {}), {"word_bits": "32"},
                          until="table_fusion")
    after = pipeline.run(before, {"word_bits": "32"})
    consts = schedule._consts(before.function("permute"))
    b, a = _loop_body(before, "permute"), _loop_body(after, "permute")
    assert schedule.peak_live(a.ops, a.yields, consts) < schedule.peak_live(b.ops, b.yields, consts)
    assert sorted(id(op) for op in b.ops) != [] and len(a.ops) == len(b.ops)


def test_effects_keep_their_order():
    module = pipeline.run(load_module(SPECS / "schemes" / "ascon128.ae", {}), {"word_bits": "16"},
                          until="table_fusion")
    after = schedule.run(module, {})
    for fn_b, fn_a in zip(module.functions, after.functions):
        effects = lambda fn: [(op.opcode, [getattr(a, "name", None) for a in op.args])
                              for op in walk_ops(fn.body) if op.opcode in ("store", "store_be", "call", "for", "if")]
        assert effects(fn_a) == effects(fn_b), fn_b.name


def test_source_order_knob_leaves_the_ir_alone():
    module = pipeline.run(load_module(SPECS / "primitives" / "norx_f.ae", {}), {"word_bits": "16"},
                          until="table_fusion")
    assert print_module(schedule.run(module, {"op_order": "source"})) == print_module(module)
    assert print_module(schedule.run(module, {})) != print_module(module)
