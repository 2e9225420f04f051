"""S-box layer fusion (aedsl/ir/passes/sbox_fusion.py) on Hummingbird-2: the tables it derives
from the spec's 4-bit S-boxes and L(x) = x ^ (x <<< 6) ^ (x <<< 10) are checked against an
independent model (fL/fH for f, LL/LH for L^-1 and the two merged inverse S-boxes), the pass keeps
the semantics (translation validation in the interpreter), and it changes nothing on the
library's other specs, whose S-box layers are not followed or preceded by a mixing linear map,
except (knob value `merge`) the nibble S-box layers of Spongent and PHOTON, read a byte at a time."""
from __future__ import annotations

from functools import lru_cache

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import legalize, sbox_fusion
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


# The specs whose 4-bit S-box layers `merge` reads a byte at a time (pattern 3).
MERGED = {"photon256", "spongent_pi160", "photon_beetle_aead128", "elephant_dumbo"}


@pytest.mark.parametrize("path", tiered(OTHERS, lambda p: p.stem in FAST, single=True), ids=[p.stem for p in OTHERS])
def test_other_specs_are_left_alone(path):
    """Under `bytes`: PHOTON's S-box layer is followed by a rotation without XOR, SKINNY's by
    byte rotations, AES's by byte moves (its xtime of an S-box output reads one byte): none is
    fused (tables there would cost kilobytes for little speed, or are table_fusion's to make).
    Under `merge` only the nibble S-box layers (MERGED) change: an 8-bit S-box reads each byte
    once, so there is nothing to merge."""
    module = load_module(path, {})
    modes = ("bytes",) if path.stem in MERGED else ("bytes", "merge")
    for word_bits in ("16", "32"):
        for table_fusion in ("none", "full"):
            knobs = {"word_bits": word_bits, "table_fusion": table_fusion}
            before = pipeline.run(module, knobs, until="table_fusion")
            for mode in modes:
                after = sbox_fusion.run(before, knobs | {"sbox_fusion": mode})
                assert print_module(after) == print_module(before), knobs | {"sbox_fusion": mode}


# The 4-bit S-boxes as their specifications print them (SPONGENT, CHES 2011, Table 1; PHOTON,
# CRYPTO 2011, §2.1: the PRESENT S-box), independent of the specs' tables.
NIBBLE_SBOXES = {
    "spongent_pi160": [0xE, 0xD, 0xB, 0x0, 0x2, 0x1, 0x4, 0xF, 0x7, 0xA, 0x8, 0x5, 0x9, 0xC, 0x3, 0x6],
    "photon256": [0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2],
}


@lru_cache(maxsize=None)
def merge_stages(stem: str, word_bits: str | None):
    module = load_module(SPECS / "primitives" / f"{stem}.ae", {})
    knobs = {"table_fusion": "none"} | ({"word_bits": word_bits} if word_bits else {})
    return (module, pipeline.run(module, knobs | {"sbox_fusion": "bytes"}, until="sbox_fusion"),
            pipeline.run(module, knobs | {"sbox_fusion": "merge"}, until="sbox_fusion"))


@pytest.mark.parametrize("word_bits", [None, "16", "32"])
@pytest.mark.parametrize("stem", sorted(NIBBLE_SBOXES))
def test_a_nibble_sbox_layer_alone_reads_one_byte_table(stem, word_bits):
    """Pattern 3: the permutation's S-box layer (Spongent: an OR of placed nibbles over a u160;
    PHOTON: a concat of eight nibbles of a row, some rows then rotated by nibbles) reads one
    256-entry table, a byte at a time, S[v & 15] | S[v >> 4] << 4; no 4-bit lookup is left.
    Exception: PHOTON legalized to 16-bit words, where a row rotated by 4i bits, i not 0 or 4,
    makes each output word of two input words; the pass reads one base value per layer, so
    those six rows keep their nibble lookups (rows 0 and 4 merge). The default MSP430 build does
    not legalize PHOTON (the selector splits its words), so all its rows merge there."""
    _, before, after = merge_stages(stem, word_bits)
    sbox = NIBBLE_SBOXES[stem]
    assert [(t.elem_width, t.length) for t in lookups(before, "permute") if t.elem_width == 4] == [(4, 16)]
    merged = [t for t in lookups(after, "permute") if t.name.startswith("sf")]
    assert [(t.elem_width, t.length) for t in merged] == [(8, 256)]
    assert list(merged[0].data) == [sbox[v & 15] | sbox[v >> 4] << 4 for v in range(256)]
    nibble = sum(op.opcode == "load" and op.args[0].elem_width == 4
                 for op in walk_ops(after.function("permute").body))
    assert nibble == (48 if (stem, word_bits) == ("photon256", "16") else 0)


@pytest.mark.parametrize("word_bits", [None, "16"])
@pytest.mark.parametrize("stem", sorted(NIBBLE_SBOXES))
def test_merge_translation_validation(stem, word_bits):
    _, before, after = merge_stages(stem, word_bits)
    fns = [f.name for f in after.functions]
    assert check_equivalent(before, after, trials=3, functions=fns) == 3 * len(fns)


def _layer(tmp_path, placement: str):
    """A two-nibble layer of one byte whose second lookup is placed by `placement`."""
    spec = tmp_path / "layer.ae"
    spec.write_text(
        "spec layer\n"
        "table s: u4[16] = {0xc, 0x5, 0x6, 0xb, 0x9, 0x0, 0xa, 0xd, 0x3, 0xe, 0xf, 0x8, 0x4, 0x7, 0x1, 0x2}\n"
        "fn f(x: u16) -> u16 {\n"
        "    return (s[x[3:0]] as u16) | (s[x[7:4]] as u16) << " + placement + " | (s[x[11:8]] as u16) << 8"
        " | (s[x[15:12]] as u16) << 12\n"
        "}\n")
    module = load_module(spec, {})
    return module, pipeline.run(module, {"sbox_fusion": "merge", "inline": "none"}, until="sbox_fusion")


def test_only_an_or_of_disjoint_bits_is_a_placement(tmp_path):
    """An OR places its arguments (like an XOR) only where they have no one-bit in common:
    nibbles at 0, 4, 8, 12 merge into two byte lookups. With the second nibble at 6, its bits 8
    and 9 overlap the third nibble's: that OR is not linear, the value it makes depends on two
    bytes, and nothing changes."""
    module, after = _layer(tmp_path, "4")
    assert [(t.elem_width, t.length) for t in lookups(after, "f")] == [(8, 256)]
    assert check_equivalent(module, after, trials=4, functions=["f"]) == 4
    module, after = _layer(tmp_path, "6")
    assert [t.name for t in lookups(after, "f")] == ["s"]
