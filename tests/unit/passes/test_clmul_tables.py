"""A table that is the carry-less product of its index by a constant is computed
(aedsl/ir/passes/clmul_tables.py)."""
from __future__ import annotations

import pytest

from aedsl.driver import compile_spec
from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import Memory, walk_ops
from aedsl.ir.passes import clmul_tables
from aedsl.ir.printer import print_module

from tests.paths import ROOT
from .tv import check_equivalent

SIZE = {"opt": "size"}


def _xor(i: int, c: int) -> int:
    out = 0
    for j in range(c.bit_length()):
        if (c >> j) & 1:
            out ^= i << j
    return out


def _table(name: str, c: int, n: int, w: int) -> str:
    entries = ", ".join(hex(_xor(i, c) & ((1 << w) - 1)) for i in range(n))
    return f"table {name}: u{w}[{n}] = {{{entries}}}\n"


def _module(tmp_path, tables: str, body: str, params: str = "i: u8, j: u8"):
    path = tmp_path / "x.ae"
    path.write_text(f"spec x\n{tables}\nfn f({params}) -> u16 {{\n    {body}\n}}\n")
    return pipeline.run(load_module(path, {}), {"table_fusion": "none"}, until="sbox_fusion")


def _loads(module) -> list[str]:
    return [op.args[0].name for op in walk_ops(module.function("f").body) if op.opcode == "load"]


def test_multiplier():
    r8 = Memory("r", 16, 256, "table", tuple(_xor(i, 0x1c2) for i in range(256)))
    assert clmul_tables.multiplier(r8) == 0x1c2
    wrap = Memory("m", 8, 8, "table", tuple(_xor(i, 0x83) & 0xff for i in range(8)))
    assert clmul_tables.multiplier(wrap) == 0x83
    for data in ((0, 0x83, 0x06, 0x84),              # entry 3 is not entry 1 ^ entry 2
                 (0, 1, 2, 3),                       # the identity: nothing to compute
                 (1, 0x83, 0x06, 0x85),              # entry 0 is not 0
                 (0, 0, 0, 0)):                      # all zero: c = 0
        assert clmul_tables.multiplier(Memory("t", 8, 4, "table", data)) is None, data
    assert clmul_tables.multiplier(Memory("t", 8, 3, "table", (0, 3, 6))) is None   # not 2^b entries
    dense = Memory("t", 16, 2, "table", (0, 0x1ff))                                  # 9 terms
    assert clmul_tables.multiplier(dense) is None


def test_loads_become_shifts_in_size_mode(tmp_path):
    before = _module(tmp_path, _table("r", 0x1c2, 256, 16), "return (i as u16) ^ r[j]")
    after = clmul_tables.run(before, SIZE)
    assert _loads(after) == [] and after.tables == []
    shifts = [(op.opcode, op.attrs["by"]) for op in walk_ops(after.function("f").body)
              if op.opcode in ("shl", "shr")]
    assert sorted(shifts) == [("shl", 1), ("shl", 8), ("shr", 1), ("shr", 1)]
    assert check_equivalent(before, after, trials=200) > 0
    # speed mode (the default), and the knob off, leave it alone
    for knobs in ({}, {"opt": "size", "clmul_tables": "off"}):
        assert print_module(clmul_tables.run(before, knobs)) == print_module(before)
    assert _loads(clmul_tables.run(before, {"clmul_tables": "on"})) == []
    with pytest.raises(ValueError, match="auto, on or off"):
        clmul_tables.run(before, {"clmul_tables": "maybe"})


def test_wrapping_products_shift_up(tmp_path):
    before = _module(tmp_path, _table("m", 0x8083, 16, 16), "return m[i[3:0]] ^ (j as u16)")
    after = clmul_tables.run(before, SIZE)
    assert _loads(after) == []
    assert all(op.opcode != "shr" for op in walk_ops(after.function("f").body))
    assert check_equivalent(before, after, trials=200) > 0


def test_left_alone(tmp_path):
    cases = [
        # not linear
        ("table r: u16[4] = {0x0000, 0x01c2, 0x0384, 0x0247}\n", "return r[i[1:0]]"),
        # an index wider than the table's 2^b entries need: a load past its end is not a product
        (_table("r", 0x1c2, 16, 16), "return r[i]"),
    ]
    for tables, body in cases:
        before = _module(tmp_path, tables, body)
        assert print_module(clmul_tables.run(before, SIZE)) == print_module(before), body


# Seed 000 Table 3, GCM with the AES accelerator (issue 13's size-mode target): ROM and cycles/byte
# at 16 B / IPI / 4 KB, encryption and decryption.
GCM_ACCEL_ROM = 4680
GCM_ACCEL_CPB = {"encrypt": (426, 183, 180), "decrypt": (429, 183, 180)}


@pytest.mark.needs("cc430f6137")
@pytest.mark.slow      # a whole scheme compiled and measured; the full suite runs it
def test_ghash_reduction_table_leaves_rom_in_size_mode():
    """GHASH's Shoup multiply folds the byte Z * x^8 shifts out through R8 (512 bytes): in size
    mode that is four shifts of the byte, and GCM with the CC430's accelerator fits seed 000's
    4 680 bytes, code and the runtime API counted, at its cycles/byte or better."""
    from aedsl import bench
    knobs = {"aes": "accel", "opt": "size"}
    size = compile_spec(ROOT / "specs/schemes/gcm.ae", "cc430f6137", knobs)
    table = compile_spec(ROOT / "specs/schemes/gcm.ae", "cc430f6137", {**knobs, "clmul_tables": "off"})
    assert "gcm_G.R8:" in table.asm and "gcm_G.R8:" not in size.asm
    recs = bench.bench_spec(ROOT / "specs/schemes/gcm.ae", "cc430f6137", knobs)
    for op, targets in GCM_ACCEL_CPB.items():
        got = [r for r in recs if r.op == op]
        assert [r.msg_len for r in got] == [16, "ipi", 4096]
        assert all(r.rom_bytes <= GCM_ACCEL_ROM for r in got), [r.rom_bytes for r in got]
        assert all(r.cycles_per_byte <= t for r, t in zip(got, targets)), [r.cycles_per_byte for r in got]
