"""Seed 002's lightweight AEAD specs through the interpreter (the reference semantics): ISAP-A-128A,
PHOTON-Beetle-AEAD[128], Romulus-N, Grain-128AEADv2 and Elephant-Dumbo on their NIST LWC KAT
vectors (a sample by default: every 33rd vector, which covers every AD length 0..32 at varying
message lengths; the full files under `slow`), plus checks of the permutations and building blocks
the vectors reach only indirectly."""
import random

import pytest

from aedsl import vectors
from aedsl.engines.interp import interp_engine
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.ir.nodes import walk_ops
from aedsl.vectors.runner import run_aead, run_block

from tests.paths import ROOT
from tests.tiers import tiered

SPECS = ROOT / "specs"
ISAP = SPECS / "schemes" / "isap_a_128a.ae"
PHOTON_BEETLE = SPECS / "schemes" / "photon_beetle_aead128.ae"
ROMULUS_N = SPECS / "schemes" / "romulus_n.ae"
GRAIN = SPECS / "schemes" / "grain128aeadv2.ae"
ELEPHANT = SPECS / "schemes" / "elephant_dumbo.ae"
SOURCES = {ISAP: "lwc:isap-a-128a", PHOTON_BEETLE: "lwc:photon-beetle-aead128", ROMULUS_N: "lwc:romulus-n",
           GRAIN: "lwc:grain-128aeadv2", ELEPHANT: "lwc:elephant-dumbo"}
SCHEMES = list(SOURCES)
pytestmark = pytest.mark.usefixtures("shared_vectors")    # a missing vector set fails under CI


def lwc_vectors(spec, step=1):
    vecs = vectors.load(SOURCES[spec])
    assert len(vecs) == 1089
    return [v for i, v in enumerate(vecs) if i % step == 0 or i == len(vecs) - 1]


@pytest.mark.parametrize("spec", SCHEMES, ids=[s.stem for s in SCHEMES])
def test_interpreter_passes_a_vector_sample(spec):
    vecs = lwc_vectors(spec, 33)
    report = run_aead(interp_engine(spec), vecs)
    assert report.passed == len(vecs) == 34 and report.failed == 0, str(report)


@pytest.mark.slow
@pytest.mark.parametrize("spec", SCHEMES, ids=[s.stem for s in SCHEMES])
def test_interpreter_passes_all_vectors(spec):
    report = run_aead(interp_engine(spec), lwc_vectors(spec))
    assert report.passed == 1089 and report.failed == 0, str(report)


@pytest.mark.parametrize("spec", SCHEMES, ids=[s.stem for s in SCHEMES])
def test_long_inputs_invert_and_reject(spec):
    """Lengths past the KAT files' 32 bytes (several blocks, AD over 128 bytes: Grain's long DER
    form): decryption inverts encryption, a flipped tag or ciphertext bit is rejected."""
    engine = interp_engine(spec)
    key_len, nonce_len, tag_len = {ISAP: (16, 16, 16), PHOTON_BEETLE: (16, 16, 16), ROMULUS_N: (16, 16, 16),
                                   GRAIN: (16, 12, 8), ELEPHANT: (16, 12, 8)}[spec]
    rng = random.Random(spec.stem)
    for alen, mlen in [(47, 61), (130, 3), (0, 100)]:
        k, n = rng.randbytes(key_len), rng.randbytes(nonce_len)
        a, m = rng.randbytes(alen), rng.randbytes(mlen)
        out = engine.encrypt(k, n, a, m, tag_len)
        ct, tag = out[:mlen], out[mlen:]
        assert engine.decrypt(k, n, a, ct, tag) == m
        assert engine.decrypt(k, n, a, ct, bytes([tag[0] ^ 1]) + tag[1:]) is None
        if ct:
            assert engine.decrypt(k, n, a, ct[:-1] + bytes([ct[-1] ^ 0x80]), tag) is None


# --- PHOTON256 (specs/primitives/photon256.ae) -----------------------------------------------

def _gf16_mul(a, b):
    r = 0
    for i in range(4):
        if (b >> i) & 1:
            r ^= a
        a = ((a << 1) ^ (0x13 if a & 8 else 0)) & 0xF
    return r


def _mat_mul(x, y):
    n = len(x)
    out = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            for k in range(n):
                out[i][j] ^= _gf16_mul(x[i][k], y[k][j])
    return out


def test_photon_serial_matrix_to_the_eighth_is_the_published_mixcolumns_matrix():
    # A = Serial(2, 4, 2, 11, 2, 8, 5, 6); PHOTON-256's MixColumnSerial is A^8, whose first row the
    # paper gives as 2 4 2 11 2 8 5 6 and whose last row is 15 1 13 10 5 10 2 3.
    a = [[1 if j == i + 1 else 0 for j in range(8)] for i in range(7)] + [[2, 4, 2, 11, 2, 8, 5, 6]]
    m = a
    for _ in range(7):
        m = _mat_mul(m, a)
    assert m[0] == [2, 4, 2, 11, 2, 8, 5, 6] and m[7] == [15, 1, 13, 10, 5, 10, 2, 3]


def _photon_model(state: bytes) -> bytes:
    """PHOTON256 cell by cell, written from the paper: X[i][j] = nibble 8i + j of the string."""
    sbox = [0xC, 5, 6, 0xB, 9, 0, 0xA, 0xD, 3, 0xE, 0xF, 8, 4, 7, 1, 2]
    rc, ic = [1, 3, 7, 14, 13, 11, 6, 12, 9, 2, 5, 10], [0, 1, 3, 7, 15, 14, 12, 8]
    a = [[1 if j == i + 1 else 0 for j in range(8)] for i in range(7)] + [[2, 4, 2, 11, 2, 8, 5, 6]]
    m = a
    for _ in range(7):
        m = _mat_mul(m, a)
    x = [[(state[(8 * i + j) // 2] >> (4 * (j & 1))) & 0xF for j in range(8)] for i in range(8)]
    for r in range(12):
        for i in range(8):
            x[i][0] ^= rc[r] ^ ic[i]
        x = [[sbox[c] for c in row] for row in x]
        x = [[x[i][(j + i) % 8] for j in range(8)] for i in range(8)]
        x = _mat_mul(m, x)
    out = bytearray(32)
    for i in range(8):
        for j in range(8):
            out[(8 * i + j) // 2] |= x[i][j] << (4 * (j & 1))
    return bytes(out)


@pytest.mark.parametrize("mix", ["serial", "table"])
def test_photon256_matches_a_cell_by_cell_model(mix):
    permute = compile_module(load_module(SPECS / "primitives" / "photon256.ae", {"mix": mix})).function("permute")
    rng = random.Random(256)
    for _ in range(4):
        state = rng.randbytes(32)
        rows = [int.from_bytes(state[4 * i:4 * i + 4], "little") for i in range(8)]
        permute(rows)
        assert b"".join(r.to_bytes(4, "little") for r in rows) == _photon_model(state)


def test_photon256_round_table_is_the_mixcolumns_matrix_times_the_sbox():
    """The table variant's T[i][v] (entry 16 i + v) is column i of A^8 times S(v), row r's cell
    in bits 4r + 3 .. 4r, with A^8 computed here from Serial(2, 4, 2, 11, 2, 8, 5, 6); its
    AddConstant table holds RC_r ^ IC_i in row i's cell."""
    sbox = [0xC, 5, 6, 0xB, 9, 0, 0xA, 0xD, 3, 0xE, 0xF, 8, 4, 7, 1, 2]
    rc, ic = [1, 3, 7, 14, 13, 11, 6, 12, 9, 2, 5, 10], [0, 1, 3, 7, 15, 14, 12, 8]
    a = [[1 if j == i + 1 else 0 for j in range(8)] for i in range(7)] + [[2, 4, 2, 11, 2, 8, 5, 6]]
    m = a
    for _ in range(7):
        m = _mat_mul(m, a)
    tables = {t.name: t for t in load_module(SPECS / "primitives" / "photon256.ae", {"mix": "table"}).tables}
    want = [sum(_gf16_mul(m[r][e // 16], sbox[e % 16]) << (4 * r) for r in range(8)) for e in range(128)]
    assert list(tables["mixsub"].data) == want
    assert list(tables["rcol"].data) == [sum((rc[k] ^ ic[i]) << (4 * i) for i in range(8)) for k in range(12)]


# --- SKINNY-128-384+ and Spongent-pi[160] -------------------------------------------------------

@pytest.mark.parametrize("rounds,source", [(40, "skinny:128-384plus"), (56, "skinny:128-384")])
def test_skinny_128_384_plus_vectors(rounds, source):
    vecs = vectors.load(source)
    assert [v.comment for v in vecs] == [f"rounds={rounds}"]
    engine = interp_engine(SPECS / "primitives" / "skinny128_384plus.ae", {"rounds": rounds})
    report = run_block(engine, vecs)
    assert report.passed == 1 and report.failed == 0, str(report)


def test_spongent_player_is_the_specified_bit_permutation():
    # pLayer: bit j -> j * 40 mod 159 (bit 159 fixed).
    m = load_module(SPECS / "primitives" / "spongent_pi160.ae", {})
    perm = [op for f in m.functions for op in walk_ops(f.body)
            if op.opcode == "perm" and len(op.attrs["table"]) == 160]
    assert perm and list(perm[0].attrs["table"]) == [j * 40 % 159 for j in range(159)] + [159]


@pytest.mark.parametrize("par", [1, 4, 32])
def test_grain128aeadv2_bit_serial_agrees(par):
    """The bit-serial form (par = 1), a narrow one, and the 32-bit one (ARMv6-M's default: two
    bytes a step, an odd last byte alone; 121 vectors cover odd and even message lengths)."""
    vecs = lwc_vectors(GRAIN, 121)
    report = run_aead(interp_engine(GRAIN, {"par": par}), vecs)
    assert report.passed == len(vecs) and report.failed == 0, str(report)


# --- Grain-128AEADv2's AD length prefix (specs/schemes/grain128aeadv2.ae, absorb_ad) -----------

def _der(n: int) -> bytes:
    """§2.4 of the specification: the length in one byte below 128, else 0x80 | k and the k
    bytes of the length, most significant first."""
    if n < 128:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def _rings(x: int) -> list[int]:
    """A register as its doubled ring of 16-bit words at position 0 (grain128aeadv2.ae, par <= 16)."""
    words = [(x >> (16 * i)) & 0xFFFF for i in range(8)]
    return words + words


@pytest.mark.parametrize("alen", tiered([0, 1, 127, 128, 129, 255, 256, 300], {128, 300}, single=True))
@pytest.mark.parametrize("par", [16, 32])
def test_grain_absorbs_the_der_length_then_the_ad(alen, par):
    """absorb_ad equals absorb_byte over DER(len(ad)) || ad, the prefix from the model above
    (the KAT files stop at 32 bytes of AD, so the long forms are checked here): with par = 32 on
    the registers as values, with par = 16 on the registers in their rings (and the position)."""
    prog = compile_module(load_module(GRAIN, {"par": str(par)}))
    rng = random.Random(alen)
    s, b, acc, sr = (rng.getrandbits(w) for w in (128, 128, 64, 64))
    ad = list(rng.randbytes(alen))
    if par == 32:
        want = (s, b, acc, sr)
        for x in _der(alen) + bytes(ad):
            want = tuple(prog.call("absorb_byte", [*want, x]))
        assert tuple(prog.call("absorb_ad", [s, b, acc, sr, ad])) == want
        return
    rs, rb, p, acc0, sr0 = _rings(s), _rings(b), 0, acc, sr
    for x in _der(alen) + bytes(ad):
        p, acc1, sr1 = prog.call("absorb_byte", [rs, rb, p, acc, sr, x])
        acc, sr = acc1, sr1
    rs2, rb2 = _rings(s), _rings(b)
    assert tuple(prog.call("absorb_ad", [rs2, rb2, 0, acc0, sr0, ad])) == (p, acc, sr)
    assert (rs2, rb2) == (rs, rb)


def test_skinny_romulus_path_matches_the_block_cipher():
    # Romulus-N's TBC path (TK3's rows with the round constants', TK2's joined, TK1 with rows 2-3
    # zero through tk1_rows' 8-entry table: P_T has order 16) gives encrypt_block's result on
    # key_schedule(TK1 || TK2 || TK3).
    m = compile_module(load_module(SPECS / "primitives" / "skinny128_384plus.ae", {}))
    rnd = random.Random(16)
    for _ in range(4):
        tk1, tk2, tk3, b = rnd.getrandbits(64), rnd.getrandbits(128), rnd.getrandbits(128), rnd.getrandbits(128)
        t1, r3, r23, rtk = [0] * 8, [0] * 40, [0] * 40, [0] * 40
        m.call("tk1_rows", [tk1, t1])
        m.call("tk3_rows", [tk3, r3])
        m.call("tk23_rows", [tk2, r3, r23])
        m.call("key_schedule", [(tk1 << 320) | (tk2 << 128) | tk3, rtk])
        assert m.call("encrypt_block_tk1", [t1, r23, b]) == m.call("encrypt_block", [rtk, b])
