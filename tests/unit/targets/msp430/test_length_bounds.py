"""Buffer lengths are bounded by the address space (SelectorBase.MAX_BUFFER_BYTES: MSP430 buffers
lie in 0x0200..0xFFFF), so the u32 length arithmetic of a block loop fits one 16-bit word:
`(n + 15) / 16` is an `add` and a shift of one word (select/arith.py `op_add` narrows a sum of
bounded values to its limbs), and the counted loop's index is one register (select_base
`index_limbs`). Checked on the code of length_bounds.ae and on its results in the simulators
against Python, for lengths around the block size."""
import random
from pathlib import Path

import pytest

from aedsl.backends.msp430.select.selector import Msp430Selector
from aedsl.driver import compile_spec
from aedsl.sim.harness import Buffer

from tests.programs import compiled_program

SPEC = Path(__file__).with_name("length_bounds.ae")
LENGTHS = (0, 1, 15, 16, 17, 31, 32, 33, 100, 255, 256, 300)


def model(data: bytes) -> int:
    acc = 0
    for off in range(0, len(data), 16):
        acc ^= int.from_bytes(data[off:off + 16].ljust(16, b"\0"), "little")
    return acc


def _body(asm: str, symbol: str) -> str:
    return asm.split(f"\n{symbol}:\n", 1)[1].split(".size", 1)[0]


def test_the_bound_is_the_address_space_above_the_peripherals():
    assert Msp430Selector.MAX_BUFFER_BYTES == 0x10000 - 0x0200
    # a length plus 15 (a block's rounding) still fits one word
    assert Msp430Selector.MAX_BUFFER_BYTES + 15 < 1 << 16


@pytest.mark.parametrize("chip", ["msp430f1611", "cc430f6137"])
def test_length_arithmetic_and_the_index_are_one_word(chip):
    unit = compile_spec(SPEC, chip, {})
    fold = _body(unit.asm, unit.entries["fold"].symbol)
    # no carry into a second word anywhere: the bound, the index, 16 * i and n - 16 * i
    assert "addc" not in fold and "subc" not in fold, fold
    assert "add\t#15, " in fold


@pytest.mark.parametrize("chip", ["msp430f1611", "cc430f6137", "stm32f030"])
def test_generated_code_agrees_with_the_model(chip, require_tools):
    """Whole blocks take the word path, a partial last block the byte path (zero-padded)."""
    require_tools(chip)
    unit, prog = compiled_program(SPEC, chip)
    rnd = random.Random(11)
    sym = unit.entries["fold"].symbol
    for n in LENGTHS:
        data = bytes(rnd.getrandbits(8) for _ in range(n))
        r = prog.call(sym, [Buffer(data), n, Buffer(16)])
        assert int.from_bytes(r.buffers[-1], "little") == model(data), (chip, n)
