"""A power of two, or a low mask 2^q - 1 shifted right, by a run-time amount on ARMv6-M
(select/shifts.py `_shift_bit_var`): one register shift of 1 per limb (a mask: then minus 1
with a borrow), no loop or branch where the amount's bound keeps every limb's shift count in
LSLS's range (`value_bound`: a remainder by 2^k, the minimum `select(x < 8, x, 8)`), the amount
clamped otherwise. Checked against the interpreter for every amount around the limbs' edges and
for large ones."""
import pytest

from aedsl import chips
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.harness import Buffer, Program

SPEC = """spec padbits
// Ascon's padding after the last c bytes of a 64-bit block: c is a remainder by 8
fn pad_rem(n: u32) -> u64 {
    c = n - 8 * (n / 8)
    return ((0x80 as u64) << 56) >> (8 * c)
}
// c = min(n, 8): bounded through the select
fn pad_min(n: u32) -> u64 {
    c = if n < 8 then n else 8
    return ((0x80 as u64) << 56) >> (8 * c)
}
// no bound known: the amount is clamped first
fn pad_any(n: u32) -> u64 {
    return ((0x80 as u64) << 56) >> n
}
// a little-endian padding bit, 128 bits wide
fn bit_left(n: u32) -> u128 {
    c = n - 16 * (n / 16)
    return (1 as u128) << (8 * c)
}
// the bytes past the first c of a 64-bit block (Ascon's first_bytes): a low mask shifted
fn past_rem(n: u32) -> u64 {
    c = n - 8 * (n / 8)
    return ~(0 as u64) >> (8 * c)
}
// a 40-bit low mask by any amount: clamped to 40
fn mask_any(n: u32) -> u64 {
    return ((1 as u64) << 40) - 1 >> n
}
// a 40-bit low mask by up to 56 bits: past its width, so clamped too
fn mask_rem(n: u32) -> u64 {
    c = n - 8 * (n / 8)
    return ((1 as u64) << 40) - 1 >> (8 * c)
}
"""

AMOUNTS = [*range(0, 70), 95, 96, 127, 128, 200, 255, 256, 257, 1000, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF]


def _body(asm: str, fn: str) -> str:
    return asm.split(f"\n{fn}:\n")[1].split(".size")[0]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    path = tmp_path_factory.mktemp("pad") / "padbits.ae"
    path.write_text(SPEC)
    c = chips.load("stm32f030")
    return path, c, compile_spec(path, c, {})


def test_no_loop_and_no_branch_when_bounded(compiled, require_tools):
    require_tools("stm32f030")
    _, _, unit = compiled
    for fn in ("pad_rem", "pad_min", "bit_left", "past_rem"):
        body = _body(unit.asm, f"padbits_{fn}")
        assert not any(f"\tb{c}\t" in body for c in ("", "cs", "cc", "eq", "ne", "ls", "hi")), fn
        assert body.count("lsls\tr") >= 2, fn           # the limbs' register shifts
    for fn in ("pad_any", "mask_any", "mask_rem"):
        assert "bcc" in _body(unit.asm, f"padbits_{fn}"), fn      # the clamp
        assert "_shz" not in _body(unit.asm, f"padbits_{fn}"), fn     # no shift loop


def test_matches_the_interpreter(compiled, require_tools):
    require_tools("stm32f030")
    path, c, unit = compiled
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(path, {}))
    for name, e in sorted(unit.entries.items()):
        nbytes = (e.results[0] + 7) // 8
        for n in AMOUNTS:
            got = prog.call(e.symbol, [n, Buffer(nbytes)]).buffers[-1]
            assert int.from_bytes(got, "little") == ref.call(name, [n])[0], (name, n)
