"""Size mode stores a byte block with one copy of its word stores (`Msp430Buffers.
_store_words_once`): through a pointer that is the buffer itself (even address, the count
covering the block) or the scratch area, which the byte loop then drains. Speed mode keeps two
copies (in place, and to the scratch area). cc430f6137 with the accelerator in size mode: CCM
2 984 -> 2 932 B, GCM 4 032 -> 3 966, OCB3 6 012 -> 5 934, CTR 1 276 -> 1 248."""
import random
import re

import pytest

from aedsl.driver import compile_spec
from aedsl.sim.harness import Buffer

from tests.programs import compiled_program

SPEC = """
spec store_once

// dst[off, off + min(16, len(dst) - off)) = x, big-endian
fn put(dst: bytes, off: u32, x: u128) {
    store_be(dst, off, x, len(dst) - off)
}
"""

SIZE = {"opt": "size"}


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    p = tmp_path_factory.mktemp("store_once") / "store_once.ae"
    p.write_text(SPEC)
    return str(p)


def _word_stores(unit) -> int:
    body = unit.asm.split(f"\n{unit.entries['put'].symbol}:\n")[1].split(".size")[0]
    return len(re.findall(r"^\tmov\t[^,]+, -?\d*\((?:r\d+|sp)\)$", body, re.M))


def test_size_mode_has_one_copy_of_the_word_stores(spec_path):
    assert _word_stores(compile_spec(spec_path, "cc430f6137", SIZE)) == 8
    assert _word_stores(compile_spec(spec_path, "cc430f6137", {})) == 16     # in place, scratch


@pytest.mark.parametrize("chip", ["cc430f6137", "msp430f1611"])
def test_every_count_and_alignment(spec_path, chip, require_tools):
    require_tools(chip)
    unit, prog = compiled_program(spec_path, chip, SIZE)
    rng = random.Random(11)
    for off in (0, 1, 2, 3):
        for n in range(off, off + 20):
            x = rng.randrange(1 << 128)
            before = rng.randbytes(n)
            r = prog.call(unit.entries["put"].symbol, [Buffer(before), n, Buffer(off.to_bytes(4, "little")),
                                                          Buffer(x.to_bytes(16, "little"))])
            k = min(16, n - off)
            want = before[:off] + x.to_bytes(16, "big")[:k] + before[off + k:]
            assert r.buffers[0] == want, (chip, off, n)
