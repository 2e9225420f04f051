"""CC430 AES128 accelerator model: FIPS-197 Appendix C.1 through all four AESACTL0.OP modes, BUSY
latency from the chip file, and loud errors on early access.

Timing contract under test (msp430.c header): an access happens at the end of its instruction;
the operation started by the 16th byte completes `latency` cycles after the end of that write.
"""
import pytest

from aedsl import chips
from aedsl.sim.base import SimError
from .msp430_asm_helper import assemble, make_sim

pytestmark = pytest.mark.needs("msp430")

KEY = bytes(range(16))
PT = bytes.fromhex("00112233445566778899aabbccddeeff")
CT = bytes.fromhex("69c4e0d86a7b0430d8cdb78070b4c55a")   # FIPS-197 Appendix C.1
ACC = chips.load("cc430f6137").accelerator

HEADER = """
.set CTL, 0x09C0
.set STAT, 0x09C4
.set KEY, 0x09C6
.set DIN, 0x09C8
.set DOUT, 0x09CA
.macro WRITE_BLOCK src, dst, tag
  mov #\\src, r5
  mov #8, r7
1: mov @r5+, &\\dst
  dec r7
  jnz 1b
\\tag\\()_after:
.endm
.macro POLL tag
\\tag\\()_poll: bit #1, &STAT
  jnz \\tag\\()_poll
\\tag\\()_done:
.endm
.macro READ_OUT dst
  mov #\\dst, r6
  mov #8, r7
1: mov &DOUT, 0(r6)
  incd r6
  dec r7
  jnz 1b
.endm
"""

PROGRAM = HEADER + """
  mov #0, &CTL
  WRITE_BLOCK 0x1C00, KEY, key1
  WRITE_BLOCK 0x1C10, DIN, enc
  POLL enc
  READ_OUT 0x1C30
  mov #1, &CTL
  WRITE_BLOCK 0x1C20, DIN, dec
  POLL dec
  READ_OUT 0x1C40
  mov #2, &CTL
  WRITE_BLOCK 0x1C00, KEY, kg
  POLL kg
  mov #3, &CTL
  WRITE_BLOCK 0x1C20, DIN, dg
  POLL dg
  READ_OUT 0x1C50
end: jmp end
"""


def _setup(src):
    sim = make_sim("cc430f6137")
    code, syms = assemble(src, "msp430x", 0x8000, 0x1C00)
    sim.write(0x8000, code)
    sim.write(0x1C00, KEY + PT + CT)
    sim.set_reg(0, 0x8000)
    sim.set_reg(1, 0x2C00)
    return sim, syms


def test_fips197_all_modes_and_busy_latency():
    sim, syms = _setup(PROGRAM)
    times = {}
    for tag in ("enc", "dec", "kg", "dg"):
        for point in ("after", "done"):
            info = sim.run(10_000, (syms[f"{tag}_{point}"],))
            assert info.reason == "stop_pc"
            times[tag, point] = sim.cycles
    assert sim.run(10_000, (syms["end"],)).reason == "stop_pc"
    assert sim.read(0x1C30, 16) == CT                 # OP=00 encrypt
    assert sim.read(0x1C40, 16) == PT                 # OP=01 decrypt with the same key
    assert sim.read(0x1C50, 16) == PT                 # OP=10 key generation, then OP=11 decrypt
    # The last write ends 3 cycles (DEC 1 + JNZ 2) before the *_after label; the poll loop is
    # BIT #1,&STAT (3, access at its end) + JNZ (2), so the first poll seeing BUSY=0 ends in
    # [t_write + L, t_write + L + 5) and *_done comes 2 cycles later.
    lat = {"enc": ACC["latency_encrypt"], "dec": ACC["latency_decrypt"],
           "kg": ACC["latency_keygen"], "dg": ACC["latency_decrypt_generated_key"]}
    for tag, L in lat.items():
        t_write = times[tag, "after"] - 3
        t_first_idle_poll = times[tag, "done"] - 2
        assert t_write + L <= t_first_idle_poll < t_write + L + 5, tag


def _boundary_program(filler, read):
    return HEADER + f"""
  mov #0, &CTL
  WRITE_BLOCK 0x1C00, KEY, k
  mov #0x1C10, r5
  mov #7, r7
1: mov @r5+, &DIN
  dec r7
  jnz 1b
  mov @r5+, &DIN
  .rept {filler}
  nop
  .endr
  mov &{read}, r9
end: jmp end
"""


@pytest.mark.parametrize("gap", [-1, 0])
def test_busy_clears_exactly_after_latency(gap):
    # Filler NOPs (1 cycle each) + MOV &STAT,r9 (3 cycles, access at its end) = L + gap cycles
    # after the 16th byte's write: BUSY reads 1 one cycle early and 0 exactly at the latency.
    L = ACC["latency_encrypt"]
    sim, syms = _setup(_boundary_program(L - 3 + gap, "STAT"))
    assert sim.run(10_000, (syms["end"],)).reason == "stop_pc"
    assert sim.get_reg(9) & 1 == (1 if gap < 0 else 0)


def test_early_aesadout_read_is_an_error():
    L = ACC["latency_encrypt"]
    sim, syms = _setup(_boundary_program(L - 4, "DOUT"))
    with pytest.raises(SimError, match=r"AESADOUT.*BUSY.*1 cycles early"):
        sim.run(10_000, (syms["end"],))
    # one cycle later the same read is fine and returns the first ciphertext word
    sim, syms = _setup(_boundary_program(L - 3, "DOUT"))
    assert sim.run(10_000, (syms["end"],)).reason == "stop_pc"
    assert sim.get_reg(9) == CT[0] | CT[1] << 8


def test_din_write_while_busy_is_an_error():
    src = HEADER + """
  mov #0, &CTL
  WRITE_BLOCK 0x1C00, KEY, k
  WRITE_BLOCK 0x1C10, DIN, d
  mov #0x1234, &DIN
end: jmp end
"""
    sim, syms = _setup(src)
    with pytest.raises(SimError, match="AESADIN while BUSY"):
        sim.run(10_000, (syms["end"],))
