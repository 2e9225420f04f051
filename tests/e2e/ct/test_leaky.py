"""`aedsl ct` refuses the deliberately leaky specs of leaky/ and names the offending spec line: a
branch on a secret, a loop with a secret bound, a shift by a secret amount where the target's
shift is a loop (MSP430; not ARMv6-M, whose register shift is one instruction), a division by a
secret (a software loop on every target), and a multiplication by a secret on a chip whose file
says the multiplier's latency depends on its operands."""
import dataclasses

import pytest

from aedsl import chips
from aedsl.ct import taint_mir
from aedsl.ct.check import check
from aedsl.driver import compile_spec
from tests.paths import ROOT

LEAKY = ROOT / "tests" / "e2e" / "ct" / "leaky"
MSP430 = ("cc430f6137", "msp430f1611")
ALL = MSP430 + ("stm32f030",)


def lines_of(spec: str, text: str) -> set[int]:
    """The numbers of the lines of leaky/<spec>.ae that hold `text`."""
    src = (LEAKY / f"{spec}.ae").read_text().splitlines()
    found = {n for n, line in enumerate(src, 1) if text in line}
    assert found, f"{text!r} not in {spec}.ae"
    return found


def refused(rep, level: str) -> set[tuple[str, int]]:
    return {(f.kind, f.loc[1]) for f in rep.refused() if f.level == level}


# (spec, the text of the offending lines, kinds the IR analysis reports there, kinds the
# machine-code analysis reports there, chips where the spec is leaky)
CASES = [
    ("secret_branch", "if (ks[0] & 1)", {"branch"}, {"branch"}, ALL),
    ("secret_loop", "for i in 0..ks[0] & 7", {"loop"}, {"branch", "loop"}, ALL),
    ("secret_shift", "<< ((ks[0] & 15) as u8)", set(), {"branch", "loop"}, MSP430),
    ("secret_div", "/ ((ks[0] as u16) | 1)", set(), {"branch"}, ALL),
]


@pytest.mark.parametrize("chip", ALL)
@pytest.mark.parametrize("spec,text,ir_kinds,mir_kinds,leaky_on", CASES, ids=[c[0] for c in CASES])
def test_static_analysis_refuses_the_leak_at_its_line(spec, text, ir_kinds, mir_kinds, leaky_on, chip):
    rep = check(LEAKY / f"{spec}.ae", chip, run_dynamic=False)
    lines = lines_of(spec, text)
    if chip not in leaky_on:
        assert rep.static_ok, [f.render() for f in rep.refused()]
        return
    assert not rep.static_ok
    assert refused(rep, "ir") == {(k, n) for k in ir_kinds for n in lines}
    assert refused(rep, "machine") == {(k, n) for k in mir_kinds for n in lines}
    assert all(f.source_line().strip() and text in f.source_line() for f in rep.refused())


@pytest.mark.needs("msp430", "armv6m")
def test_the_simulator_runs_see_the_shift_loop_and_not_the_arm_shift():
    leaky = check(LEAKY / "secret_shift.ae", "msp430f1611")
    assert not leaky.dynamic.ok
    assert not next(t for t in leaky.dynamic.ops if t.op == "encrypt_block").constant
    fine = check(LEAKY / "secret_shift.ae", "stm32f030")
    assert fine.ok and fine.dynamic.ok


@pytest.mark.parametrize("chip", ALL)
def test_a_multiplier_declared_operand_dependent_is_refused(chip):
    real = chips.load(chip)
    unit = compile_spec(LEAKY / "secret_mul.ae", real, {}, keep=True)
    assert taint_mir.analyse(unit.mir, real) == []          # every chip file: constant-latency multiplier
    slow = dataclasses.replace(real, multiplier={**real.multiplier, "data_dependent_latency": True})
    found = taint_mir.analyse(unit.mir, slow)
    assert found and {f.kind for f in found} == {"variable-time"}
    assert {f.loc[1] for f in found} == lines_of("secret_mul", "ks[0] * ks[0]")
