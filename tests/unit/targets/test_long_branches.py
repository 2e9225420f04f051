"""Long branches: with inline=all, `run` of longloop.ae has a loop body and an `if` branch of
several KB, so its conditional branches are out of reach and must take the long forms (MSP430:
the inverted jump over `br #label`; ARMv6-M: the inverted B<cond> over B, or over BL beyond
+-2 KB, with LR saved); the results must still match the interpreter (loop run 0..3 times, both
ways through the `if`)."""
import random
import re
from pathlib import Path

import pytest

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer, Program
from aedsl.backends.registry import target_for

from tests.tiers import tiered


SPEC = Path(__file__).with_name("longloop.ae")
# an inverted conditional branch over a long jump (the target label is out of the short reach)
LONG = {"msp430": re.compile(r"^\tj(?:nc|c|z|nz)\t(\S+)\n\tbr\t#(\S+)\n\1:", re.M),
        "armv6m": re.compile(r"^\tb(?:eq|ne|cs|cc|mi|pl|hi|ls)\t(\S+)\n\tbl?\t(\S+)\n\1:", re.M)}


# rounds per body: MSP430 code is ~4x the size of Thumb's (u64 on 16-bit words); 24 rounds make
# ~5 KB bodies there (two fit the 32 KB part), 48 make ~1.7 KB on ARMv6-M (the loop and the `if`
# together then span > 2 KB: the BL form)
ROUNDS = {"msp430": 24, "armv6m": 48}


@pytest.mark.parametrize("chip", tiered(["cc430f6137", "msp430f1611", "stm32f030"], {"stm32f030"}, single=True))
def test_long_loop_body_and_if(chip, require_tools):
    require_tools(chip)
    c = chips.load(chip)
    knobs = {"n_rounds": ROUNDS[target_for(c).name]}
    unit = compile_spec(SPEC, c, {"inline": "all", **knobs})
    e = unit.entries["run"]
    targets = {t for _, t in LONG[target_for(c).name].findall(unit.asm)}
    # the loop's exit test, its back edge, the jump over the `then` part
    assert {re.sub(r"\d+$", "", t).rsplit("_", 1)[-1] for t in targets} >= {"loop", "done"}, targets
    assert len(targets) >= 2
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(SPEC, {k: str(v) for k, v in knobs.items()}))
    rnd = random.Random(0x10F6)
    taken = set()                           # the low bit tested by the `if`, over the trials
    for t in range(12):
        x, k, n = rnd.getrandbits(64), rnd.getrandbits(32), t % 4
        want = ref.call("run", [x, k, n])[0]
        v = x
        for i in range(n):
            v = ref.call("rounds", [v, (k + i) & 0xFFFFFFFF])[0]
        taken.add(v & 1)
        r = prog.call(e.symbol, [Buffer(x.to_bytes(8, "little")), k if e.params[1].kind == "word"
                                 else Buffer(k.to_bytes(4, "little")), n, Buffer(8)])
        assert int.from_bytes(r.buffers[-1], "little") == want, (chip, x, k, n)
    assert taken == {0, 1}
