"""The seed papers' published figures (../shared/seeds/), written down once: every number of a
paper that we set beside ours. `tools/benchmarks.py` (docs/BENCHMARKS.md), `aedsl.demo`
(`./dev main`) and `aedsl explore` (its plot) all read them from here.

A `Figure` is one published measurement together with the workload it was taken on, in the terms
of `aedsl.bench.Record` (operation, message and AD length, key setup), so `Figure.matches(record)`
tells whether one of our records measured the same thing. Derived values (seed 001's cycles/byte =
cycles / 256) are computed, not typed.

Sources:
- seed 000 (Gouvea & Lopez, CC430F6137): Table 2 (cycles/byte at 16 B, IPI, 4 KB, encryption and
  decryption, with the AES accelerator and with software AES; Hummingbird-2 without AES), Table 3 (ROM and RAM including the
  stack, with the accelerator; software AES adds 2904 ROM bytes to CCM and GCM, 5860 to OCB3; CTR,
  which also needs E_K only, is counted like CCM), Section 5's delay-slot speed-ups.
- seed 001 (Cifra on the STM32F030): cycles, stack and code size for a 256-byte message with
  16 bytes of AD, key setup included.
- seed 003 (Buhrow et al., MSP430F5528): the block-encryption cycles/byte its text states (the
  other variants' figures, and every ROM figure, are in charts only), and its variant names.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Figure:
    seed: str                       # "000" | "001" | "003"
    where: str                      # the table or section of the paper
    label: str                      # the paper's name for what it measured
    spec: str | None                # our spec (file stem) computing the same algorithm; None: none yet
    chip: str                       # the chip it was measured on (an aedsl/chips/ name)
    params: dict                    # knobs that make our spec the same algorithm (key size, accelerator)
    like: dict = field(default_factory=dict)   # knobs of our closest implementation strategy (not matched)
    op: str = "encrypt"             # as aedsl.bench.Record.op
    msg_len: int | str = 0          # bytes or "ipi"; block ciphers: one block
    ad_len: int = 0
    key_setup: str = ""             # "excluded" | "included" | "" (block ciphers)
    cycles: float | None = None
    cycles_per_byte: float | None = None
    rom_bytes: int | None = None
    ram_bytes: int | None = None    # static RAM + stack (seed 000 Table 3 reports them together)
    stack_bytes: int | None = None

    @property
    def knobs(self) -> dict:
        """The knobs of our variant to set beside it (the algorithm's and the closest strategy's)."""
        return {**self.params, **self.like}

    def matches(self, rec, same_strategy: bool = False) -> bool:
        """Whether `rec` (an aedsl.bench.Record, or anything with its fields) measured the same
        algorithm on the same chip with the same workload (and, with `same_strategy`, with the
        implementation strategy closest to the paper's: the `like` knobs too)."""
        knobs = self.knobs if same_strategy else self.params
        return (self.spec == rec.spec and self.chip == rec.chip and self.op == rec.op
                and str(self.msg_len) == str(rec.msg_len) and self.ad_len == rec.ad_len
                and self.key_setup == rec.key_setup
                and all(str(rec.knobs.get(k)) == str(v) for k, v in knobs.items()))


# --- seed 000 -----------------------------------------------------------------------------------

SEED000_CHIP = "cc430f6137"
SEED000_SIZES = (16, "ipi", 4096)
# Table 2, cycles/byte at SEED000_SIZES: scheme -> op -> (with the accelerator, with software AES)
_T2 = {
    "ctr": {"encrypt": ((26, 23, 23), (195, 194, 193)), "decrypt": ((26, 23, 23), (195, 194, 193))},
    "ccm": {"encrypt": ((116, 38, 36), (778, 381, 375)), "decrypt": ((129, 47, 46), (781, 380, 375))},
    "gcm": {"encrypt": ((426, 183, 180), (696, 320, 314)), "decrypt": ((429, 183, 180), (699, 319, 314))},
    "ocb3": {"encrypt": ((144, 39, 38), (469, 209, 205)), "decrypt": ((217, 48, 46), (510, 245, 242))},
}
# Table 3 with the accelerator: scheme -> (ROM, RAM including the stack); software AES adds ROM
_T3 = {"ctr": (130, 100), "ccm": (1094, 258), "gcm": (4680, 886), "ocb3": (1724, 538)}
_SOFT_AES_ROM = {"ctr": 2904, "ccm": 2904, "gcm": 2904, "ocb3": 5860}
SEED000_SCHEMES = tuple(_T2)
# Table 2 / Table 3 for the schemes without AES: spec -> op -> cycles/byte at SEED000_SIZES, and
# spec -> (ROM, RAM including the stack). (SGCM and MASHA: no verified spec yet.)
_T2_NO_AES = {"hummingbird2": {"encrypt": (569, 200, 196), "decrypt": (669, 297, 292)}}
_T3_NO_AES = {"hummingbird2": (3674, 196)}
_NO_AES_LABEL = {"hummingbird2": "HB2"}
SEED000_NO_AES = tuple(_T2_NO_AES)
# Section 5: encryption speed-up of delay-slot scheduling with the accelerator, per cent
SEED000_DELAY_SLOT = {"ccm": 24, "gcm": 12, "ocb3": 12}


def _seed000() -> list[Figure]:
    out = []
    for scheme, ops in _T2.items():
        for i, aes in enumerate(("accel", "soft")):
            rom, ram = _T3[scheme]
            rom += _SOFT_AES_ROM[scheme] if aes == "soft" else 0
            for op, rows in ops.items():
                for size, cpb in zip(SEED000_SIZES, rows[i]):
                    out.append(Figure("000", "Table 2, Table 3", f"{scheme.upper()} ({aes} AES)", scheme,
                                      SEED000_CHIP, {"aes": aes}, op=op, msg_len=size, key_setup="excluded",
                                      cycles_per_byte=cpb, rom_bytes=rom, ram_bytes=ram))
    for scheme, ops in _T2_NO_AES.items():
        rom, ram = _T3_NO_AES[scheme]
        for op, row in ops.items():
            for size, cpb in zip(SEED000_SIZES, row):
                out.append(Figure("000", "Table 2, Table 3", _NO_AES_LABEL[scheme], scheme, SEED000_CHIP, {},
                                  op=op, msg_len=size, key_setup="excluded", cycles_per_byte=cpb,
                                  rom_bytes=rom, ram_bytes=ram))
    return out


# --- seed 001 -----------------------------------------------------------------------------------

SEED001_CHIP = "stm32f030"
SEED001_MSG, SEED001_AD = 256, 16
# label -> (our spec, the algorithm's knobs, (cycles, stack bytes, code bytes))
_CIFRA = {
    "AES-128-CCM": ("ccm", {"key_bits": 128}, (200048, 680, 2316)),
    "AES-128-EAX": ("eax", {"key_bits": 128}, (210087, 800, 2604)),
    "AES-128-GCM": ("gcm", {"key_bits": 128}, (327313, 700, 2644)),
    "AES-256-CCM": ("ccm", {"key_bits": 256}, (271787, 744, 2400)),
    "AES-256-EAX": ("eax", {"key_bits": 256}, (285730, 864, 2684)),
    "AES-256-GCM": ("gcm", {"key_bits": 256}, (362200, 764, 2728)),
    "ChaCha20-Poly1305": ("chacha20_poly1305", {}, (163980, 756, 2728)),
    "NORX32-4-1": ("norx32_4_1", {}, (25115, 336, 1808)),
}


def _seed001() -> list[Figure]:
    return [Figure("001", "256-byte table", label, spec, SEED001_CHIP, params, op="encrypt", msg_len=SEED001_MSG,
                   ad_len=SEED001_AD, key_setup="included", cycles=c, cycles_per_byte=c / SEED001_MSG,
                   stack_bytes=s, rom_bytes=z)
            for label, (spec, params, (c, s, z)) in _CIFRA.items()]


# --- seed 003 -----------------------------------------------------------------------------------

SEED003_CHIP = "msp430f5528"
# the paper's AES variant names by our (aes_tables, unroll); None: any unroll
SEED003_AES_NAMES = {("sbox", "looped"): "8-BIT-LOOPED", ("sbox", "1"): "8-BIT-UNROLL",
                     ("sbox2", None): "8-BIT-2SBOX", ("t16x4", None): "16-BIT-4T",
                     ("t32x4", None): "32-BIT-4T", ("t32x1", None): "32-BIT-1T"}
# the block-encryption cycles/byte the text states: label -> (spec, algorithm, closest strategy, cpb)
_BUHROW = {
    "AES-128 16-BIT-4T-ASM (record)": ("aes", {"key_bits": 128}, {"aes_tables": "t16x4"}, 132),
    "AES-128 16-BIT-4T in C": ("aes", {"key_bits": 128}, {"aes_tables": "t16x4"}, 152),
    "AES-128 8-BIT-2SBOX": ("aes", {"key_bits": 128}, {"aes_tables": "sbox2"}, 194),
    "SPECK-128/128 ASM (record)": ("speck", {"block_bits": 128, "key_bits": 128}, {}, 103),
}


def _seed003() -> list[Figure]:
    return [Figure("003", "Section 5", label, spec, SEED003_CHIP, params, like, op="encrypt_block",
                   msg_len=int(params.get("block_bits", 128)) // 8, cycles_per_byte=cpb)
            for label, (spec, params, like, cpb) in _BUHROW.items()]


SEED000, SEED001, SEED003 = _seed000(), _seed001(), _seed003()
FIGURES: tuple[Figure, ...] = tuple(SEED000 + SEED001 + SEED003)


# ---- seed 002 and the other references of issue 10 (tables as the benchmark doc renders them) ----

# seed 002 (Franck & Großschädl, MSP430F1611) Table 2: the assembly primitives alone. label, spec,
# our function, its scalar arguments, paper cycles, paper size (code + tables, bytes), bytes of
# plaintext one call processes ("Encr. bytes"; Grain: POGen + AUGen together per byte), and what
# the figure measures (seed 002 §4 text below Table 2).
SEED002_T2 = [
    ("Spongent-π[160]", "spongent_pi160.ae", "permute", {}, 40495, 822, 20, "one permutation (80 rounds)"),
    ("Grain-128A POGen", "grain128aeadv2.ae", "clock16", {}, 584, 916, 1, "16 pre-output bits (8 keystream + 8 MAC bits)"),
    ("Grain-128A AUGen", "grain128aeadv2.ae", "authenticate", {}, 287, 144, 1, "authentication of 8 message bits"),
    ("Ascon-p6", "ascon_p.ae", "permute", {"rounds": 6}, 3520, 710, 8, "the permutation with 6 rounds (IsapEnc's)"),
    ("PHOTON256", "photon256.ae", "permute", {}, 17034, 1612, 16, "one permutation (12 rounds)"),
    ("SKINNY-128-384+", "skinny128_384plus.ae", "encrypt_block", {}, 5490, 782, 16,
     "one 16-byte block, the round tweakeys given as input"),
]
# The variant a Table 2 row measures where it is not the spec's default: SKINNY's loop unrolled by
# two rounds (at one round a loop iteration ends with the rows' rotation as register copies;
# within 1.5 x the paper's 782 B); Grain's AUGen as a loop of eight turns, the paper's form (the
# straight-line default is 14 cycles faster and 274 B larger); PHOTON256's round as one look-up
# per cell in a SubCells + MixColumnSerial table, the paper's form (the default, eight Serial
# steps, is the faster one on the Cortex-M0); Ascon-p6 in size mode, its state words spilled to
# the caller's state itself (write-back homes: 28 cycles more than speed mode, 90 B less).
SEED002_T2_KNOBS = {"SKINNY-128-384+": {"unroll": "2"}, "Grain-128A AUGen": {"unroll": "1"},
                    "PHOTON256": {"mix": "table"}, "Ascon-p6": {"opt": "size"}}
# The AEAD430 repository's README gives 16 597 cycles for a SKINNY-128-384+ function that also
# takes the tweakey inputs (schedule + block); ours beside it: key_schedule + encrypt_block.
AEAD430_SKINNY_WITH_TWEAKEY = 16597
# seed 002 Table 3: cycles of authenticated encryption with key setup, per (AD, message) bytes.
SEED002_CELLS = ((16, 0), (128, 0), (1024, 0), (0, 16), (0, 128), (0, 1024), (16, 16), (128, 128), (1024, 1024))
SEED002_T3 = {
    "Elephant (Dumbo)": ("elephant_dumbo.ae", (166795, 417230, 2254717, 167203, 668652, 4430480, 208684, 958893, 6545252)),
    "Grain-128AEADv2": ("grain128aeadv2.ae", (36044, 142203, 984501, 36140, 142007, 988727, 51165, 263164, 1952182)),
    "ISAP-A-128A": ("isap_a_128a.ae", (157330, 269556, 1167124, 277555, 448833, 1818817, 293583, 577058, 2844610)),
    "PHOTON-Beetle": ("photon_beetle_aead128.ae", (35494, 157254, 1131094, 36212, 162830, 1175534, 53676, 302025, 2288569)),
    "Romulus-N": ("romulus_n.ae", (25793, 70171, 381894, 26064, 71706, 436601, 26127, 116118, 792736)),
}
# The variant a Table 3 row measures where it is not the spec's default (as SEED002_T2_KNOBS)
SEED002_T3_KNOBS = {"PHOTON-Beetle": {"mix": "table"}}
SEED001_NORX_CYCLES = next(f.cycles for f in SEED001 if f.label == "NORX32-4-1")
# Issue 10's other references, key setup included: label, spec, chip, AD bytes, message bytes,
# reference cycles (and code bytes), where the figure is from, the goal for ours (and,
# where a row measures a variant other than the spec's default, its knobs: LWC_REFERENCE_KNOBS).
LWC_REFERENCES = [
    ("Ascon-128 v1.2", "ascon128.ae", "msp430f1611", 1024, 1024, 941924, None,
     "Alsahli et al. 2022 (hand-written Ascon-p; cited in seed 002 §4)", "≤ reference"),
    ("Ascon-128 v1.2", "ascon128.ae", "stm32f030", 16, 256, 41829, 2726,
     "ascon-c `armv6m`, arm-none-eabi-gcc -O2, run in our stm32f030 simulator (issue 10)", "≤ reference, ≤ its size"),
    ("NORX32-4-1", "norx32_4_1.ae", "stm32f030", 16, 256, SEED001_NORX_CYCLES, None,
     "Cifra on STM32F030 (seed 001)", "≤ half"),
    ("NORX32-4-1, F^l unrolled", "norx32_4_1.ae", "stm32f030", 16, 256, SEED001_NORX_CYCLES, None,
     "Cifra on STM32F030 (seed 001)", "≤ half"),
    ("Romulus-N", "romulus_n.ae", "stm32f030", 0, 256, 139783, None,
     "NIST LWC Cortex-M0+ benchmark, `benchmarks/mkrzero-aead-summary.csv`", "≤ half"),
    ("Grain-128AEADv2", "grain128aeadv2.ae", "stm32f030", 0, 256, 185319, None,
     "NIST LWC Cortex-M0+ benchmark, `benchmarks/mkrzero-aead-summary.csv`", "≤ half"),
]

LWC_REFERENCE_KNOBS = {"NORX32-4-1, F^l unrolled": {"unroll": "full"}}

# NIST LWC benchmark (usnistgov/Lightweight-Cryptography-Benchmarking, benchmarks/mkrzero-aead-summary.csv):
# the Arduino MKR Zero (SAMD21G18, Cortex-M0+ at 48 MHz), `_reference_` aes-gcm, cycles of enc(AD:msg)
NIST_LWC_MKRZERO = [("AES-128-GCM", "gcm.ae", {"key_bits": 128}, "mbedtls o3", 0, 256, 87249)]


def seed003_aes_name(tables: str, unroll: str | None = None) -> str | None:
    """Seed 003's name for our AES variant (`aes_tables`, `unroll`), None if it has none."""
    return SEED003_AES_NAMES.get((tables, unroll), SEED003_AES_NAMES.get((tables, None)))


def find(seed: str | None = None, spec: str | None = None, chip: str | None = None, op: str | None = None,
         msg_len=None, **params) -> list[Figure]:
    """The figures with these properties (each argument given must agree; `params` knobs too)."""
    out = []
    for f in FIGURES:
        if ((seed is None or f.seed == seed) and (spec is None or f.spec == spec) and (chip is None or f.chip == chip)
                and (op is None or f.op == op) and (msg_len is None or str(f.msg_len) == str(msg_len))
                and all(str(f.knobs.get(k)) == str(v) for k, v in params.items())):
            out.append(f)
    return out


def matching(records, same_strategy: bool = False) -> list[tuple[Figure, object]]:
    """(figure, record) for every figure that one of `records` matches (the first such record)."""
    out = []
    for f in FIGURES:
        rec = next((r for r in records if f.matches(r, same_strategy)), None)
        if rec is not None:
            out.append((f, rec))
    return out
