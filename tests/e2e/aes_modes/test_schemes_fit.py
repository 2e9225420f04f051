"""Schemes that overflowed the real chips' flash while every call was inlined now fit with
inline=auto (AES, GHASH multiplications, key schedules as subroutines) and pass their official
vectors in the simulator: OCB3 (software AES and the CC430's AES module) on the 32 KB
CC430F6137; EAX and OCB3 on the 16 KB STM32F030 (OCB3 needs the inverse cipher's tables too, so
there with one stored T-table per direction, table_fusion=rotate). Linking checks the fit (the
linker script is generated from the chip file's flash size)."""
import itertools

import pytest

from aedsl import vectors
from aedsl.engines.sim import sim_engine
from aedsl.vectors import runner

from tests.tiers import tiered

CASES = [("cc430f6137", "ocb3", {"aes": "soft"}, "rfc7253", 16),
         ("cc430f6137", "ocb3", {"aes": "accel"}, "rfc7253", 16),
         ("stm32f030", "eax", {}, "eax-paper", 10),
         ("stm32f030", "ocb3", {"table_fusion": "rotate"}, "rfc7253", 16)]


@pytest.mark.parametrize("chip,scheme,knobs,vecs,n", tiered(CASES, lambda c: c[2] in ({"aes": "accel"}, {})))
def test_fits_and_passes(chip, scheme, knobs, vecs, n, require_tools):
    require_tools(chip)
    eng = sim_engine(f"specs/schemes/{scheme}.ae", knobs, chip)       # inline=auto: the default
    sample = [v for v in vectors.load(vecs)
              if eng.supports(len(v.key), len(v.nonce), len(v.tag) if hasattr(v, "tag") else 16)]
    rep = runner.run(eng, list(itertools.islice(sample, n)))
    assert rep.failed == 0 and rep.passed >= min(n, 8), str(rep)
