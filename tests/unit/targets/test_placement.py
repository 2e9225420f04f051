"""The ARMv6-M target knob `placement`: where a unit's tables and code go (.rodata/.text, or
.data in RAM), the default unchanged, and what it buys on a chip with flash wait states (the same
results, fewer cycles: lookups, then fetches too, pay no wait state)."""
import random
import re

import pytest

from aedsl.driver import compile_spec
from aedsl.engines.sim import sim_engine
from aedsl.knobs import KnobError

AES = "specs/primitives/aes.ae"
GCM = "specs/schemes/gcm.ae"


def sections(asm: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"^\t\.section (\.\w+)\.", asm, re.M)}


@pytest.mark.parametrize("placement,expected", [(None, {".text", ".rodata"}), ("flash", {".text", ".rodata"}),
                                                ("tables_ram", {".text", ".data"}), ("ram", {".data"})])
def test_sections(placement, expected):
    knobs = {} if placement is None else {"placement": placement}
    unit = compile_spec(AES, "samd21g18", knobs)
    assert sections(unit.asm) == expected
    if placement in (None, "flash"):
        assert unit.asm.split("\n", 4)[4] == compile_spec(AES, "samd21g18", {}).asm.split("\n", 4)[4]   # after the knobs and header name


def test_unknown_value_is_refused():
    with pytest.raises(KnobError):
        compile_spec(AES, "samd21g18", {"placement": "eeprom"})


def test_fewer_cycles_same_results(require_tools):
    require_tools("samd21g18")
    rng = random.Random(7)
    key, nonce, ad, msg = rng.randbytes(16), rng.randbytes(12), rng.randbytes(16), rng.randbytes(64)
    cycles, outs = [], []
    for placement in ("flash", "tables_ram", "ram"):
        eng = sim_engine(GCM, {"placement": placement}, "samd21g18")
        out = eng.encrypt(key, nonce, ad, msg, 16)
        cycles.append(eng.last.cycles)
        outs.append(out)
        assert eng.decrypt(key, nonce, ad, out[:-16], out[-16:]) == msg
    assert outs[0] == outs[1] == outs[2]
    assert cycles[0] > cycles[1] > cycles[2], cycles
