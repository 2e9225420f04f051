"""S-box layer fusion (aedsl/ir/passes/sbox_fusion.py) on Hummingbird-2: the tables it derives
from the spec's 4-bit S-boxes and L(x) = x ^ (x <<< 6) ^ (x <<< 10) are checked against an
independent model (fL/fH for f, LL/LH for L^-1 and the two merged inverse S-boxes), the pass keeps
the semantics (translation validation in the interpreter), and it changes nothing on the
library's other specs, whose S-box layers are not followed or preceded by a mixing linear map."""
from __future__ import annotations

from functools import lru_cache

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import legalize
from aedsl.ir.printer import print_module

from tests.e2e.hummingbird2 import hb2_model
from tests.paths import ROOT, SPECS
from tests.tiers import tiered
from .tv import check_equivalent

HB2 = ROOT / "specs" / "drafts" / "hummingbird2.ae"


@lru_cache(maxsize=None)
def stages(unroll: str, word_bits: str, inline: str = "none"):
    """(elaborated module, IR before sbox_fusion, IR after it); inline=none keeps f and f_inv
    apart."""
    module = load_module(HB2, {"unroll": unroll})
    knobs = {"word_bits": word_bits, "inline": inline}
    return module, pipeline.run(module, knobs, until="table_fusion"), pipeline.run(module, knobs, until="sbox_fusion")


def lookups(module, fn_name: str) -> list:
    """The tables the function reads, in order of first use."""
    seen = {}
    for op in walk_ops(module.function(fn_name).body):
        if op.opcode == "load" and op.args[0].kind == "table":
            seen.setdefault(op.args[0].name, op.args[0])
    return list(seen.values())


@pytest.mark.parametrize("word_bits", ["16", "32"])
def test_f_becomes_two_byte_tables(word_bits):
    _, before, after = stages("1", word_bits)
    assert [t.name for t in lookups(before, "f")] == ["s1", "s2", "s3", "s4"]
    tables = lookups(after, "f")
    assert [(t.elem_width, t.length) for t in tables] == [(16, 256), (16, 256)]
    lo, hi = (t.data for t in tables)
    assert all(lo[x & 0xFF] ^ hi[x >> 8] == hb2_model.f(x) for x in range(1 << 16))


@pytest.mark.parametrize("word_bits", ["16", "32"])
def test_f_inverse_becomes_byte_tables_of_l_inverse_and_merged_inverse_sboxes(word_bits):
    _, _, after = stages("1", word_bits)
    tables = lookups(after, "f_inv")
    assert [(t.elem_width, t.length) for t in tables] == [(16, 256), (16, 256), (8, 256), (8, 256)]
    ll, lh, mh, ml = (t.data for t in tables)
    assert all(ll[x & 0xFF] ^ lh[x >> 8] == hb2_model.lin_inv(x) for x in range(1 << 16))
    assert all((mh[v >> 8] << 8 | ml[v & 0xFF]) == hb2_model.sub(v, hb2_model.S_INV) for v in range(1 << 16))
    assert all(op.args[0].name not in ("s1_inv", "s2_inv", "s3_inv", "s4_inv")
               for op in walk_ops(after.function("f_inv").body) if op.opcode == "load")


def test_unrolled_and_inlined_word_functions_keep_no_rotation_and_no_nibble_sbox():
    """With WD16 unrolled and everything inlined, every f and f^-1 is still found (the
    inverse's linear map then reads the XOR of the previous f^-1 and a key word)."""
    _, _, after = stages("full", "16", "auto")
    for fn in ("encrypt_with", "decrypt_with"):
        ops = list(walk_ops(after.function(fn).body))
        assert not any(op.opcode in ("rotl", "rotr") and op.attrs["by"] in (2, 4, 6, 10, 12, 14) for op in ops), fn
        assert not any(op.opcode == "load" and op.args[0].name.startswith("s") and op.args[0].elem_width == 4
                       for op in ops), fn


@pytest.mark.parametrize("unroll,word_bits,inline", [("1", "16", "none"), ("full", "16", "auto"), ("1", "32", "auto")])
def test_translation_validation(unroll, word_bits, inline):
    module, before, after = stages(unroll, word_bits, inline)
    fns = [f.name for f in after.functions if f.name not in ("encrypt", "decrypt")]
    assert check_equivalent(before, after, trials=3, functions=fns) == 3 * len(fns)
    assert check_equivalent(module, after, trials=2, functions=["encrypt", "decrypt"],
                            interface=legalize.Interface(module, int(word_bits))) == 4


def test_knob_none_changes_nothing():
    _, before, _ = stages("1", "16")
    module = load_module(HB2, {"unroll": "1"})
    off = pipeline.run(module, {"word_bits": "16", "inline": "none", "sbox_fusion": "none"}, until="sbox_fusion")
    assert print_module(off) == print_module(before)


OTHERS = sorted((SPECS / "primitives").glob("*.ae")) + sorted((SPECS / "schemes").glob("*.ae"))
FAST = {"photon256", "skinny128_384plus", "aes"}


@pytest.mark.parametrize("path", tiered(OTHERS, lambda p: p.stem in FAST, single=True), ids=[p.stem for p in OTHERS])
def test_other_specs_are_left_alone(path):
    """PHOTON's S-box layer is followed by a rotation without XOR, SKINNY's by byte rotations,
    AES's by byte moves (its xtime of an S-box output reads one byte): none is fused (tables
    there would cost kilobytes for little speed, or are table_fusion's to make)."""
    module = load_module(path, {})
    for word_bits in ("16", "32"):
        for table_fusion in ("none", "full"):
            knobs = {"word_bits": word_bits, "table_fusion": table_fusion}
            before = pipeline.run(module, knobs, until="table_fusion")
            after = pipeline.run(module, knobs, until="sbox_fusion")
            assert print_module(after) == print_module(before), knobs
