"""A table that is a bit field of another table read from that one (aedsl/ir/passes/subtables.py)."""
from __future__ import annotations

import re

import pytest

from aedsl.driver import compile_spec
from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import Memory, walk_ops
from aedsl.ir.passes import subtables
from aedsl.ir.printer import print_module

from tests.paths import ROOT
from .tv import check_equivalent

SIZE = {"opt": "size"}


def _module(tmp_path, tables: str, body: str):
    path = tmp_path / "x.ae"
    path.write_text(f"spec x\n{tables}\nfn f(i: u8, j: u8, k: u8) -> u32 {{\n    {body}\n}}\n")
    return pipeline.run(load_module(path, {}), {}, until="sbox_fusion")


def _loads(module) -> list[str]:
    return [op.args[0].name for op in walk_ops(module.function("f").body) if op.opcode == "load"]


T = "table t: u32[4] = {0xc66363a5, 0xf87c7c84, 0xee777799, 0xf67b7b8d}\n"
S = "table s: u8[4] = {0x63, 0x7c, 0x77, 0x7b}\n"


def test_a_field_is_read_from_its_host_in_size_mode(tmp_path):
    before = _module(tmp_path, T + S, "return t[i] ^ (s[j] as u32) ^ (s[k] as u32)")
    after = subtables.run(before, SIZE)
    assert _loads(after) == ["t", "t", "t"] and [t.name for t in after.tables] == ["t"]
    assert [op.attrs["lo"] for op in walk_ops(after.function("f").body) if op.opcode == "slice"] == [8, 8]
    assert check_equivalent(before, after, trials=40) > 0
    # speed mode (the default), and the knob off, leave it alone
    for knobs in ({}, {"opt": "size", "subtables": "off"}):
        assert print_module(subtables.run(before, knobs)) == print_module(before)
    assert _loads(subtables.run(before, {"subtables": "on"})) == ["t", "t", "t"]
    with pytest.raises(ValueError, match="auto, on or off"):
        subtables.run(before, {"subtables": "maybe"})


def test_left_alone(tmp_path):
    cases = [
        # not a field: one entry differs
        (T + "table s: u8[4] = {0x63, 0x7c, 0x77, 0x7c}\n", "return t[i] ^ (s[j] as u32)"),
        # a field, but the host is not read: it would bring 16 bytes in for 4
        (T + S, "return (s[j] as u32) ^ (i as u32)"),
        # different lengths
        (T + "table s: u8[3] = {0x63, 0x7c, 0x77}\n", "return t[i] ^ (s[j] as u32)"),
    ]
    for tables, body in cases:
        before = _module(tmp_path, tables, body)
        assert print_module(subtables.run(before, SIZE)) == print_module(before), body


def test_host_and_offset_choice():
    t = Memory("t", 32, 2, "table", (0x11aabb11, 0x22ccdd22))
    w = Memory("w", 16, 2, "table", (0xaa11, 0xcc22))
    s = Memory("s", 8, 2, "table", (0x11, 0x22))
    # the narrowest host, and there the top byte (one shift) before the bottom one
    assert subtables.plan([t, w, s]) == {"s": (w, 0)}
    assert subtables.plan([t, s]) == {"s": (t, 24)}
    # a table used other than by loads stays (so do its loads)
    assert subtables.plan([t, s], {"s"}) == {}


@pytest.mark.slow
def test_aes_sbox_leaves_rom_on_cortex_m0():
    """CCM's key schedule and last round read the S-box, its rounds the rotated T-table whose
    words hold the S-box in bytes 1 and 2: in size mode the S-box is read from there, as LDRB at
    the table's address + 1 and the word's scaled index. (aes_mix=bytes: the T-table form; size
    mode's own choice on this target is the packed MixColumns, with no T-table.)"""
    knobs = {"opt": "size", "aes_mix": "bytes"}
    size = compile_spec(ROOT / "specs/schemes/ccm.ae", "stm32f030", knobs)
    speed = compile_spec(ROOT / "specs/schemes/ccm.ae", "stm32f030", {**knobs, "subtables": "off"})
    assert "ccm_E.sbox:" in speed.asm and "ccm_E.sbox:" not in size.asm
    assert re.search(r"\tldrb\tr\d, \[r\d, r\d\]", size.asm)
    code = {u: sum(v.function_bytes.values()) for u, v in (("on", size), ("off", speed))}
    assert code["on"] - code["off"] < 64, code       # the reads cost less than the 256-byte table
