"""GCM with the table-driven GHASH (ghash=shoup4, the default) against official vectors: every
Wycheproof AES-GCM vector the variant supports (its key size; nonce >= 1 byte; tags of 4, 8,
12..16 bytes) and every 25th CAVP GCM encryption and decryption case (with FAIL cases), through
the interpreter and on generated code in the simulators (cc430f6137 with software AES and with the
AES module, stm32f030)."""
import itertools

import pytest

from aedsl import vectors
from aedsl.engines.sim import sim_engine
from aedsl.engines.interp import interp_engine
from aedsl.vectors import runner

from .configs import CONFIGS, config_id, config_params

GCM = "specs/schemes/gcm.ae"
CAVP_STEP = 25
_vectors: dict = {}


def load(name):
    if name not in _vectors:
        _vectors[name] = vectors.load(name)
    return _vectors[name]


def supported(eng, vecs):
    return [v for v in vecs if eng.supports(*v.params)]


def cavp_sample(eng, key_bits):
    out = []
    for kind in ("encrypt", "decrypt"):
        out += list(itertools.islice(supported(eng, load(f"cavp:gcm:{kind}{key_bits}")), 0, None, CAVP_STEP))
    return out


def check(eng, vecs, at_least):
    rep = runner.run(eng, vecs)
    assert rep.failed == 0, str(rep)
    assert rep.passed == len(vecs) >= at_least, str(rep)


@pytest.mark.parametrize("key_bits,word", [(128, 16), (192, 8), (256, 32)])
def test_interpreter_wycheproof(key_bits, word):
    eng = interp_engine(GCM, {"key_bits": str(key_bits), "ghash": "shoup4", "ghash_word": str(word)})
    check(eng, supported(eng, load("wycheproof:aes_gcm")), 90)


def test_interpreter_cavp_sample():
    eng = interp_engine(GCM, {"ghash": "shoup4"})
    check(eng, cavp_sample(eng, 128), 500)


@pytest.mark.parametrize("chip,knobs", config_params(), ids=[config_id(c) for c in CONFIGS])
def test_simulator_wycheproof_and_cavp(chip, knobs, require_tools):
    require_tools(chip)
    eng = sim_engine(GCM, knobs, chip)
    assert eng.unit.knobs.get("ghash", "shoup4") == "shoup4"
    check(eng, supported(eng, load("wycheproof:aes_gcm")), 90)
    check(eng, cavp_sample(eng, knobs.get("key_bits", 128)), 500)
