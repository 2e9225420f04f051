"""Closed recurrences of rolled loops as tables (aedsl/ir/passes/recurrence_tables.py): when the
pass acts, when it does not, and that the rewritten loop computes what the spec says."""
from __future__ import annotations

import random

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.interp import compile_module
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import recurrence_tables
from aedsl.ir.printer import print_module

from tests.paths import ROOT
from .tv import check_equivalent

W16 = {"word_bits": "16"}


def _module(tmp_path, text: str):
    path = tmp_path / "r.ae"
    path.write_text(text)
    return pipeline.run(load_module(path, {}), W16, until="legalize")


def _tables(module):
    return [t for t in module.tables if t.name.startswith(recurrence_tables.PREFIX)]


def _loops(module, fn):
    return [op for op in walk_ops(module.function(fn).body) if op.opcode == "for"]


LFSR = """
spec r
fn f(x: u16) -> (u16, u8) {
    c = 0x75 as u8
    for i in 0..40 {
        x = (x ^ (c as u16) ^ ((c >> 3) as u16 << 8)) <<< 5
        c = ((c << 1) | ((c >> 6) ^ (c >> 5)) & 1) & 0x7f
    }
    return x, c
}
"""


def test_an_lfsr_counter_becomes_tables_and_its_final_value_a_constant(tmp_path):
    before = _module(tmp_path, LFSR)
    after = recurrence_tables.run(before, W16)
    (loop,) = _loops(after, "f")
    assert len(loop.args) == 3                      # lo, hi and x: c left the loop
    (table,) = _tables(after)
    # one table of records (round t: c, then (c >> 3) << 8); c needs a byte, the other a word
    # (no whole 16-bit word of zeros to shift out), so every entry is a word
    assert (table.elem_width, table.length) == (16, 80)
    c, seq = 0x75, []
    for _ in range(40):
        seq.append(c)
        c = ((c << 1) | ((c >> 6) ^ (c >> 5)) & 1) & 0x7F
    assert list(table.data) == [x for v in seq for x in (v, v >> 3 << 8)]
    ret = compile_module(after).call("f", [0x1234])
    assert ret == compile_module(before).call("f", [0x1234]) and ret[1] == c
    assert check_equivalent(before, after, trials=20) > 0


def test_the_input_is_not_changed_and_the_knobs_turn_it_off(tmp_path):
    before = _module(tmp_path, LFSR)
    text = print_module(before)
    for knobs in ({"recurrence_tables": "none"}, {"opt": "size"}):
        assert print_module(recurrence_tables.run(before, dict(W16, **knobs))) == text
        assert not recurrence_tables.acts(knobs)
    recurrence_tables.run(before, W16)
    assert print_module(before) == text
    with pytest.raises(ValueError):
        recurrence_tables.run(before, {"recurrence_tables": "all"})


@pytest.mark.parametrize("text", [
    # a counter whose only use is itself: one load would replace one add
    """
spec r
fn f(x: u16) -> u16 {
    c = 3 as u16
    for i in 0..10 {
        x = (x ^ c) <<< 1
        c = c + 5
    }
    return x
}
""",
    # the next value reads the state: not known at compile time
    """
spec r
fn f(x: u16) -> u16 {
    c = 3 as u16
    for i in 0..10 {
        c = (c <<< 3) ^ (c >> 2) ^ x
        x = (x ^ c) <<< 1
    }
    return x
}
""",
    # bounds known only at run time
    """
spec r
fn f(x: u16, n: u16) -> u16 {
    c = 1 as u16
    for i in 0..n {
        x = (x ^ (c >> 1) ^ (c << 9)) <<< 1
        c = (c << 1) ^ (c >> 5) ^ 1
    }
    return x
}
""",
])
def test_left_alone(tmp_path, text):
    before = _module(tmp_path, text)
    after = recurrence_tables.run(before, W16)
    assert _tables(after) == []
    assert [len(op.args) for op in _loops(after, "f")] == [len(op.args) for op in _loops(before, "f")]


def test_round_constants_from_a_table_are_tabulated_split():
    # SKINNY's rc[i] split into its nibbles, each placed in a row's top byte: the nibbles' words
    # (c & 0xf) << 8 and (c >> 4) << 8 are records of one word table, rc itself is not read
    module = pipeline.run(load_module(ROOT / "specs/primitives/skinny128_384plus.ae", {}), {},
                          until="recurrence_tables")
    rc = next(t for t in module.tables if t.name == "rc").data
    records = [x for c in rc[:40] for x in ((c & 0xF) << 8, (c >> 4) << 8)]
    assert any(list(t.data) == records and t.elem_width == 16 for t in _tables(module))
    loop = _loops(module, "encrypt_block")[0]
    assert not any(op.opcode == "load" and op.args[0].name == "rc" for op in walk_ops(loop.regions[0]))
    # `recurrences` leaves a lookup's values alone (no recurrence in this loop)
    kept = pipeline.run(load_module(ROOT / "specs/primitives/skinny128_384plus.ae", {}),
                        {"recurrence_tables": "recurrences"}, until="recurrence_tables")
    assert _tables(kept) == []


def test_a_table_lookup_in_the_recurrence_and_an_inner_loop(tmp_path):
    # c walks a table (a lookup inside the recurrence), in a loop nested in another: each run of
    # the inner loop starts again from the constant, so the inner loop is tabulated.
    text = """
spec r
table nxt: u8[8] = {3, 6, 0, 5, 7, 1, 2, 4}
fn f(x: u16) -> u16 {
    for j in 0..3 {
        c = 1 as u8
        for i in 0..8 {
            x = (x ^ ((nxt[c[2:0]] as u16) << 4) ^ (c as u16 << 12)) <<< 3
            c = nxt[c[2:0]] ^ (c << 3)
        }
    }
    return x
}
"""
    before = _module(tmp_path, text)
    after = recurrence_tables.run(before, W16)
    assert len(_tables(after)) >= 1
    inner = [op for op in _loops(after, "f") if len(op.regions[0].params) == 2]
    assert inner, "the inner loop carries only x now"
    rng = random.Random(3)
    ref, new = compile_module(before), compile_module(after)
    for _ in range(200):
        x = rng.randrange(1 << 16)
        assert new.call("f", [x]) == ref.call("f", [x])


def test_spongent_counter_is_one_table_of_records():
    # Spongent-pi[160]'s lCounter and its reversal in the state's top byte: one word each per
    # round (the reversal as the top word's value, read straight into it)
    module = pipeline.run(load_module(ROOT / "specs/primitives/spongent_pi160.ae", {}), W16,
                          until="recurrence_tables")
    assert [(t.elem_width, t.length) for t in _tables(module)] == [(16, 160)]
    (loop,) = _loops(module, "permute")
    assert len(loop.regions[0].params) == 1 + 10       # the index and the state's ten words


def test_armv6m_tabulates_recurrences_only():
    from aedsl import chips
    from aedsl.backends import registry
    chip = chips.load("stm32f030")
    module = load_module(ROOT / "specs/primitives/skinny128_384plus.ae", {})
    assert registry.target_for(chip).pass_knobs(module, chip, {})["recurrence_tables"] == "recurrences"


def test_a_loop_of_one_trip_gets_constants_and_no_table(tmp_path):
    before = _module(tmp_path, """
spec r
table rc: u8[4] = {0x13, 0x25, 0x37, 0x49}
fn f(x: u16) -> u16 {
    for i in 2..3 {
        x = (x ^ ((rc[i] & 0xf) as u16 << 8) ^ ((rc[i] >> 4) as u16)) <<< 1
    }
    return x
}
""")
    after = recurrence_tables.run(before, W16)
    assert _tables(after) == []
    assert not any(op.opcode == "load" for op in walk_ops(after.function("f").body))
    assert check_equivalent(before, after, trials=10) > 0


def test_a_wide_value_is_tabulated_by_32_bit_fields(tmp_path):
    # a 96-bit round-dependent value: three 32-bit fields a round, the value rebuilt from them
    text = """
spec r
fn f(x: u96) -> u96 {
    c = 0x123456789abcdef012345678 as u96
    for i in 0..8 {
        x = (x ^ c) <<< 5
        c = (c <<< 13) ^ (c >> 3) ^ 0x9e3779b97f4a7c15
    }
    return x
}
"""
    path = tmp_path / "w.ae"
    path.write_text(text)
    before = pipeline.run(load_module(path, {}), {}, until="legalize")
    after = recurrence_tables.run(before, {})
    assert [(t.elem_width, t.length) for t in _tables(after)] == [(32, 24)]
    assert check_equivalent(before, after, trials=10) > 0
    # a 64-bit value whose words hold a nibble each: two word fields, the rest constant zeros
    # (SKINNY's round constant rows, added to TK3's once per key)
    module = pipeline.run(load_module(ROOT / "specs/primitives/skinny128_384plus.ae", {}), {},
                          until="recurrence_tables")
    assert any(t.elem_width == 16 and t.length == 80 for t in _tables(module))


PACK = dict(W16, record_packing="on")


def test_fields_that_never_share_a_bit_share_an_entry(tmp_path):
    # c takes bits 0-6, (c >> 3) << 8 bits 8-11: with record_packing one word a round, their OR,
    # read as `x & 0xff` and `x ^ (x & 0xff)`
    before = _module(tmp_path, LFSR)
    after = recurrence_tables.run(before, PACK)
    (table,) = _tables(after)
    c, seq = 0x75, []
    for _ in range(40):
        seq.append(c)
        c = ((c << 1) | ((c >> 6) ^ (c >> 5)) & 1) & 0x7F
    assert (table.elem_width, table.length) == (16, 40)
    assert list(table.data) == [v | v >> 3 << 8 for v in seq]
    (loop,) = _loops(after, "f")
    masks = [op.args[1] for op in walk_ops(loop.regions[0]) if op.opcode == "and"]
    consts = {id(r): op.attrs["value"] for op in walk_ops(loop.regions[0]) if op.opcode == "const" for r in op.results}
    assert {consts[id(m)] for m in masks} == {0xFF}         # (one `and` once CSE has run)
    assert check_equivalent(before, after, trials=30) > 0
    assert compile_module(after).call("f", [0xBEEF]) == compile_module(before).call("f", [0xBEEF])


def test_fields_that_share_bits_keep_their_own_entries(tmp_path):
    # c and c >> 1 overlap in bits 0-5: two words a round, packing or not
    text = LFSR.replace("((c >> 3) as u16 << 8)", "((c >> 1) as u16 << 3)")
    before = _module(tmp_path, text)
    (table,) = _tables(recurrence_tables.run(before, PACK))
    assert table.length == 80
    assert check_equivalent(before, recurrence_tables.run(before, PACK), trials=10) > 0


def test_spongent_counter_packs_into_one_word_a_round():
    module = pipeline.run(load_module(ROOT / "specs/primitives/spongent_pi160.ae", {}), PACK,
                          until="recurrence_tables")
    assert [(t.elem_width, t.length) for t in _tables(module)] == [(16, 80)]


def test_record_packing_is_on_for_armv6m_and_off_by_default():
    from aedsl import chips
    from aedsl.backends import registry
    module = load_module(ROOT / "specs/primitives/spongent_pi160.ae", {})
    arm, msp = chips.load("stm32f030"), chips.load("msp430f1611")
    assert registry.target_for(arm).pass_knobs(module, arm, {})["record_packing"] == "on"
    assert registry.target_for(msp).pass_knobs(module, msp, {}).get("record_packing", "off") == "off"


def test_byte_fields_make_a_byte_table():
    # record_packing=bytes: the reversal, one byte of the top word, is a byte entry like the
    # counter: two bytes a round (u8[160]), not two words (u16[160])
    module = pipeline.run(load_module(ROOT / "specs/primitives/spongent_pi160.ae", {}),
                          dict(W16, record_packing="bytes"), until="recurrence_tables")
    assert [(t.elem_width, t.length) for t in _tables(module)] == [(8, 160)]
    before = pipeline.run(load_module(ROOT / "specs/primitives/spongent_pi160.ae", {}), W16, until="legalize")
    after = recurrence_tables.run(before, dict(W16, record_packing="bytes"))
    assert [(t.elem_width, t.length) for t in _tables(after)] == [(8, 160)]
    assert check_equivalent(before, after, trials=3, functions=["permute"]) > 0
