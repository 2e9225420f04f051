"""`aedsl ct` passes for every variant the verification matrix builds (tools/verify_all.py, its sim
rows): no secret-dependent branch, loop or variable-time instruction in the IR or the machine
code, and one cycle count per entry point on random secrets at fixed public inputs. The fast tier
runs one variant per kind (a block cipher on each MSP430 CPU, a scheme with the accelerator, an ARM
scheme; the OCB3 test below adds OCB3 and CCM on ARM); the full suite runs them all. OCB3's cycles follow the nonce (its low six bits pick a
run-time shift) wherever that shift is the target's loop, CCM's do not."""
import importlib.util
import sys

import pytest

from aedsl.ct.check import check
from aedsl.ct.report import render
from tests.paths import ROOT
from tests.tiers import tiered

pytestmark = pytest.mark.needs("msp430", "armv6m")


def _verify_all():
    if "verify_all" not in sys.modules:
        spec = importlib.util.spec_from_file_location("verify_all", ROOT / "tools" / "verify_all.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["verify_all"] = mod              # dataclasses look their module up there
        spec.loader.exec_module(mod)
    return sys.modules["verify_all"]


BUILDS = sorted({(r.chip, r.spec, tuple(sorted((k, str(v)) for k, v in r.knobs.items())))
                 for r in _verify_all().matrix() if r.engine == "sim"})
# builds the matrix states do not fit their chip yet (Grain's 44 KB on 32 KB parts): the machine
# code is analysed all the same, but there is no ELF to time
UNFIT = {b for b in BUILDS if (b[1].rsplit("/", 1)[-1][:-3], b[0]) in _verify_all().LWC_UNFIT}
FAST = {
    ("msp430f1611", "specs/primitives/speck.ae", (("block_bits", "64"), ("key_bits", "128"))),
    ("cc430f6137", "specs/primitives/aes.ae", (("aes_tables", "t16x4"), ("key_bits", "128"), ("unroll", "1"))),
    ("cc430f6137", "specs/schemes/ccm.ae", (("aes", "accel"), ("key_bits", "128"), ("schedule", "delay_slot"))),
    ("stm32f030", "specs/schemes/chacha20_poly1305.ae", ()),
}


def _id(case) -> str:
    chip, spec, knobs = case
    return f"{chip}/{spec.rsplit('/', 1)[-1][:-3]}[{','.join(f'{k}={v}' for k, v in knobs)}]"


def test_the_fast_cases_are_in_the_matrix():
    assert FAST <= set(BUILDS) and len(BUILDS) > 100


@pytest.mark.parametrize("chip,spec,knobs", tiered(BUILDS, FAST), ids=[_id(b) for b in BUILDS])
def test_every_matrix_variant_is_constant_time(chip, spec, knobs):
    if (chip, spec, knobs) in UNFIT:
        rep = check(ROOT / spec, chip, dict(knobs), run_dynamic=False)
        assert rep.ok, render(rep)
        from aedsl.engines.sim import compiled
        from aedsl.toolchain import ToolchainError
        with pytest.raises(ToolchainError, match="will not fit|overflowed"):
            compiled(str(ROOT / spec), chip, dict(knobs))   # when it fits, time it like the others
        return
    rep = check(ROOT / spec, chip, dict(knobs))
    assert rep.ok, render(rep)
    assert rep.dynamic.ops and all(len(t.cycles) == 3 for t in rep.dynamic.ops)


OCB3 = [("stm32f030", {"key_bits": "128"}), ("cc430f6137", {"aes": "accel", "key_bits": "128"})]


@pytest.mark.parametrize("chip,knobs", tiered(OCB3, lambda c: c[0] == "stm32f030"), ids=[c[0] for c in OCB3])
def test_ocb3_cycles_follow_the_nonce_and_ccm_cycles_do_not(chip, knobs):
    ocb3 = check(ROOT / "specs/schemes/ocb3.ae", chip, knobs)
    for t in ocb3.dynamic.ops:
        assert ("nonce" in t.follows) == (t.op != "key_setup"), render(ocb3)
        assert "verdict" not in t.follows and "ad" not in t.follows
    ccm = check(ROOT / "specs/schemes/ccm.ae", chip, knobs)
    for t in ccm.dynamic.ops:
        assert "nonce" not in t.follows, render(ccm)
        assert ("msg_len" in t.follows) == (t.op != "key_setup")
