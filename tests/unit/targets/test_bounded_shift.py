"""A run-time shift whose amount is known to be below the width needs no test for a shift by
the width or more (MSP430 and ARMv6-M), and `c - y` with y at most c is computed in the limbs c
needs: OCB3's pad10, `x | (0x80 << 8 * (15 - count))` with count = n - 16 * (n / 16)
(constfold: n & 15). cc430f6137 OCB3 with the accelerator in size mode: 6 178 -> 6 012 B;
stm32f030 Ascon-AEAD128 2 230 -> 2 216 B, GHASH bitwise 572 -> 556."""
import random

import pytest

from aedsl.driver import compile_spec
from aedsl.sim.harness import Buffer

from tests.programs import compiled_program

SPEC = """
spec bounded_shift

// dst[0..16) |= the padding byte 0x80 at byte 15 - len(src) % 16 (little-endian)
fn pad(src: bytes, dst: bytes) {
    n = len(src)
    count = n - 16 * (n / 16)
    x = load_le(dst, 0, 16)
    store_le(dst, 0, x | ((0x80 as u128) << (8 * (15 - count))))
}

// dst[0..16) shifted left by 8 * (15 - len(src) % 16) bits (little-endian): any value, so no
// one-bit rule applies
fn move(src: bytes, dst: bytes) {
    n = len(src)
    count = n - 16 * (n / 16)
    store_le(dst, 0, load_le(dst, 0, 16) << (8 * (15 - count)))
}
"""


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    p = tmp_path_factory.mktemp("bounded") / "bounded_shift.ae"
    p.write_text(SPEC)
    return str(p)


def _body(unit, name):
    return unit.asm.split(f"\n{unit.entries[name].symbol}:\n")[1].split(".size")[0]


def test_no_test_for_a_wide_shift(spec_path):
    unit = compile_spec(spec_path, "msp430f1611", {})
    for name in ("pad", "move"):
        body = _body(unit, name)
        assert "shbig" not in body and "subc" not in body, body
    arm = compile_spec(spec_path, "stm32f030", {})
    assert "_shz" not in _body(arm, "move")


@pytest.mark.parametrize("chip", ["msp430f1611", "stm32f030"])
def test_the_results_match(spec_path, chip, require_tools):
    require_tools(chip)
    unit, prog = compiled_program(spec_path, chip)
    rng = random.Random(5)
    for n in (0, 1, 15, 16, 17, 31, 100, 255):
        x = rng.randrange(1 << 128)
        r = prog.call(unit.entries["pad"].symbol, [Buffer(bytes(n)), n, Buffer(x.to_bytes(16, "little")), 16])
        want = x | (0x80 << (8 * (15 - n % 16)))
        assert int.from_bytes(r.buffers[-1], "little") == want, (chip, n)
        r = prog.call(unit.entries["move"].symbol, [Buffer(bytes(n)), n, Buffer(x.to_bytes(16, "little")), 16])
        want = (x << (8 * (15 - n % 16))) % (1 << 128)
        assert int.from_bytes(r.buffers[-1], "little") == want, (chip, n)
