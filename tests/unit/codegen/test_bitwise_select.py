"""Selection of bitwise code (bitwise.ae) on MSP430 and ARMv6-M: `~a & b` as one and-not
(MSP430 `bic`, Thumb `bics`; select_base.inverted), a rotation made from an earlier rotation of
the same value where the rest is cheaper (select/shifts.rotl_multi), shifts whose bits cross no
limb made limb by limb (select_base.known_zero) and a shift made from a smaller one (MSP430
shr16), and the generated code agreeing with a Python model, including rotations on both sides
of a loop."""
import random
import re
from pathlib import Path

import pytest

from aedsl.driver import compile_spec

from tests.programs import call_entry, compiled_program

SPEC = Path(__file__).with_name("bitwise.ae")
CHIPS = ("msp430f1611", "stm32f030")
M64 = (1 << 64) - 1


def rotr(x: int, r: int) -> int:
    return ((x >> r) | (x << (64 - r))) & M64


def model(name: str, *args: int):
    if name == "sigma":
        x = args[0] ^ args[1]
        return (x ^ rotr(x, 7) ^ rotr(x, 41),)
    if name == "andnot":
        a, b, c = args
        return ((~a & b) ^ a) & M64, c & ~b & M64
    if name == "double_cells":
        (x,) = args
        u = (x & 0x88888888) >> 2
        return ((((x & 0x77777777) << 1) ^ u ^ (u >> 1)) & 0xFFFFFFFF,)
    x, n = args
    y = rotr(x, 7)
    for _ in range(n):
        x = rotr(x, 7) ^ rotr(x, 41) ^ (~x & y & M64)
    return (x ^ rotr(x, 41) ^ rotr(x, 7) ^ y,)


def body(asm: str, symbol: str) -> list[str]:
    """The instruction mnemonics of one function of the assembly."""
    text = asm.split(f"\n{symbol}:\n", 1)[1].split(".size", 1)[0]
    return [m.group(1) for m in re.finditer(r"^\t([a-z][a-z.0-9]*)\b", text, re.M)]


def test_and_not_is_one_instruction():
    msp = compile_spec(SPEC, "msp430f1611", {})
    mn = body(msp.asm, msp.entries["andnot"].symbol)
    assert mn.count("bic") == 8 and "inv" not in mn
    arm = compile_spec(SPEC, "stm32f030", {})
    mn = body(arm.asm, arm.entries["andnot"].symbol)
    assert mn.count("bics") == 4 and "mvns" not in mn


def test_a_rotation_starts_from_an_earlier_one():
    """x>>>7 is a byte merge (swpb on each of the four words) and a 1-bit step; x>>>41 is then
    a 2-bit step of it (34 = 32 + 2), not a second byte merge."""
    msp = compile_spec(SPEC, "msp430f1611", {})
    assert body(msp.asm, msp.entries["sigma"].symbol).count("swpb") == 4


def test_shifts_that_cross_no_limb_are_made_limb_by_limb():
    """(x & 0x88888888) >> 2 and (x & 0x77777777) << 1 move no bit across a 16-bit limb (the
    bits that would cross are known zero): each limb shifts alone, no carry chain (rlc, a
    second rrc); u >> 1 is u moved one more bit (rra), not x shifted again."""
    msp = compile_spec(SPEC, "msp430f1611", {})
    mn = body(msp.asm, msp.entries["double_cells"].symbol)
    assert "rlc" not in mn and mn.count("rla") == 2 and mn.count("rrc") == 2 and mn.count("rra") == 4


@pytest.mark.parametrize("chip", CHIPS)
def test_generated_code_agrees_with_the_model(chip, require_tools):
    require_tools(chip)
    unit, prog = compiled_program(SPEC, chip)
    rnd = random.Random(3)
    for name in ("sigma", "andnot", "looped", "double_cells"):
        e = unit.entries[name]
        for _ in range(4):
            args = [rnd.getrandbits(p.width) for p in e.params]
            if name == "looped":
                args[1] = rnd.randrange(0, 5)
            got = tuple(call_entry(prog, e, args))
            assert got == model(name, *args), (chip, name, args)
