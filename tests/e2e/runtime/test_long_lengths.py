"""crypto_aead_encrypt refuses a length that does not fit a machine word, whichever of its 16-bit
words is non-zero (runtime/msp430/aead.c `too_long`): on MSP430 the 64-bit length is four words,
and 2^32 + 5 must not pass as 5. The lengths it writes back (*clen, and *mlen of decryption) are
whole 64-bit values for lengths it takes."""
import pytest

from aedsl import aead_runtime as rt
from aedsl import chips
from aedsl.engines.sim import compiled
from aedsl.sim.harness import Buffer, Program

from tests.paths import ROOT

CALLER = ROOT / "tests" / "e2e" / "runtime" / "c" / "long_lengths.c"


def _program(chip: str) -> Program:
    """CCM's generated code, the runtime and the test callers, linked for `chip`."""
    c = chips.load(chip)
    unit, _ = compiled(str(ROOT / "specs/schemes/ccm.ae"), chip, {})
    return Program(rt.build_with_runtime(unit, c, extra_sources=[CALLER]), c, bench=True)


@pytest.mark.parametrize("chip", ["cc430f6137", "stm32f030"])
def test_lengths_beyond_a_word_are_refused(chip, require_tools):
    require_tools(chip)
    prog = _program(chip)
    mask = (1 << (8 * prog.word_bytes)) - 1
    for which in (1, 2, 3):
        if 16 * which < 8 * prog.word_bytes:
            continue                        # 2^16 + 5 is a valid length on a 32-bit target
        for entry in ("aedsl_test_long_mlen", "aedsl_test_long_adlen"):
            args = [Buffer(64, region="bench"), Buffer(bytes(64), region="bench"),
                    Buffer(bytes(16), region="bench"), Buffer(bytes(16), region="bench"), which]
            r = prog.call(entry, args)
            assert r.return_value & mask == -2 & mask, f"{entry}: 2^{16 * which} + 5 bytes on {chip}"


@pytest.mark.parametrize("chip", ["cc430f6137", "stm32f030"])
def test_the_lengths_written_back_are_whole(chip, require_tools):
    """*clen = mlen + the tag length and *mlen = clen - the tag length, in all 64 bits: the
    runtime adds them as words (`CLEN`), which the word-sized length check makes exact."""
    require_tools(chip)
    prog = _program(chip)
    for n in (0, 1, 16, 37, 300):
        args = [Buffer(n + 16, region="bench"), Buffer(n, region="bench"), Buffer(bytes(7 * i & 255 for i in range(n)), region="bench"),
                n, Buffer(bytes(16), region="bench"), Buffer(bytes(16), region="bench")]
        r = prog.call("aedsl_test_out_lengths", args)
        assert r.return_value == 0, f"{n}-byte message on {chip}: case {r.return_value}"
