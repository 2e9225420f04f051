"""Every official vector file read by its reader and run through the reference engines: 100 % of the
vectors an engine supports must pass (that is what proves the readers right), with the counts read,
passed and skipped asserted per source."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from aedsl import vectors
from aedsl.engines import reference as refengines
from aedsl.vectors import detect_format, runner, sources

# source -> (vectors read, passed, skipped) through the source's reference engine
EXPECTED = {
    # Wycheproof: skipped = parameters outside the mode's domain (all are `invalid` cases):
    # GCM/ChaCha empty or wrong-size nonces, CCM nonces outside 7..13 and odd/short tags.
    "wycheproof:aes_gcm": (316, 310, 6),
    "wycheproof:aes_ccm": (552, 486, 66),
    "wycheproof:aes_eax": (240, 240, 0),
    "wycheproof:chacha20_poly1305": (325, 316, 9),
    "wycheproof:xchacha20_poly1305": (315, 306, 9),
    **{f"cavp:ccm:{k}{b}": (n, n, 0) for b in (128, 192, 256)
       for k, n in (("DVPT", 240), ("VADT", 330), ("VNT", 70), ("VPT", 250), ("VTT", 70))},
    **{f"cavp:aes:ECB{k}{b}": (n, n, 0) for (k, b), n in {
        ("GFSbox", 128): 14, ("GFSbox", 192): 12, ("GFSbox", 256): 10,
        ("KeySbox", 128): 42, ("KeySbox", 192): 48, ("KeySbox", 256): 32,
        ("VarKey", 128): 256, ("VarKey", 192): 384, ("VarKey", 256): 512,
        ("VarTxt", 128): 256, ("VarTxt", 192): 256, ("VarTxt", 256): 256,
        ("MMT", 128): 20, ("MMT", 192): 20, ("MMT", 256): 20}.items()},
    "rfc7253": (16, 16, 0),
    "rfc3686:aes128": (3, 3, 0),
    "rfc3686:aes192": (3, 3, 0),
    "rfc3686:aes256": (3, 3, 0),
    "ocb3:nonce104": (16, 16, 0),
    "ocb3:nonce112": (16, 16, 0),
    "ocb3:nonce120": (16, 16, 0),
    "rfc8439": (2, 2, 0),
    "cryptopp:chacha20poly1305": (578, 578, 0),
    "cryptopp:xchacha20poly1305": (594, 594, 0),
    "eax-paper": (12, 12, 0),
    "cryptopp:speck": (110, 110, 0),
    "speck-paper": (10, 10, 0),
    "fips197": (3, 3, 0),
    "lwc:ascon128": (1089, 1089, 0),
    "lwc:ascon128a": (1089, 1089, 0),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_source_passes_reference_engine(name):
    src = sources.get(name)
    vecs = vectors.load(name)
    rep = runner.run(refengines.get(src.engine), vecs)
    assert (len(vecs), rep.passed, rep.skipped) == EXPECTED[name], str(rep)
    assert rep.failed == 0, str(rep)


@pytest.mark.parametrize("kind", ["encrypt", "decrypt"])
@pytest.mark.parametrize("bits", [128, pytest.param(192, marks=pytest.mark.slow), pytest.param(256, marks=pytest.mark.slow)])
def test_cavp_gcm_full_files(kind, bits):
    """All 7875 cases of each CAVP GCM file (about 1 s per file)."""
    vecs = vectors.load(f"cavp:gcm:{kind}{bits}")
    assert len(vecs) == 7875
    rejects = sum(not v.valid for v in vecs)
    assert rejects == {"encrypt": {128: 0, 192: 0, 256: 0},
                       "decrypt": {128: 4011, 192: 3978, 256: 3919}}[kind][bits]
    assert {len(v.nonce) for v in vecs} == {1, 12, 128}
    assert {len(v.tag) for v in vecs} == {4, 8, 12, 13, 14, 15, 16}
    rep = runner.run(refengines.AesGcm(), vecs)
    assert rep.summary() == "7875 passed, 0 failed", str(rep)


def test_cavp_gcm_sampling_rule():
    """per_section=N keeps the first N cases of each of the 525 sections, in file order."""
    full = vectors.load("cavp:gcm:decrypt128")
    sample = vectors.load("cavp:gcm:decrypt128", per_section=2)
    assert len(sample) == 525 * 2
    assert {v.id.split("]")[1] for v in sample} == {" Count=0", " Count=1"}
    assert sample[:2] == full[:2] and sample[2] == full[15]
    assert runner.run(refengines.AesGcm(), sample).summary() == "1050 passed, 0 failed"


def test_wycheproof_counts_match_file_header():
    for stem in ("aes_gcm", "aes_ccm", "aes_eax", "chacha20_poly1305", "xchacha20_poly1305"):
        src = sources.get(f"wycheproof:{stem}")
        doc = json.loads(src.path.read_text())
        vecs = vectors.load(src.name)
        assert len(vecs) == doc["numberOfTests"]
        assert all(v.algorithm == doc["algorithm"] for v in vecs)
    gcm = vectors.load("wycheproof:aes_gcm")
    assert Counter(v.valid for v in gcm) == {True: 229, False: 87}
    first = gcm[0]
    assert first.id == "tcId=1" and first.flags == ("Ktv",)
    assert first.key.hex() == "5b9604fe14eadba931b0ccf34843dab9"
    assert first.origin.line > 1 and first.origin.path.endswith("aes_gcm_test.json")


def test_cavp_ccm_dvpt_pass_fail_and_lengths():
    vecs = vectors.load("cavp:ccm:DVPT128")
    assert Counter(v.valid for v in vecs) == {True: 80, False: 160}
    v0 = vecs[0]  # [Alen = 0, Plen = 0, Nlen = 7, Tlen = 4]: "Adata = 00" and "Payload = 00" mean empty
    assert (v0.ad, v0.msg, v0.ct, v0.tag.hex(), v0.nonce.hex()) == (b"", b"", b"", "02209f55", "5a8aa485c316e9")
    assert vecs[1].msg is None and not vecs[1].valid
    assert {len(v.nonce) for v in vecs} == {7, 13}  # DVPT tests the extreme nonce lengths
    assert {len(v.tag) for v in vecs} == {4, 16}
    assert {len(v.tag) for v in vectors.load("cavp:ccm:VTT128")} == {4, 6, 8, 10, 12, 14, 16}
    assert {len(v.nonce) for v in vectors.load("cavp:ccm:VNT256")} == set(range(7, 14))
    assert {len(v.ad) for v in vectors.load("cavp:ccm:VADT192")} == set(range(33))


def test_lwc_files_read_with_inferred_tag_lengths():
    """Files without a reference engine here are still read completely and consistently."""
    params = {}
    for name in sources.SOURCES:
        if name.startswith("lwc:"):
            vecs = vectors.load(name)
            assert len(vecs) == (256 if name == "lwc:norx32-4-1" else 1089)
            (params[name],) = {v.params for v in vecs}  # one parameter set per file
    assert params["lwc:tinyjambu-128"] == (16, 12, 8)
    assert params["lwc:grain-128aeadv2"] == (16, 12, 8)
    assert params["lwc:elephant-dumbo"] == (16, 12, 8)
    assert params["lwc:schwaemm256-128"] == (16, 32, 16)
    assert params["lwc:xoodyak"] == (16, 16, 16)
    asc = vectors.load("lwc:ascon128")
    assert Counter((len(v.msg), len(v.ad)) for v in asc) == Counter(
        (p, a) for p in range(33) for a in range(33))


def test_lwc_explicit_tag_length_is_checked():
    with pytest.raises(vectors.VectorFormatError, match=r"LWC_AEAD_KAT_128_128.txt:\d+"):
        vectors.load("lwc:ascon128", tag_len=8)


def test_ocb3_rfc7253_nonce_and_tag_lengths():
    vecs = vectors.load("rfc7253")
    assert {v.params for v in vecs} == {(16, 12, 16)}
    assert {len(v.nonce) for v in vectors.load("ocb3:nonce120")} == {15}


def test_cryptopp_chacha_file_split_by_name():
    rfc = vectors.load("rfc8439")
    assert [v.comment.split(",")[1].strip() for v in rfc] == ["Section 2.8 example", "Section A.5 example"]
    assert rfc[0].tag.hex() == "1ae10b594f09e26a7e902ecbd0600691" and len(rfc[1].msg) == 265
    x = vectors.load("cryptopp:xchacha20poly1305")
    assert {len(v.nonce) for v in x} == {24}
    eax = vectors.load("eax-paper")
    assert [v.valid for v in eax] == [True] * 11 + [False]


def test_speck_sources_cover_all_parameter_sets():
    paper = vectors.load("speck-paper")
    assert [(v.block_bytes * 8, len(v.key) * 8) for v in paper] == sorted(refengines.SPECK_ROUNDS)
    cpp = vectors.load("cryptopp:speck")
    assert Counter(v.algorithm for v in cpp) == {
        "SPECK-64/ECB": 16, "SPECK-64/CBC": 14, "SPECK-64/CTR": 14,
        "SPECK-128/ECB": 24, "SPECK-128/CBC": 21, "SPECK-128/CTR": 21}


@pytest.mark.parametrize("name", sorted(n for n, s in sources.SOURCES.items() if s.path is not None))
def test_format_detection_agrees_with_catalogue(name):
    src = sources.get(name)
    assert src.path.is_file(), src.path
    assert detect_format(src.path) == src.fmt


@pytest.mark.usefixtures("shared_vectors")
def test_every_keeps_a_deterministic_sample_and_the_last():
    full = vectors.load("lwc:romulus-n")
    sample = vectors.load("lwc:romulus-n", every=33)
    assert [v.id for v in sample] == [full[i].id for i in range(0, 1089, 33)] + [full[-1].id]
    assert len(sample) == 34 and vectors.load("lwc:romulus-n", every=1) == full


@pytest.mark.usefixtures("shared_vectors")
def test_skinny_sources_split_the_file_by_round_count():
    plus, orig = vectors.load("skinny:128-384plus"), vectors.load("skinny:128-384")
    assert [v.comment for v in plus] == ["rounds=40"] and [v.comment for v in orig] == ["rounds=56"]
    assert plus[0].key == orig[0].key and len(plus[0].key) == 48 and plus[0].ct != orig[0].ct
