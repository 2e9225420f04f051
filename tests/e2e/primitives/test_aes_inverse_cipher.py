"""AES decryption as FIPS-197 5.3.5's equivalent inverse cipher (specs/primitives/aes.ae,
knob inv_cipher=equivalent, the default) against the plain inverse cipher (inv_cipher=plain):
official vectors through the interpreter, the layout of the transformed round keys, and what table
fusion derives from it (the inverse T-tables, shared by key_schedule and decrypt_block)."""
import itertools

import pytest

from aedsl import vectors
from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.engines.interp import interp_engine
from aedsl.ir.interp import compile_module
from aedsl.vectors import runner

from tests.paths import ROOT, SPECS

AES = SPECS / "primitives/aes.ae"


def _xtime(a: int) -> int:
    return ((a << 1) ^ (0x1B if a & 0x80 else 0)) & 0xFF


def _gmul(a: int, k: int) -> int:
    out = 0
    while k:
        if k & 1:
            out ^= a
        a, k = _xtime(a), k >> 1
    return out


def _inv_mix(word: int) -> int:
    """FIPS-197 5.3.3 InvMixColumns of one column (row 0 in the top byte), written independently
    of the spec."""
    a = [(word >> (24 - 8 * r)) & 0xFF for r in range(4)]
    rows = [[14, 11, 13, 9], [9, 14, 11, 13], [13, 9, 14, 11], [11, 13, 9, 14]]
    out = 0
    for row in rows:
        b = 0
        for k, x in zip(row, a):
            b ^= _gmul(x, k)
        out = (out << 8) | b
    return out


@pytest.mark.parametrize("inv_cipher", ["equivalent", "plain"])
@pytest.mark.parametrize("key_bits", [128, 192, 256])
def test_official_vectors_both_inverse_ciphers(key_bits, inv_cipher):
    eng = interp_engine(AES, {"key_bits": key_bits, "inv_cipher": inv_cipher})
    vecs = [v for v in vectors.load("fips197") if len(v.key) * 8 == key_bits]
    for name in ("ECBGFSbox", "ECBKeySbox", "ECBVarTxt", "ECBMMT"):
        vecs += list(itertools.islice(vectors.load(f"cavp:aes:{name}{key_bits}"), 4))
    rep = runner.run(eng, vecs)        # encrypts and decrypts every vector
    assert rep.failed == 0 and rep.passed == len(vecs) >= 17, str(rep)


@pytest.mark.parametrize("key_bits", [128, 256])
def test_decryption_round_keys_are_inv_mixed(key_bits):
    nk = key_bits // 32
    nr = nk + 6
    prog = compile_module(load_module(AES, {"key_bits": str(key_bits)}))
    w = [0] * (8 * nr)
    key = int.from_bytes(bytes(range(0x40, 0x40 + key_bits // 8)), "big")
    prog.call("key_schedule", [key, w])
    plain = compile_module(load_module(AES, {"key_bits": str(key_bits), "inv_cipher": "plain"}))
    w_plain = [0] * (4 * (nr + 1))
    plain.call("key_schedule", [key, w_plain])
    assert w[:4 * (nr + 1)] == w_plain            # the encryption keys are unchanged
    for r in range(1, nr):                        # decryption round r uses round key nr - r
        for j in range(4):
            assert w[4 * (nr + r) + j] == _inv_mix(w[4 * (nr - r) + j]), (r, j)


def test_fusion_yields_inverse_t_tables_shared_with_the_key_schedule():
    mod = pipeline.run(load_module(AES, {"key_bits": "128"}), {"table_fusion": "full"})
    fused = {t.name: t.data for t in mod.tables if t.name.startswith("tf")}
    # four encryption and four decryption T-tables, none only for the key schedule's InvMixColumns
    assert len(fused) == 8
    inv_sbox = next(t for t in mod.tables if t.name == "inv_sbox").data
    td0 = tuple(_inv_mix(inv_sbox[x] << 24) for x in range(256))
    td3 = tuple(_inv_mix(inv_sbox[x]) for x in range(256))
    assert td0 in fused.values() and td3 in fused.values()
    # the rotate budget keeps one table per direction
    rot = pipeline.run(load_module(AES, {"key_bits": "128"}), {"table_fusion": "rotate"})
    assert len([t for t in rot.tables if t.name.startswith("tf")]) == 2


def test_encrypt_only_modes_use_the_plain_inverse_cipher():
    """CCM/GCM never decrypt: their AES key state is just the encryption round keys (and they
    carry no inverse T-tables)."""
    root = ROOT
    for scheme in ("ccm", "gcm"):
        mod = pipeline.run(load_module(root / f"specs/schemes/{scheme}.ae", {}), {"table_fusion": "full"})
        fn = mod.function("key_setup")
        ks = fn.params[1]
        assert ks.length == 44, scheme
