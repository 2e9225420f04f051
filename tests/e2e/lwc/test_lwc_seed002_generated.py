"""Seed 002's lightweight AEAD specs compiled for the chips and run in their simulators on the NIST
LWC KAT vectors: every 33rd vector by default (every AD length 0..32 at varying message lengths),
the full files under `slow`. Grain-128AEADv2 runs on msp430f1611 only (its 44 KB of code
fit neither the cc430f6137's 32 KB nor the stm32f030's 16 KB of flash); test_variants_that_do_not_build_yet
pins these."""
import pytest

from aedsl.engines.sim import sim_engine
from aedsl.vectors.runner import run_aead

from tests.tiers import tiered

from .test_lwc_seed002_specs import ELEPHANT, GRAIN, ISAP, PHOTON_BEETLE, ROMULUS_N, lwc_vectors

pytestmark = pytest.mark.usefixtures("shared_vectors")
CHIPS = ["msp430f1611", "cc430f6137", "stm32f030"]
CASES = ([(s, c) for s in (ISAP, PHOTON_BEETLE, ROMULUS_N) for c in CHIPS]
         + [(GRAIN, "msp430f1611"), (ELEPHANT, "stm32f030"), (ELEPHANT, "msp430f1611"), (ELEPHANT, "cc430f6137")])


def _engine(spec, chip):
    return sim_engine(spec, {}, chip)


@pytest.mark.parametrize("spec,chip", tiered(CASES, {(ISAP, "stm32f030"), (PHOTON_BEETLE, "msp430f1611")}),
                         ids=[f"{s.stem}-{c}" for s, c in CASES])
def test_generated_code_passes_a_vector_sample(spec, chip, require_tools):
    require_tools(chip)
    vecs = lwc_vectors(spec, 33)
    report = run_aead(_engine(spec, chip), vecs)
    assert report.passed == len(vecs) and report.failed == 0, str(report)


@pytest.mark.slow
@pytest.mark.parametrize("spec,chip", CASES, ids=[f"{s.stem}-{c}" for s, c in CASES])
def test_generated_code_passes_all_vectors(spec, chip, require_tools):
    require_tools(chip)
    report = run_aead(_engine(spec, chip), lwc_vectors(spec))
    assert report.passed == 1089 and report.failed == 0, str(report)


@pytest.mark.slow      # a 44 KB compile and link per chip (the ct matrix checks the same in the slow tier)
@pytest.mark.parametrize("spec,chip,message", [
    (GRAIN, "stm32f030", "will not fit in region `FLASH'"),
    (GRAIN, "cc430f6137", "will not fit in region `FLASH'"),
], ids=["grain-stm32f030", "grain-cc430f6137"])
def test_variants_that_do_not_build_yet(spec, chip, message, require_tools):
    """When one of these starts to build, move it into CASES."""
    require_tools(chip)
    with pytest.raises(Exception) as err:
        run_aead(_engine(spec, chip), lwc_vectors(spec, 1089))
    assert message in str(err.value)
