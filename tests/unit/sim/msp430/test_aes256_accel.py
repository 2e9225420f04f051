"""The AES256 module model (MSP430FR5969; TI SLAU367 "AES256 Accelerator"): FIPS-197 Appendix C.1,
C.2 and C.3 through AESACTL0.OP = 00, 01 and 10-then-11 at each key length AESKLx, with BUSY
lasting each key length's latency from the chip file; AESAXDIN XORing into the state; a new key
length clearing the key; and loud errors for what the module (or the model) does not do."""
import pytest
from Crypto.Cipher import AES

from aedsl import chips
from aedsl.sim.base import SimError
from .msp430_asm_helper import make_sim, load

pytestmark = pytest.mark.needs("msp430")

CHIP = "msp430fr5969"
ACC = chips.load(CHIP).accelerator
PT = bytes.fromhex("00112233445566778899aabbccddeeff")
FIPS197_C = {128: "69c4e0d86a7b0430d8cdb78070b4c55a",      # Appendix C.1, C.2, C.3
             192: "dda97ca4864cdfe06eaf70a0ec0d7191",
             256: "8ea2b7ca516745bfeafc49904b496089"}
KL = {128: 0, 192: 4, 256: 8}                               # AESACTL0.AESKLx << 2
DATA = 0x1C00                                               # key (32) | PT | CT | X | outputs

HEADER = """
.set CTL, 0x09C0
.set STAT, 0x09C4
.set KEY, 0x09C6
.set DIN, 0x09C8
.set DOUT, 0x09CA
.set XDIN, 0x09CC
.set XIN, 0x09CE
.macro WRITE src, dst, words, tag
  mov #\\src, r5
  mov #\\words, r7
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


def _run(body: str, bits: int, extra: bytes = b"", stops=()):
    sim = make_sim(CHIP)
    syms = load(sim, HEADER + body + "\nend: jmp end\n")
    key = bytes(range(bits // 8)).ljust(32, b"\0")
    sim.write(DATA, key + PT + bytes.fromhex(FIPS197_C[bits]) + extra)
    sim.set_reg(1, chips.load(CHIP).ram.end)
    times = {}
    for s in stops:
        assert sim.run(20_000, (syms[s],)).reason == "stop_pc"
        times[s] = sim.cycles
    assert sim.run(20_000, (syms["end"],)).reason == "stop_pc"
    return sim, times


@pytest.mark.parametrize("bits", (128, 192, 256))
def test_fips197_every_key_length_and_its_latencies(bits):
    kw, kl = bits // 16, KL[bits]
    body = f"""
  mov #{kl}, &CTL
  WRITE {DATA}, KEY, {kw}, key1
  WRITE {DATA + 32}, DIN, 8, enc
  POLL enc
  READ_OUT {DATA + 96}
  mov #{kl | 1}, &CTL
  WRITE {DATA + 48}, DIN, 8, dec
  POLL dec
  READ_OUT {DATA + 112}
  mov #{kl | 2}, &CTL
  WRITE {DATA}, KEY, {kw}, kg
  POLL kg
  mov #{kl | 3}, &CTL
  WRITE {DATA + 48}, DIN, 8, dg
  POLL dg
  READ_OUT {DATA + 128}
"""
    stops = [f"{t}_{p}" for t in ("enc", "dec", "kg", "dg") for p in ("after", "done")]
    sim, times = _run(body, bits, stops=stops)
    assert sim.read(DATA + 96, 16).hex() == FIPS197_C[bits]      # OP=00 encrypt
    assert sim.read(DATA + 112, 16) == PT                         # OP=01 decrypt with the cipher key
    assert sim.read(DATA + 128, 16) == PT                         # OP=10 last round key, OP=11 decrypt
    sfx = "" if bits == 128 else f"_{bits}"
    lat = {"enc": ACC["latency_encrypt" + sfx], "dec": ACC["latency_decrypt" + sfx],
           "kg": ACC["latency_keygen" + sfx], "dg": ACC["latency_decrypt_generated_key" + sfx]}
    for tag, L in lat.items():           # as in test_aes_accel: the poll sees BUSY=0 within 5 cycles
        t_write = times[f"{tag}_after"] - 3
        assert t_write + L <= times[f"{tag}_done"] - 2 < t_write + L + 5, tag


@pytest.mark.parametrize("bits", (128, 256))
def test_aesaxdin_xors_into_the_state(bits):
    """After E(PT) = CT, writing X to AESAXDIN encrypts CT ^ X (SLAU367: the data written to
    AESAXDIN is XORed with the current state, and the 16th byte starts the operation)."""
    x = bytes(range(0xA0, 0xB0))
    body = f"""
  mov #{KL[bits]}, &CTL
  WRITE {DATA}, KEY, {bits // 16}, key1
  WRITE {DATA + 32}, DIN, 8, enc
  POLL enc
  WRITE {DATA + 64}, XDIN, 8, chain
  POLL chain
  READ_OUT {DATA + 96}
"""
    sim, _ = _run(body, bits, extra=x)
    key = bytes(range(bits // 8))
    ct = bytes.fromhex(FIPS197_C[bits])
    want = AES.new(key, AES.MODE_ECB).encrypt(bytes(a ^ b for a, b in zip(ct, x)))
    assert sim.read(DATA + 96, 16) == want


def test_new_key_length_clears_the_key():
    body = f"""
  mov #{KL[256]}, &CTL
  WRITE {DATA}, KEY, 16, key1
  mov #{KL[128]}, &CTL
  WRITE {DATA + 32}, DIN, 8, enc
"""
    with pytest.raises(SimError, match="AESADIN written before all 16 AESAKEY bytes"):
        _run(body, 256)


def test_what_the_module_or_the_model_does_not_do():
    with pytest.raises(SimError, match="AESAXIN"):                # modelled as a fault
        _run(f"  mov #0, &CTL\n  WRITE {DATA}, KEY, 8, k\n  mov #0, &XIN\n", 128)
    with pytest.raises(SimError, match="key length 11"):
        _run("  mov #12, &CTL\n", 128)
    sim = make_sim("cc430f6137")                                  # the AES128 module has neither
    syms = load(sim, HEADER + "  mov #4, &CTL\nend: jmp end\n")
    with pytest.raises(SimError, match="AES-192 is not supported"):
        sim.run(1000, (syms["end"],))
