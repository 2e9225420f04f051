"""The draft specs of seeds 000 and 002 (specs/drafts/): each checks, and those with official
vectors pass them in the interpreter (the reference semantics)."""
import random

import pytest

from aedsl import vectors
from aedsl.cli import main
from aedsl.frontend.elaborate import load_module
from aedsl.engines.interp import interp_engine
from aedsl.ir.interp import compile_module
from aedsl.ir.nodes import walk_ops
from aedsl.vectors.runner import run_aead, run_block
from aedsl.resources import shared_vectors_dir
from aedsl.vectors.records import BlockVector

from tests.paths import ROOT
DRAFTS = ROOT / "specs" / "drafts"
SKINNY_VECTORS = shared_vectors_dir() / "skinny-128-384plus" / "skinny128_384_vectors.txt"


@pytest.mark.parametrize("spec", sorted(p.name for p in DRAFTS.glob("*.ae")))
def test_every_draft_checks(spec, capsys):
    assert main(["check", str(DRAFTS / spec)]) == 0
    assert ": ok (" in capsys.readouterr().out


def test_the_seed_drafts_are_all_there():
    names = {p.stem for p in DRAFTS.glob("*.ae")}
    assert {"hummingbird2", "grain128aeadv2", "spongent_pi160", "elephant_dumbo", "sgcm", "masha",
            "romulus_n", "skinny128_384plus"} <= names


def _skinny_vectors():
    """The two SKINNY-128-384(+) vectors: (rounds, tk, pt, ct)."""
    out, cur = [], {}
    for line in SKINNY_VECTORS.read_text().splitlines():
        if " = " in line and not line.startswith("#"):
            k, v = line.split(" = ")
            cur[k.strip()] = v.strip()
            if k.strip() == "CT":
                out.append((int(cur["Rounds"]), bytes.fromhex(cur["TK"]), bytes.fromhex(cur["PT"]),
                            bytes.fromhex(cur["CT"])))
    return out


@pytest.mark.usefixtures("shared_vectors")
def test_skinny_128_384_plus_vectors():
    vecs = _skinny_vectors()
    assert sorted(r for r, *_ in vecs) == [40, 56]
    for rounds, tk, pt, ct in vecs:
        engine = interp_engine(DRAFTS / "skinny128_384plus.ae", {"rounds": rounds})
        report = run_block(engine, [BlockVector(id=f"skinny{rounds}", key=tk, pt=pt, ct=ct)])
        assert report.passed == 1 and report.failed == 0, str(report)


def _lwc(name, step=1):
    vecs = vectors.load(f"lwc:{name}")
    assert len(vecs) == 1089
    return vecs[::step]


@pytest.mark.usefixtures("shared_vectors")
def test_romulus_n_all_lwc_vectors():
    report = run_aead(interp_engine(DRAFTS / "romulus_n.ae"), _lwc("romulus-n"))
    assert report.passed == 1089 and report.failed == 0, str(report)


@pytest.mark.usefixtures("shared_vectors")
def test_grain128aeadv2_lwc_vectors_word_parallel():
    report = run_aead(interp_engine(DRAFTS / "grain128aeadv2.ae"), _lwc("grain-128aeadv2", 3))
    assert report.passed == 363 and report.failed == 0, str(report)


@pytest.mark.usefixtures("shared_vectors")
@pytest.mark.parametrize("par", [1, 4])
def test_grain128aeadv2_bit_serial_agrees(par):
    report = run_aead(interp_engine(DRAFTS / "grain128aeadv2.ae", {"par": par}),
                      _lwc("grain-128aeadv2", 121))
    assert report.passed == 9 and report.failed == 0, str(report)


@pytest.mark.usefixtures("shared_vectors")
def test_elephant_dumbo_lwc_vectors_sample():
    # every 33rd vector covers all AD lengths at varying message lengths (the full set takes ~40 s)
    report = run_aead(interp_engine(DRAFTS / "elephant_dumbo.ae"), _lwc("elephant-dumbo", 33))
    assert report.passed == 33 and report.failed == 0, str(report)


def test_elephant_dumbo_long_message_crosses_blocks():
    # a message and AD of several 20-byte blocks: decrypt inverts encrypt, and a flipped tag bit fails
    engine = interp_engine(DRAFTS / "elephant_dumbo.ae")
    rng = random.Random(5)
    k, n = rng.randbytes(16), rng.randbytes(12)
    ad, msg = rng.randbytes(47), rng.randbytes(61)
    out = engine.encrypt(k, n, ad, msg, 8)
    assert engine.decrypt(k, n, ad, out[:61], out[61:]) == msg
    assert engine.decrypt(k, n, ad, out[:61], bytes([out[61] ^ 1]) + out[62:]) is None


@pytest.mark.parametrize("spec,key,nonce,tag", [("hummingbird2.ae", 16, 8, 16), ("sgcm.ae", 16, 12, 16)])
def test_unverified_drafts_invert_and_reject(spec, key, nonce, tag):
    """No vectors exist for these: at least decryption inverts encryption and rejects a bad tag."""
    engine = interp_engine(DRAFTS / spec)
    rng = random.Random(spec)
    for mlen, alen in [(0, 0), (2, 6), (34, 17)]:
        k, n, a, m = rng.randbytes(key), rng.randbytes(nonce), rng.randbytes(alen), rng.randbytes(mlen)
        out = engine.encrypt(k, n, a, m, tag)
        assert len(out) == mlen + tag
        assert engine.decrypt(k, n, a, out[:mlen], out[mlen:]) == m
        assert engine.decrypt(k, n, a, out[:mlen], bytes(x ^ 0x80 for x in out[mlen:])) is None


def test_sgcm_multiplies_modulo_the_sophie_germain_prime():
    p = (1 << 128) + 12451
    f = compile_module(load_module(DRAFTS / "sgcm.ae", {})).function("mul_h")
    rng = random.Random(1)
    for _ in range(20):
        x, b, h = rng.randrange(p), rng.getrandbits(128), rng.getrandbits(128)
        assert f(x, b, h) == ((x + b) * h % p,)
    assert f(p - 1, 1, 5) == (0,)           # (p - 1 + 1) * 5 = 0 mod p


def _gf_mul(a, c, poly):
    r = 0
    while c:
        if c & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= poly
        c >>= 1
    return r


@pytest.mark.parametrize("poly", [0x11b, 0x169])
def test_masha_constant_multiplication(poly):
    knobs = {"poly": str(poly), "c0": "2", "c1": "3", "c2": "29", "c3": "255"}
    f = compile_module(load_module(DRAFTS / "masha.ae", knobs)).function("mul4")
    for a in range(256):
        want = [_gf_mul(a, c, poly) for c in (2, 3, 29, 255)]
        assert f(a) == (int.from_bytes(bytes(want), "big"),)


def test_spongent_player_is_the_specified_bit_permutation():
    # pLayer: bit j -> j * 40 mod 159 (bit 159 fixed), so bit 1 of the state lands on bit 40.
    m = load_module(DRAFTS / "spongent_pi160.ae", {})
    perm = [op for f in m.functions for op in walk_ops(f.body)
            if op.opcode == "perm" and len(op.attrs["table"]) == 160]
    assert perm and perm[0].attrs["table"][1] == 40 and perm[0].attrs["table"][159] == 159
    assert sorted(perm[0].attrs["table"]) == list(range(160))
