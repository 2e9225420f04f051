"""GCM, CCM and OCB3 specs against the official vectors, through the interpreter: every valid
vector must encrypt to its ct || tag and decrypt back, every invalid one must be rejected.

Skips are asserted, not just tolerated: a vector is skipped exactly when its lengths lie outside
what the standard allows (the predicates below are written from the standards, independently of
the specs' `domain` lines), so both the specs' domains and their results are checked.

Samples (deterministic): the six CAVP GCM files hold 7875 cases each; by default each file runs the
first case of every (key, IV, PT, AAD, tag)-length section (`per_section=1`, 525 cases per file),
and the RFC 7253 Appendix A iterated test runs 3 of its 9 (key, tag) sizes. AEDSL_FULL_VECTORS=1
runs everything."""
import pytest

from .aes_modes_support import FULL, RFC7253_ITERATED, load_vectors, mode_engine, rfc7253_iterated, run_by_key_size
from aedsl.vectors.sources import package_dir

from tests.tiers import tiered

CAVP_CCM = [f"cavp:ccm:{kind}{bits}" for kind in ("DVPT", "VADT", "VNT", "VPT", "VTT") for bits in (128, 192, 256)]
CAVP_GCM = [f"cavp:gcm:{d}{bits}" for bits in (128, 192, 256) for d in ("encrypt", "decrypt")]
GHASH_VARIANTS = [{"ghash": "bitwise"}, {"ghash": "ld4", "ghash_word": 8},
                  {"ghash": "ld4", "ghash_word": 16}, {"ghash": "ld4", "ghash_word": 32}]


def gcm_allows(key_len, nonce_len, tag_len):  # SP 800-38D 5.2.1.1-5.2.1.2
    return key_len in (16, 24, 32) and nonce_len >= 1 and tag_len in (4, 8, 12, 13, 14, 15, 16)


def ccm_allows(key_len, nonce_len, tag_len):  # SP 800-38C A.1
    return key_len in (16, 24, 32) and 7 <= nonce_len <= 13 and tag_len in (4, 6, 8, 10, 12, 14, 16)


def ocb3_allows(key_len, nonce_len, tag_len):  # RFC 7253 3 (tags: the library-checked 8..16)
    return key_len in (16, 24, 32) and 1 <= nonce_len <= 15 and 8 <= tag_len <= 16


def check(scheme, allows, vecs, **knobs):
    supported = sum(allows(*v.params) for v in vecs)
    assert supported > 0
    passed, failed, skipped, failures = run_by_key_size(scheme, vecs, **knobs)
    assert failed == 0, "\n".join(failures)
    assert (passed, skipped) == (supported, len(vecs) - supported)
    return passed, skipped


# -- GCM

@pytest.mark.parametrize("knobs", tiered(GHASH_VARIANTS, lambda k: k.get("ghash_word") == 16, single=True), ids=lambda k: "-".join(map(str, k.values())))
def test_gcm_wycheproof(knobs):
    vecs = load_vectors("wycheproof:aes_gcm")
    assert any(not v.valid for v in vecs)
    passed, skipped = check("gcm", gcm_allows, vecs, **knobs)
    # The skipped ones are the empty IVs (SP 800-38D requires at least one bit).
    assert skipped == sum(len(v.nonce) == 0 for v in vecs) > 0


def test_gcm_wycheproof_accelerator():
    vecs = [v for v in load_vectors("wycheproof:aes_gcm") if len(v.key) == 16]
    check("gcm", gcm_allows, vecs, aes="accel", ghash="ld4")


@pytest.mark.parametrize("source", tiered(CAVP_GCM, {"cavp:gcm:decrypt128"}, single=True))
def test_gcm_cavp(source):
    vecs = load_vectors(source) if FULL else load_vectors(source, per_section=1)
    assert len(vecs) == (7875 if FULL else 525)
    if "decrypt" in source:
        assert any(not v.valid for v in vecs)
    # Alternate the GHASH strategy between the files so both meet every length section.
    knobs = GHASH_VARIANTS[CAVP_GCM.index(source) % len(GHASH_VARIANTS)]
    check("gcm", gcm_allows, vecs, **knobs)


# -- CCM

def test_ccm_wycheproof():
    vecs = load_vectors("wycheproof:aes_ccm")
    assert any(not v.valid for v in vecs)
    check("ccm", ccm_allows, vecs)


@pytest.mark.parametrize("source", tiered(CAVP_CCM, {"cavp:ccm:DVPT128", "cavp:ccm:VTT256"}, single=True))
def test_ccm_cavp(source):
    vecs = load_vectors(source)
    passed, skipped = check("ccm", ccm_allows, vecs)
    assert skipped == 0


def test_ccm_cavp_accelerator():
    vecs = load_vectors("cavp:ccm:DVPT128") + load_vectors("cavp:ccm:VADT128")
    assert any(not v.valid for v in vecs)
    check("ccm", ccm_allows, vecs, aes="accel")


# -- OCB3

OCB3_SOURCES = ["rfc7253", "ocb3:nonce104", "ocb3:nonce112", "ocb3:nonce120"]


@pytest.mark.parametrize("l_cached", [1, 8, 28])
@pytest.mark.parametrize("aes", ["soft", "accel"])
def test_ocb3_rfc7253(aes, l_cached):
    # openssl.txt: 7 longer messages (up to 8 blocks, so L_0..L_3) in the same format.
    extra = package_dir("cryptography_vectors") / "ciphers/AES/OCB3/openssl.txt"
    vecs = [v for s in OCB3_SOURCES for v in load_vectors(s)] + load_vectors(extra, fmt="ocb3")
    assert len(vecs) == 4 * 16 + 7
    passed, skipped = check("ocb3", ocb3_allows, vecs, aes=aes, l_cached=l_cached)
    assert skipped == 0


@pytest.mark.parametrize("key_bits,tag_bits", tiered(list(RFC7253_ITERATED) if FULL else [(128, 128), (192, 96), (256, 64)],
                                                     {(128, 128)}))
def test_ocb3_rfc7253_iterated(key_bits, tag_bits):
    eng = mode_engine("ocb3", key_bits=key_bits)
    got = rfc7253_iterated(lambda k, n, a, m: eng.encrypt(k, n, a, m, tag_bits // 8), key_bits, tag_bits)
    assert got.hex().upper() == RFC7253_ITERATED[key_bits, tag_bits]



# -- body=shared (the size mode's shape: encryption and decryption as one subroutine `crypt`
# with a direction flag), on the same vector sets, both AES implementations

@pytest.mark.parametrize("aes", tiered(["soft", "accel"], {"soft"}, single=True))
def test_shared_body_gcm_ccm(aes):
    gcm = [v for v in load_vectors("wycheproof:aes_gcm") if aes == "soft" or len(v.key) == 16]
    check("gcm", gcm_allows, gcm, aes=aes, body="shared")
    ccm = [v for v in load_vectors("wycheproof:aes_ccm") if aes == "soft" or len(v.key) == 16]
    ccm += load_vectors("cavp:ccm:VPT128") + load_vectors("cavp:ccm:VTT128")
    assert any(not v.valid for v in ccm)
    check("ccm", ccm_allows, ccm, aes=aes, body="shared")


@pytest.mark.parametrize("aes", tiered(["soft", "accel"], {"soft"}, single=True))
def test_shared_body_ocb3(aes):
    extra = package_dir("cryptography_vectors") / "ciphers/AES/OCB3/openssl.txt"
    vecs = [v for s in OCB3_SOURCES for v in load_vectors(s)] + load_vectors(extra, fmt="ocb3")
    passed, skipped = check("ocb3", ocb3_allows, vecs, aes=aes, body="shared")
    assert skipped == 0
