"""Table fusion derives the AES T-tables from the plain AES spec (S-box table + xtime MixColumns).

The expected tables are computed here independently from FIPS-197's definition of the S-box
(multiplicative inverse in GF(2^8) followed by the affine map), not copied from anywhere.
"""
from __future__ import annotations

from functools import lru_cache

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import legalize

from tests.paths import SPECS
from tests.tiers import tiered
from .tv import check_equivalent

AES = SPECS / "primitives" / "aes.ae"


def gmul(a: int, b: int) -> int:
    r = 0
    while b:
        if b & 1:
            r ^= a
        a = ((a << 1) ^ (0x11B if a & 0x80 else 0)) & 0xFF
        b >>= 1
    return r


def fips197_sbox() -> list[int]:
    def inverse(a):
        return 0 if a == 0 else next(b for b in range(1, 256) if gmul(a, b) == 1)

    def affine(b):
        rot = lambda x, k: ((x << k) | (x >> (8 - k))) & 0xFF  # noqa: E731
        return b ^ rot(b, 1) ^ rot(b, 2) ^ rot(b, 3) ^ rot(b, 4) ^ 0x63

    return [affine(inverse(a)) for a in range(256)]


S = fips197_sbox()


def column(*mults: int) -> tuple[int, ...]:
    """Entries sum_k (m_k * S[a]) << 8*(n-1-k): bytes given most significant first."""
    out = []
    for a in range(256):
        v = 0
        for m in mults:
            v = (v << 8) | gmul(S[a], m)
        out.append(v)
    return tuple(out)


@lru_cache(maxsize=None)
def fused(unroll: str, word_bits: str | None, mode: str):
    """(elaborated module, pipeline output); shared by the tests, which only read them."""
    module = load_module(AES, {"unroll": unroll})
    knobs = {"table_fusion": mode} | ({"word_bits": word_bits} if word_bits else {})
    return module, pipeline.run(module, knobs)


def encrypt_tables(module):
    enc = module.function("encrypt_block")
    used = {id(op.args[0]): op.args[0] for op in walk_ops(enc.body)
            if op.opcode == "load" and op.args[0].kind == "table"}
    return [t for t in used.values() if t.name not in ("sbox", "inv_sbox", "rcon")]


def test_sbox_computed_matches_the_spec_table():
    module = load_module(AES, {})
    assert list(next(t for t in module.tables if t.name == "sbox").data) == S


@pytest.mark.parametrize("unroll", tiered(["1", "full"], {"1"}, single=True))
def test_16bit_target_gets_the_four_2kb_tables(unroll):
    module, out = fused(unroll, "16", "full")
    tables = encrypt_tables(out)
    assert len(tables) == 4
    assert all(t.elem_width == 16 and t.length == 256 for t in tables)
    assert sum(t.length * t.elem_width // 8 for t in tables) == 2048
    # Gouvea-Lopez (seed 000, 4.7): T0=[2S,S], T1=[S,3S], T2=[3S,2S], T3=[S,S].
    assert {t.data for t in tables} == {column(2, 1), column(1, 3), column(3, 2), column(1, 1)}
    # The last round keeps the plain S-box; the fused code still computes AES.
    assert any(op.opcode == "load" and op.args[0].name == "sbox" for op in walk_ops(out.function("encrypt_block").body))
    assert check_equivalent(module, out, trials=2, interface=legalize.Interface(module, 16),
                            functions=["encrypt_block"]) == 2


@pytest.mark.slow      # an unrolled AES through the passes; the table shapes are checked fast above
def test_16bit_round_uses_32_lookups_and_no_xtime():
    _, out = fused("full", "16", "full")
    ops = list(walk_ops(out.function("encrypt_block").body))
    fused_loads = sum(op.opcode == "load" and op.args[0].name.startswith("tf") for op in ops)
    assert fused_loads == 9 * 32          # 9 full rounds x 8 words x 4 lookups
    assert [op for op in ops if op.opcode == "mul"] == []   # xtime's (a >> 7) * 0x1b is gone


@pytest.mark.parametrize("W", ["32", None])
def test_32bit_target_gets_the_classic_te_tables(W):
    _, out = fused("1", W, "full")
    tables = encrypt_tables(out)
    assert len(tables) == 4 and all(t.elem_width == 32 and t.length == 256 for t in tables)
    assert {t.data for t in tables} == {column(2, 1, 1, 3), column(3, 2, 1, 1),
                                        column(1, 3, 2, 1), column(1, 1, 3, 2)}


def test_rotate_budget_keeps_one_32bit_table():
    module, out = fused("1", "32", "rotate")
    tables = encrypt_tables(out)
    assert [t.data for t in tables] == [column(2, 1, 1, 3)]
    rotates = [op for op in walk_ops(out.function("encrypt_block").body) if op.opcode == "rotl"]
    assert len(rotates) >= 3
    assert check_equivalent(module, out, trials=2, interface=legalize.Interface(module, 32),
                            functions=["encrypt_block"]) == 2


def test_byte_budget_gives_2s_and_3s_tables():
    _, out = fused("1", "16", "byte")
    tables = encrypt_tables(out)
    assert {t.data for t in tables} == {column(2), column(3)}


def test_none_budget_adds_no_table():
    module = load_module(AES, {})
    out = pipeline.run(module, {"word_bits": "16", "table_fusion": "none"})
    assert [t.name for t in out.tables] == [t.name for t in module.tables]


def test_fusion_leaves_speck_alone():
    module = load_module(AES.parent / "speck.ae", {})
    out = pipeline.run(module, {"word_bits": "16"})
    assert len(out.tables) == len(module.tables)


def test_cli_ir_after_table_fusion(capsys):
    from aedsl.cli import main
    assert main(["ir", str(AES), "--after", "table_fusion", "--word-bits", "16"]) == 0
    text = capsys.readouterr().out
    assert text.count("table @tf") >= 4
    assert "u32" not in text.split("func @encrypt_block")[1].split("func @")[0]


ROUND_CONSTANTS = """spec rcfold
table rc: u8[4] = {0x3c, 0x2d, 0x1e, 0x0f}
fn permute(s: u32[2], rounds: u8) {
    h = s[0]
    l = s[1]
    for i in 4 - rounds..4 {
        l = l ^ (rc[i] as u32)
        h, l = h ^ (l << 13), l ^ (h >> 19) ^ (l << 3)
    }
    s[0] = h
    s[1] = l
}
"""


def test_a_cone_that_indexes_a_table_out_of_bounds_is_left_alone(tmp_path):
    """The loop index i is a u8 root of the cone rc[i] ^ (rc[i] << 3), but rc has 4 entries:
    tabulating the cone over all 256 values of i would read beyond rc. Table fusion leaves it
    unfused (it used to raise IndexError)."""
    spec = tmp_path / "rcfold.ae"
    spec.write_text(ROUND_CONSTANTS)
    module = load_module(spec, {})
    out = pipeline.run(module, {})
    assert "rc" in [t.name for t in out.tables]
    assert check_equivalent(module, out, trials=20, seed=3) > 0


ARITHMETIC_ONLY = """spec masks
fn auth(acc: u64, sr: u64, m: u8) -> u64 {
    forall j in 0..8 {
        acc = acc ^ (sr & -(m[j] as u64))
    }
    return acc
}
table s: u8[256] = [(7 * j + 3) % 256 for j in 0..256]
fn through(x: u8) -> u32 {
    return (s[x] as u32) ^ ((s[x] as u32) << 9)
}
"""


def test_a_cone_that_reads_no_table_is_not_tabulated(tmp_path):
    """-(m[j] as u64) is a pure function of the byte m, but it reads no table: a 256 x u64 table
    per bit (2 KB each) would replace three instructions. Grain-128AEADv2's authentication got
    eight of them on ARMv6-M before this rule. A cone through a table is still fused."""
    spec = tmp_path / "masks.ae"
    spec.write_text(ARITHMETIC_ONLY)
    module = load_module(spec, {})
    out = pipeline.run(module, {"inline": "none"}, until="table_fusion")
    loads = {f.name: {op.args[0].name for op in walk_ops(f.body) if op.opcode == "load"} for f in out.functions}
    assert loads == {"auth": set(), "through": {"tf0"}}
    assert check_equivalent(module, out, trials=6, seed=4) > 0
