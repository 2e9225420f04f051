"""Seed 002's lightweight AEAD specs compiled for the chips and run in their simulators on the NIST
LWC KAT vectors: every 33rd vector by default (every AD length 0..32 at varying message lengths),
the full files under `slow`, each scheme on msp430f1611, cc430f6137 and stm32f030 (Grain-128AEADv2
fits the cc430f6137's 32 KB and the stm32f030's 16 KB of flash since its initialization keeps its
loops rolled: 24 KB and 8 KB)."""
import pytest

from aedsl.engines.sim import sim_engine
from aedsl.vectors.runner import run_aead

from tests.tiers import tiered

from .test_lwc_seed002_specs import ELEPHANT, GRAIN, ISAP, PHOTON_BEETLE, ROMULUS_N, lwc_vectors

pytestmark = pytest.mark.usefixtures("shared_vectors")
CHIPS = ["msp430f1611", "cc430f6137", "stm32f030"]
CASES = ([(s, c) for s in (ISAP, PHOTON_BEETLE, ROMULUS_N, GRAIN) for c in CHIPS]
         + [(ELEPHANT, "stm32f030"), (ELEPHANT, "msp430f1611"), (ELEPHANT, "cc430f6137")])


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



# PHOTON-Beetle with PHOTON256's round as one table look-up per cell (`mix=table`, seed 002's way,
# which its Table 2 and 3 rows in docs/BENCHMARKS.md measure), in speed and size mode
TABLE_CASES = [(c, o) for c in CHIPS for o in ("speed", "size")]


@pytest.mark.parametrize("chip,opt", tiered(TABLE_CASES, {("msp430f1611", "speed")}),
                         ids=[f"{c}-{o}" for c, o in TABLE_CASES])
def test_photon_beetle_round_table_passes_a_vector_sample(chip, opt, require_tools):
    require_tools(chip)
    vecs = lwc_vectors(PHOTON_BEETLE, 33)
    report = run_aead(sim_engine(PHOTON_BEETLE, {"mix": "table", "opt": opt}, chip), vecs)
    assert report.passed == len(vecs) and report.failed == 0, str(report)


@pytest.mark.slow
@pytest.mark.parametrize("packing,chip", [("bytes", "msp430f1611"), ("on", "msp430f1611"), ("off", "stm32f030")])
def test_elephant_passes_with_each_record_packing(packing, chip, require_tools):
    """Spongent's round-counter table in each layout (ir/passes/recurrence_tables.py, knob
    `record_packing`; the chips' defaults are covered above): one packed word a round, a byte
    per field, a word per field. All 1 089 vectors passed on 2026-11-27 with `aedsl kat
    specs/schemes/elephant_dumbo.ae --engine sim --chip msp430f1611 -k record_packing=bytes`."""
    require_tools(chip)
    vecs = lwc_vectors(ELEPHANT, 33)
    report = run_aead(sim_engine(ELEPHANT, {"record_packing": packing}, chip), vecs)
    assert report.passed == len(vecs) and report.failed == 0, str(report)
