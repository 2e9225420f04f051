"""The call policy's rule for a function that works in place on memory (every parameter a
memory, no result): a call to it costs only the call itself, with no argument values to move into
place or results to move back, so it is kept at half the work threshold. A function doing the same
work on values is not. NORX's F^l on the state in memory is such a function: on ARMv6-M
(call_min_work 1200) its 800 word ops kept it inlined six times (8 522 B); as one subroutine the
scheme is 4 810 B for 63 more cycles on the 256 B message, and `unroll=full` fits (17 543 cycles
in 6 512 B, where inlined it overflowed the 16 KB flash)."""
from aedsl.backends.armv6m.backend import CALL_MIN_WORK
from aedsl.frontend.elaborate import load_module
from aedsl.ir.passes import call_policy

from tests.paths import ROOT

ROUND = """
    @unroll
    for i in 0..8 {
        a = (a + b) >>> 7
        b = (b ^ c) >>> 9
        c = (c + d) >>> 13
        d = (d ^ a) >>> 18
    }
"""

SPEC = f"""spec in_place

type state = u32[4]

fn mix(s: state) {{
    a = s[0]
    b = s[1]
    c = s[2]
    d = s[3]
{ROUND}
    s[0] = a
    s[1] = b
    s[2] = c
    s[3] = d
}}

fn mix_values(a: u32, b: u32, c: u32, d: u32) -> (u32, u32, u32, u32) {{
{ROUND}
    return a, b, c, d
}}

fn run(s: state) {{
    mix(s)
    mix(s)
    a, b, c, d = mix_values(s[0], s[1], s[2], s[3])
    a, b, c, d = mix_values(a, b, c, d)
    s[0] = a
    s[1] = b
    s[2] = c
    s[3] = d
}}
"""


def test_an_in_place_function_is_kept_at_half_the_work_threshold(tmp_path):
    path = tmp_path / "in_place.ae"
    path.write_text(SPEC)
    module = load_module(path, {}, 32)
    work = call_policy.decide(module, 10_000)["mix"]["work"]
    assert work > call_policy.decide(module, 10_000)["mix_values"]["work"]
    between = call_policy.decide(module, work + 1)              # work < threshold <= 2 * work
    assert between["mix"]["keep"] and between["mix"]["sites"] == 2
    assert not between["mix_values"]["keep"]                     # less work, but on values
    above = call_policy.decide(module, 2 * work + 2)             # half the threshold > work
    assert not above["mix"]["keep"]


def test_norx_permutation_is_one_subroutine_on_armv6m():
    module = load_module(ROOT / "specs/schemes/norx32_4_1.ae", {}, 32)
    d = call_policy.decide(module, CALL_MIN_WORK)["F.permute"]
    assert d["work"] < CALL_MIN_WORK <= 2 * d["work"]            # kept by the in-place rule alone
    assert d["keep"] and d["sites"] == 6
