"""OCB3's get_l beyond its table (L_i doubled on from the last cached entry) in generated code:
with l_cached = 1 or 2, messages of a few blocks already need L_1, L_2, ... by doubling. Random
lengths against pycryptodome, both MSP430 AES flavours and the Cortex-M0."""
import random

import pytest
from Crypto.Cipher import AES

from aedsl.engines.sim import sim_engine


@pytest.mark.parametrize("chip,knobs", [("cc430f6137", {"aes": "accel", "l_cached": 1}),
                                        pytest.param("cc430f6137", {"aes": "soft", "l_cached": 2},
                                                     marks=pytest.mark.slow),
                                        pytest.param("stm32f030", {"l_cached": 1}, marks=pytest.mark.slow)])
def test_ocb3_small_l_table_matches_pycryptodome(chip, knobs, require_tools):
    require_tools(chip)
    eng = sim_engine("specs/schemes/ocb3.ae", knobs, chip)
    rng = random.Random(5)
    for _ in range(6):
        key, nonce = rng.randbytes(16), rng.randbytes(12)
        msg, ad = rng.randbytes(rng.choice([0, 15, 16, 64, 100, 130])), rng.randbytes(rng.choice([0, 17, 70]))
        c = AES.new(key, AES.MODE_OCB, nonce=nonce, mac_len=16)
        c.update(ad)
        ct, tag = c.encrypt_and_digest(msg)
        assert eng.encrypt(key, nonce, ad, msg, 16) == ct + tag
        assert eng.decrypt(key, nonce, ad, ct, tag) == msg
