"""AEAD modes with software AES compiled whole (mode + cipher inlined) and run in the
simulator against a deterministic sample of Wycheproof (the first 40 applicable vectors)."""
import itertools

import pytest

from aedsl import vectors
from aedsl.engines.sim import sim_engine
from aedsl.vectors import runner


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("scheme", ["ccm", "gcm"])
def test_mode_wycheproof_sample(scheme):
    eng = sim_engine(f"specs/schemes/{scheme}.ae", {}, "cc430f6137")
    vecs = [v for v in vectors.load(f"wycheproof:aes_{scheme}")
            if eng.supports(len(v.key), len(v.nonce), len(v.tag) if hasattr(v, "tag") else 16)]
    sample = list(itertools.islice(vecs, 40))
    rep = runner.run(eng, sample)
    assert rep.failed == 0 and rep.passed >= 20, str(rep)
