"""Table fusion leaves address arithmetic alone: after word legalization a wide table line u is
read word by word at index 8*u + j, a function of the 4-bit root u that the pass used to turn
into a 16-entry table per word (15 for GCM's Shoup tables). Only the AES T-tables are fused."""

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops

from tests.paths import ROOT


def fused_tables(spec, knobs, pass_knobs):
    m = pipeline.run(load_module(ROOT / spec, knobs), pass_knobs)
    return m, [t for t in m.tables if t.name.startswith("tf")]


def test_gcm_shoup_tables_keep_their_index_arithmetic():
    m, tf = fused_tables("specs/schemes/gcm.ae", {"ghash": "shoup4"}, {"table_fusion": "full", "word_bits": "16"})
    # the four 16-bit AES T-tables (encryption only: GCM never decrypts), nothing else
    assert len(tf) == 4 and all(t.elem_width == 16 and t.length == 256 for t in tf)
    mul = m.function("G.mul_h")
    loads = [op for op in walk_ops(mul.body) if op.opcode == "load" and op.args[0].name == "tab"]
    assert len(loads) == 2 * 8 * 2          # two lines per byte, 8 words each, 2 bytes per step


def test_aes_t_tables_still_fused():
    _, tf = fused_tables("specs/primitives/aes.ae", {}, {"table_fusion": "full", "word_bits": "16"})
    assert sorted((t.elem_width, t.length) for t in tf) == [(16, 256)] * 8   # enc and inverse


def test_legalize_keeps_a_block_access_whole():
    """A 16-byte partial load/store of a byte buffer stays one access at W=16 (a wide load read
    by slices, a store of a concat), so the backends' block path (one alignment and count test,
    then word moves) applies; before, each word was its own access with a share of the count."""
    m = pipeline.run(load_module(ROOT / "specs/schemes/ctr.ae", {}), {"table_fusion": "full", "word_bits": "16"})
    f = m.function("xor_stream")                 # the keystream loop, kept as a call
    loads = [op for op in walk_ops(f.body) if op.opcode == "load_be" and len(op.args) == 3]
    stores = [op for op in walk_ops(f.body) if op.opcode == "store_be" and len(op.args) == 4]
    assert [(op.attrs["bytes"], op.results[0].width) for op in loads] == [(16, 128)]
    assert [op.attrs["bytes"] for op in stores] == [16]
