"""An exported function's C prototype declares each result's out-pointer as the type the code
writes: 2*ceil(w/16) bytes (docs/BACKENDS.md), so a result of at most 16 bits is one `uint16_t`
on both targets, and a wider one the target's word. Checked on the header and, in the simulator,
on the bytes the code writes into an out-buffer filled with a marker: exactly the pointee's
size (the ARM header used to declare `uint32_t *` for a u8 result the code wrote with STRH,
leaving a caller's upper half-word as it was)."""
import re

import pytest

from aedsl import chips
from aedsl.backends.registry import target_for
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf
from aedsl.sim.harness import Buffer, Program

SPEC = """spec results
fn narrow(a: u8, b: u32) -> u8 { return a ^ (b as u8) }
fn half(a: u16) -> u16 { return a + 1 }
fn word(a: u32) -> u32 { return a + 1 }
fn pair(a: u64) -> (u64, u8) { return a + 1, 3 }
"""
C_BYTES = {"uint16_t": 2, "uint32_t": 4}
MARK = 0xA5


@pytest.mark.parametrize("chip", ["msp430f1611", "stm32f030"])
def test_result_pointers_match_the_bytes_written(chip, require_tools, tmp_path):
    require_tools(chip)
    spec = tmp_path / "results.ae"
    spec.write_text(SPEC)
    c = chips.load(chip)
    unit = compile_spec(spec, c, {})
    prog = Program(build_elf(unit, c), c)
    word = target_for(c).word_bits // 8
    for name, e in sorted(unit.entries.items()):
        proto = re.search(rf"void {e.symbol}\((.*)\);", unit.header).group(1)
        outs = re.findall(r"(uint\d+_t) \*out\d+", proto)
        assert len(outs) == len(e.results), (name, proto)
        for ctype, w in zip(outs, e.results):
            assert ctype == ("uint16_t" if w <= 16 else f"uint{8 * word}_t"), (name, w, ctype)
        args = []
        for p in e.params:
            args.append(Buffer(bytes(p.nbytes)) if p.kind not in ("word", "bytes") else 1)
        args += [Buffer(bytes([MARK]) * 16) for _ in e.results]
        r = prog.call(e.symbol, args)
        for ctype, w, out in zip(outs, e.results, r.buffers[-len(e.results):]):
            written = 2 * -(-w // 16)
            assert all(b == MARK for b in out[written:]), (name, w, out.hex())
            # the pointee (or, wider than a word, an array of it) covers what was written
            assert written % C_BYTES[ctype] == 0 and written >= C_BYTES[ctype], (name, w, ctype)
            assert out[:written] != bytes([MARK]) * written, (name, w, out.hex())
