"""Real calls against the interpreter: a spec whose helper `mixer` is called from four places
(one in a run-time loop, one with a local array as its table, one with another call's result as
argument, one from inside another helper with nine argument words, so some go on the stack),
with values live across every call, and a helper with a local array called in a loop. Compiled
with inline=auto (mixer a subroutine where its work passes the target's threshold), none (every call a subroutine) and all (no call), it must
give the interpreter's results for random inputs on both targets."""
import random
import re
from pathlib import Path

import pytest

from aedsl import chips
from aedsl.backends.armv6m import backend as arm_backend
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.ir.passes.call_policy import MIN_WORK, decide
from aedsl.sim.harness import Program
from aedsl.backends.registry import target_for

from tests.programs import call_entry


SPEC = Path(__file__).with_name("calls.ae")
CHIPS = ("cc430f6137", "msp430f1611", "stm32f030")
CALL_RE = {"msp430": re.compile(r"^\tcall\t#(\w+)$", re.M), "armv6m": re.compile(r"^\tbl\t(\w+)$", re.M)}


def test_auto_keeps_the_big_helper_and_inlines_the_small_ones():
    d = decide(load_module(SPEC, {}))
    assert d["mixer"]["keep"] and d["mixer"]["sites"] == 5        # 4 calls, one of them in spread
    assert not d["with_local"]["keep"] and not d["spread"]["keep"]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("policy", ["auto", "none", "all"])
def test_calls_match_the_interpreter(chip, policy, require_tools):
    require_tools(chip)
    c = chips.load(chip)
    unit = compile_spec(SPEC, c, {"inline": policy})
    called = set(CALL_RE[target_for(c).name].findall(unit.asm))
    # with_local (a local array, called in a loop) stays a call under every policy
    if policy == "all":
        assert called == {"calls_with_local"}
    elif policy == "auto":
        # mixer is kept where its work passes the target's threshold (ARM's is higher: cheaper
        # word ops, armv6m/backend.py CALL_MIN_WORK)
        min_work = arm_backend.CALL_MIN_WORK if target_for(c).name == "armv6m" else MIN_WORK
        mixer = decide(load_module(SPEC, {}), min_work)["mixer"]["keep"]
        assert called == ({"calls_mixer"} if mixer else set()) | {"calls_with_local"}
    else:
        assert {"calls_mixer", "calls_with_local", "calls_spread"} <= called
    # internal functions have local symbols; the spec's functions are all exported here
    assert all(f".global {e.symbol}" in unit.asm for e in unit.entries.values())
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(SPEC, {}))
    rnd = random.Random(0xCA11 + len(policy))
    for name, e in sorted(unit.entries.items()):
        for t in range(6):
            vals = []
            for p in e.params:
                if p.kind == "mem":
                    vals.append([rnd.getrandbits(p.width) for _ in range(p.count)])
                else:
                    vals.append(rnd.getrandbits(p.width))
            if name == "run":
                vals[2] = t % 4                       # loop trips (0 included)
            got = call_entry(prog, e, vals)
            assert got == list(ref.call(name, vals)), (chip, policy, name, vals)
