"""Issue 10's cycle limits that generated code meets, pinned as regression guards: the papers' and
references' figures themselves (docs/BENCHMARKS.md rows, the same measurement: `aedsl bench`,
crypto_aead_encrypt through the runtime API, key setup included), not ~2 % above what was measured.
A change that crosses one fails here, whatever it gains elsewhere.

- Romulus-N on msp430f1611, seed 002's Table 3: its AD-heavy cells were the last above the paper
  (met with the merged LFSR taps, demanded bits through shifts and unroll_moves).
- Ascon-128 v1.2 on msp430f1611, AD = M = 1024: Alsahli et al.'s hand-written Ascon-p, 941 924.
- Grain-128AEADv2 on stm32f030, 256 B message: half the NIST LWC Cortex-M0+ benchmark's 185 319
  (met with par = the target word, 32 clocks a step)."""
import pytest

from aedsl.bench import bench_spec

from tests.tiers import tiered

LIMITS = [
    # (spec, chip, AD bytes, message bytes, limit in cycles, where the limit comes from)
    ("romulus_n", "msp430f1611", 1024, 0, 381_894, "seed 002 Table 3"),
    ("romulus_n", "msp430f1611", 0, 1024, 436_601, "seed 002 Table 3"),
    ("romulus_n", "msp430f1611", 1024, 1024, 792_736, "seed 002 Table 3"),
    ("ascon128", "msp430f1611", 1024, 1024, 941_924, "Alsahli et al. 2022"),
    ("grain128aeadv2", "stm32f030", 0, 256, 185_319 // 2 + 1, "NIST LWC Cortex-M0+ benchmark / 2"),
]


@pytest.mark.parametrize("spec,chip,ad,msg,limit,source",
                         # fast tier: Ascon-128, whose variant other fast tests compile anyway
                         tiered(LIMITS, lambda c: c[0] == "ascon128"),
                         ids=[f"{s}-{c}-{a}-{m}" for s, c, a, m, _, _ in LIMITS])
def test_at_or_below_the_reference(spec, chip, ad, msg, limit, source, require_tools):
    require_tools(chip)
    recs = bench_spec(f"specs/schemes/{spec}.ae", chip, sizes=(str(msg),), ad_len=ad,
                      key_setup="include", seed001=False)
    (enc,) = [r for r in recs if r.op == "encrypt"]
    assert enc.cycles <= limit, f"{spec} on {chip}, AD {ad} / M {msg}: {enc.cycles:.0f} > {limit} ({source})"
