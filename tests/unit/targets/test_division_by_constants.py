"""Division and remainder by constants on generated code (aedsl/ir/passes/divconst.py: a
multiplication by the narrowest multiplier, an even divisor's power of two shifted out first),
in the simulators against Python: odd and even divisors of u32 and u64 dividends, at the
boundaries next to multiples of the divisor and at random. The pass's own tests check the IR in
the interpreter; this checks the wide products the targets make of it (split into words by
`legalize`: MPY on MSP430, MULS on ARMv6-M)."""
from pathlib import Path

import pytest

from tests.programs import call_entry, compiled_program
from tests.tiers import tiered

RNG_SEED = 0xD1

SPEC = Path(__file__).with_name("divisions.ae")      # a fixture beside the test (cached by path)


def expected(x: int, y: int) -> list[int]:
    return [x // 7, x // 48, x % 48, x // 20, x % 1000, y // 1000003, y % 12, x // 3]


# the fast tier on one chip; the full suite on a 16-bit multiplier (MPY), a 32-bit one (MPY32)
# and Thumb-1's MULS
@pytest.mark.parametrize("chip", tiered(["msp430f1611", "cc430f6137", "stm32f030"], {"msp430f1611"}, single=True))
def test_divisions_by_constants_match_python(chip, require_tools, rng):
    require_tools(chip)
    unit, prog = compiled_program(SPEC, chip)
    e = unit.entries["f"]
    top = (1 << 32) - 1
    xs = [0, 1, 2, 3, 6, 7, 8, 47, 48, 49, 999, 1000, 1001, top, top - 47, top - 48, top - 1000]
    ys = [0, 1, 11, 12, 1000002, 1000003, 1000004, (1 << 64) - 1, (1 << 64) - 1000003]
    pairs = [(x, rng.choice(ys)) for x in xs] + [(top, y) for y in ys]
    pairs += [(rng.getrandbits(32), rng.getrandbits(64)) for _ in range(60)]
    for x, y in pairs:
        got = call_entry(prog, e, (x, y))
        assert got == expected(x, y), (chip, x, y)
