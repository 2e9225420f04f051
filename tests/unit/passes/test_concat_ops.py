"""Windows a word multiple apart in a bitwise tree made as one (aedsl/ir/passes/concat_ops.py)."""
from __future__ import annotations

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import concat_ops
from aedsl.ir.printer import print_module

from .tv import check_equivalent

W16 = {"word_bits": "16"}


def _module(tmp_path, body: str):
    """f over two 128-bit values, through the passes before this one, without word legalization
    (as an entry point's wide parameters in memory stay)."""
    path = tmp_path / "x.ae"
    path.write_text(f"""
spec x
fn f(s: u128, b: u128) -> u16 {{
    {body}
}}
""")
    return pipeline.run(load_module(path, {}), {}, until="sbox_fusion")


def _live(module):
    """The module after the pass's cleanup (its replaced windows are dead)."""
    return pipeline.run(module, {}, until="concat_ops", skip=frozenset(pipeline.STAGES[:pipeline.STAGES.index("concat_ops")]))


def _slices(module) -> list[int]:
    """The bits f slices its operands at, in order."""
    return [op.attrs["lo"] for op in walk_ops(module.function("f").body) if op.opcode == "slice"]


def test_windows_a_word_apart_become_one(tmp_path):
    before = _module(tmp_path, "return s[22:7] ^ s[53:38] ^ b[101:86] ^ s[85:70]")
    after = concat_ops.run(before, W16)
    # s[53:38], b[101:86] and s[85:70] are 6 bits into a word (sources may differ): one window
    # at bit 6 of the XOR of the 32-bit spans at 32, 80 and 64
    assert _slices(_live(after)) == [7, 32, 80, 64, 6]
    assert check_equivalent(before, after, trials=40) > 0


def test_at_32_bit_words_the_same_offsets_are_apart(tmp_path):
    before = _module(tmp_path, "return s[53:38] ^ s[85:70]")
    assert _slices(_live(concat_ops.run(before, {}))) == [32, 64, 6]
    before = _module(tmp_path, "return s[53:38] ^ s[69:54]")    # 16 apart: not at 32
    assert print_module(concat_ops.run(before, {})) == print_module(before)


def test_left_alone(tmp_path):
    for body in ("t = s[53:38]\n    return t ^ s[85:70] ^ (t >>> 1)",      # a window read twice
                 "return s[53:38] ^ s[86:71]",                              # 6 and 7 bits in
                 "return s[47:32] ^ s[79:64]",                              # whole words
                 "return s[53:38] ^ s[54:39] ^ s[85:70]",                   # 38 has a neighbour at 39
                 "return s[53:38] ^ (s[85:70] & b[15:0])"):                 # not one tree
        before = _module(tmp_path, body)
        assert print_module(concat_ops.run(before, W16)) == print_module(before), body


def test_legalized_windows_of_carried_words(tmp_path):
    """After word legalization a window is cat(w1[k-1:0], w0[15:k]): same-layout concats merge
    on their words, in a loop over a carried register (the Grain shape)."""
    path = tmp_path / "x.ae"
    path.write_text("""
spec x
fn f(s: u128, n: u8) -> u128 {
    for i in 0..n {
        s = cat(s[15:0] ^ s[53:38] ^ s[85:70], s[127:16])
    }
    return s
}
""")
    before = pipeline.run(load_module(path, {}), W16, until="sbox_fusion")
    after = concat_ops.run(before, W16)
    concats = [op for op in walk_ops(_live(after).function("f").body) if op.opcode == "concat"]
    assert len(concats) == 1 and [a.width for a in concats[0].args] == [6, 10]
    assert check_equivalent(before, after, trials=40) > 0
