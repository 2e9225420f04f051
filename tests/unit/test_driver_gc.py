"""compile_spec runs with the collector's first-generation threshold raised (aedsl/driver.py,
GC_THRESHOLD) and puts the process's own thresholds back afterwards, also when the compile fails."""
import gc

import pytest

from aedsl import driver
from aedsl.frontend.diagnostics import SpecError
from tests.paths import SPECS

SPECK = SPECS / "primitives" / "speck.ae"


@pytest.fixture
def thresholds():
    old = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*old)


def test_compiles_with_the_raised_threshold_and_restores_it(monkeypatch, thresholds):
    seen = []
    real = driver._generate

    def watched(*args):
        seen.append(gc.get_threshold())
        return real(*args)
    monkeypatch.setattr(driver, "_generate", watched)       # a patch: the compile is real
    unit = driver.compile_spec(SPECK, "msp430f1611", {"block_bits": 64, "key_bits": 128})
    assert unit.asm
    assert seen == [(driver.GC_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)


def test_a_higher_threshold_of_the_process_is_kept(thresholds):
    gc.set_threshold(10 * driver.GC_THRESHOLD, 5, 5)
    with driver._few_collections():
        assert gc.get_threshold() == (10 * driver.GC_THRESHOLD, 5, 5)
    assert gc.get_threshold() == (10 * driver.GC_THRESHOLD, 5, 5)


def test_a_failed_compile_restores_it(tmp_path, thresholds):
    bad = tmp_path / "bad.ae"
    bad.write_text("spec bad\nfn f(x: u16) -> u16 {\n    return y\n}\n")
    with pytest.raises(SpecError):
        driver.compile_spec(bad, "msp430f1611")
    assert gc.get_threshold() == (700, 10, 10)
