"""Loops of word-stepped byte-buffer blocks compiled twice, for aligned buffers and as written
(aedsl/ir/passes/align_versioning.py): when the pass acts, which accesses it marks, and that the
rewritten module computes what the spec says."""
from __future__ import annotations

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.interp import compile_module
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import align_versioning as av

from .tv import check_equivalent

ARM = {"word_align": "4"}


def _module(tmp_path, body: str, params: str = "msg: bytes, ct: bytes, s: u32", ret: str = "u32"):
    (tmp_path / "s.ae").write_text(f"spec s\nfn f({params}) -> {ret} {{\n{body}\n    return s\n}}\n")
    return pipeline.run(load_module(tmp_path / "s.ae", {}), {}, until="cse_dce")


def _marked(module):
    return [op for op in walk_ops(module.function("f").body) if op.attrs.get("aligned")]


def _ifs(module):
    return [op for op in walk_ops(module.function("f").body) if op.opcode == "if"]


LOOP = """    for i in 0..len(msg) / 8 {
        s = s ^ (load_be(msg, 8 * i, 8) as u32)
        store_be(ct, 8 * i, s as u64, 8)
    }"""


def test_a_word_stepped_loop_gets_an_aligned_copy(tmp_path):
    before = _module(tmp_path, LOOP)
    after = av.run(before, ARM)
    (branch,) = _ifs(after)
    fast, slow = branch.regions
    assert [op.opcode for op in fast.ops] == ["for"] and [op.opcode for op in slow.ops] == ["for"]
    assert sorted(op.opcode for op in _marked(after)) == ["load_be", "store_be"]
    assert not any(op.attrs.get("aligned") for op in walk_ops(slow))
    tests = [op for op in after.function("f").body.ops if op.opcode == "addr_low"]
    assert sorted(op.args[0].name for op in tests) == ["ct", "msg"]
    assert all(op.attrs["bits"] == 2 for op in tests)
    assert check_equivalent(before, after, trials=20) == 20


def test_what_keeps_its_test(tmp_path):
    # a step of 2 bytes (not a multiple of 4), a run-time count, an offset the loop carries
    body = """    o = 0 as u32
    for i in 0..len(msg) / 8 {
        s = s ^ (load_be(msg, 2 * i, 8) as u32) ^ (load_be(ct, 8 * i, 8, len(ct) - 8 * i) as u32)
        s = s ^ (load_be(msg, o, 8) as u32)
        o = o + 8
    }"""
    before = _module(tmp_path, body)
    assert not _ifs(av.run(before, ARM))
    # on a 2-byte word the first one qualifies
    after = av.run(before, {"word_align": "2", "align_versioning": "on"})
    assert [op.args[1] for op in _marked(after)] and len(_marked(after)) == 1
    assert check_equivalent(before, after, trials=20) == 20


def test_when_it_runs(tmp_path):
    before = _module(tmp_path, LOOP)
    assert not av.acts({})                                          # no target word: nothing
    assert av.acts(ARM) and not av.acts(dict(ARM, opt="size"))      # auto: speed mode only
    assert av.acts(dict(ARM, opt="size", align_versioning="on"))
    assert not av.acts(dict(ARM, align_versioning="off"))
    assert av.run(before, dict(ARM, opt="size")) is before
    # auto doubles only small loops; `on` any
    big = LOOP.replace("        store_be", "        s = s ^ (s <<< 3)\n" * 50 + "        store_be")
    m = _module(tmp_path, big)
    assert not _ifs(av.run(m, ARM)) and _ifs(av.run(m, dict(ARM, align_versioning="on")))


def test_addr_low_in_the_interpreter(tmp_path):
    # byte buffers sit at multiples of 16 in the interpreter: the low bits are the offset's
    m = _module(tmp_path, LOOP)
    after = av.run(m, ARM)
    prog = compile_module(after)
    for n in (0, 8, 24):
        msg = list(range(n))
        (res,) = prog.call("f", [msg, [0] * n, 5])
        (ref,) = compile_module(m).call("f", [msg, [0] * n, 5])
        assert res == ref
