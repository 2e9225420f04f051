"""CTR, CCM, GCM, OCB3 and EAX with the CC430 AES128 module (`aes=accel`), compiled for
cc430f6137 and run in the simulator on official vectors, with and without delay-slot scheduling.
A read of AESADOUT (or a write to the module) while it is BUSY is a SimError in the simulator, so
a passing run also shows that every wait the scheduler removed was really covered.

Samples (deterministic, to keep the run short): the first 40 vectors each engine supports of a
Wycheproof file; every vector of the small files (RFC 3686, RFC 7253 sample results, EAX paper)."""
import itertools

import pytest

from aedsl import vectors
from aedsl.engines.sim import sim_engine
from aedsl.vectors import runner
from aedsl.vectors.nist_blocks import read_blocks
from aedsl.vectors.sources import package_dir

from tests.tiers import tiered

CHIP = "cc430f6137"
SCHEDULES = ("none", "delay_slot")

CASES = [("ccm", "wycheproof:aes_ccm", 40), ("ccm", "cavp:ccm:VADT128", 40), ("gcm", "wycheproof:aes_gcm", 40),
         ("ocb3", "rfc7253", None), ("eax", "eax-paper", None), ("eax", "wycheproof:aes_eax", 24)]


def engine(scheme, schedule):
    # delay_slot is the MSP430 target's default: the variant is the one the other tests of the
    # accelerator compile without naming it (driver.without_target_defaults)
    return sim_engine(f"specs/schemes/{scheme}.ae", {"aes": "accel", "schedule": schedule}, CHIP)


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("schedule", tiered(SCHEDULES, {"delay_slot"}, single=True))
@pytest.mark.parametrize("scheme,source,limit", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_official_vectors(scheme, source, limit, schedule):
    eng = engine(scheme, schedule)
    vecs = [v for v in vectors.load(source) if eng.supports(len(v.key), len(v.nonce), len(v.tag))]
    sample = list(itertools.islice(vecs, limit)) if limit else vecs
    rep = runner.run(eng, sample)
    assert rep.failed == 0, str(rep)
    assert rep.passed == len(sample) >= 10


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_ctr_rfc3686(schedule):
    eng = engine("ctr", schedule)
    checked = 0
    for b in read_blocks(package_dir("cryptography_vectors") / "ciphers/AES/CTR/aes-128-ctr.txt"):
        key, iv = bytes.fromhex(b.fields["key"]), bytes.fromhex(b.fields["iv"])
        pt, ct = bytes.fromhex(b.fields["plaintext"]), bytes.fromhex(b.fields["ciphertext"])
        assert eng.encrypt(key, iv, b"", pt, 0) == ct
        assert eng.decrypt(key, iv, b"", ct, b"") == pt
        checked += 1
    assert checked == 3
