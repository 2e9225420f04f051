"""Properties of the generated code itself: determinism, the cost model's sizes agree with the
assembler's, spilling is correct, and cycle budgets of default variants (regression guards)."""
import random
import re

import pytest

from aedsl import chips
from aedsl.backends.msp430.select.selector import Msp430Selector
from aedsl.driver import compile_spec
from aedsl.engines.sim import build_elf, sim_engine
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.sim.elf import read_elf
from aedsl.sim.harness import Buffer, Program

from tests.programs import call_entry

CHIPS = ("cc430f6137", "msp430f1611")

SPECK64 = {"block_bits": 64, "key_bits": 128}


@pytest.mark.parametrize("chip", CHIPS)
def test_compile_is_deterministic(chip, monkeypatch):
    monkeypatch.setenv("AEDSL_UNIT_CACHE", "off")      # two real compiles, not one read back
    a = compile_spec("specs/primitives/speck.ae", chip, SPECK64)
    b = compile_spec("specs/primitives/speck.ae", chip, SPECK64)
    assert a.asm == b.asm and a.header == b.header
    assert "speck.ae:" in a.asm          # spec-line comments


def test_msp430x_forms_only_on_cpux():
    x = compile_spec("specs/primitives/speck.ae", "cc430f6137", SPECK64).asm
    plain = compile_spec("specs/primitives/speck.ae", "msp430f1611", SPECK64).asm
    assert "pushm" in x and "rlam" not in plain and "rrum" not in plain and "pushm" not in plain


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("chip", CHIPS)
def test_cost_model_sizes_match_assembler(chip):
    c = chips.load(chip)
    unit = compile_spec("specs/primitives/speck.ae", c, SPECK64)
    elf = read_elf(build_elf(unit, c), c)
    sizes = elf.symbol_sizes()
    for e in unit.entries.values():
        assert sizes[e.symbol]["rom"] == e.code_bytes, e.symbol


SPILL_SPEC = """spec spill
fn many(a: u16, b: u16) -> u16 {
    x0 = a + b
    x1 = a ^ (b <<< 3)
    x2 = x0 + x1
    x3 = x2 ^ (x0 >>> 5)
    x4 = x3 + a
    x5 = x4 ^ x1
    x6 = x5 + x2
    x7 = x6 ^ x3
    x8 = x7 + x4
    x9 = x8 ^ x5
    x10 = x9 + x6
    x11 = x10 ^ x7
    x12 = x11 + x8
    x13 = x12 ^ x9
    x14 = x13 + x10
    return x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7 ^ x8 ^ x9 ^ x10 ^ x11 ^ x12 ^ x13 ^ x14 ^ (x0 + x14) ^ (x1 + x13) ^ (x2 + x12)
}
"""


@pytest.mark.needs("msp430")
def test_register_pressure_spills_correctly(tmp_path):
    spec = tmp_path / "spill.ae"
    spec.write_text(SPILL_SPEC)
    c = chips.load("cc430f6137")
    unit = compile_spec(spec, c)
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(spec, {}))
    rnd = random.Random(7)
    for _ in range(20):
        a, b = rnd.getrandbits(16), rnd.getrandbits(16)
        r = prog.call(unit.entries["many"].symbol, [a, b, Buffer(2)])
        assert int.from_bytes(r.buffers[-1], "little") == ref.call("many", [a, b])[0]


# Cycle budgets on cc430f6137 (encrypt one block, key schedule done), measured after the
# instruction-selection work (swpb/xor.b byte moves, walking pointers with @Rn+, down-counting
# loops, T-tables); lower is fine, higher is a regression. 3 % headroom: the IR passes in front
# of the backend are still changing. Seed 003: SPECK-128/128 103 cpb (1648), AES-128 132 cpb (2112).
BUDGETS = [
    ("specs/primitives/speck.ae", {"block_bits": 32, "key_bits": 64}, 329),
    ("specs/primitives/speck.ae", SPECK64, 803),
    ("specs/primitives/speck.ae", {"block_bits": 128, "key_bits": 128}, 1636),
    # S-box only (the block cipher's default on MSP430): 7572 before xtime's masked reduction
    # was selected as rla.b + sxt/swpb (now 4402)
    ("specs/primitives/aes.ae", {"key_bits": 128}, 4402),
    ("specs/primitives/aes.ae", {"key_bits": 128, "aes_tables": "t16x4"}, 2024),
]


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("spec,knobs,budget", BUDGETS)
def test_cycle_budget(spec, knobs, budget):
    eng = sim_engine(spec, knobs, "cc430f6137")
    key = bytes(range(eng.key_bits // 8))
    eng.encrypt_block(key, bytes(eng.block_bytes))
    assert 0 < eng.last.cycles <= budget * 1.03


OPS_SPEC = """spec ops
perm pp: u32 = {3, 17, 0, 31, 8, 9, 10, 1, 2, 4, 5, 6, 7, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30}
perm unshuffle: u64 = [if j == 63 then 63 else j * 16 % 63 for j in 0..64]
perm stride7: u48 = [j * 7 % 48 for j in 0..48]
perm rev16: u16 = [15 - j for j in 0..16]
fn br(a: u16) -> u16 {
    return rev16(a)
}
fn dm(x: u32, y: u48) -> (u32, u48) {
    t = (x >> 3) & 0x11111111
    return ((x << 1) & 0xeeeeeeee) ^ t ^ (t << 1), ((y >> 7) ^ (y << 9)) & 0x010101010101
}
fn fw(x: u64) -> (u16, u16) {
    return x[18:3], x[44:29]
}
fn wn(x: u64, y: u64) -> (u16, u16, u16, u16, u16) {
    a = x[27:12]
    b = x[28:13] ^ x[26:11]
    return a, b, x[30:15], step(y) ^ step(x), step(x)
}
fn step(v: u64) -> u16 {
    return v[21:6] ^ v[22:7]
}
fn dr(x: u64, z: u32) -> (u64, u32) {
    return ((x >> 7) ^ (x >> 5)) & 0x0101010101010101, ((z << 7) ^ (z << 1)) & 0x80808080
}
fn dq(x: u64) -> u64 {
    return ((x ^ (x << 2)) >> 7) & 0x0101010101010101
}
fn bp(a: u64) -> u64 {
    return unshuffle(a)
}
fn bq(b: u48) -> u48 {
    return stride7(b)
}
fn rot(x: u64, y: u24) -> (u64, u24) {
    return (x <<< 3) ^ (x >>> 8) ^ (x <<< 29) ^ (x << 5) ^ (x >> 17), (y <<< 5) + (y >>> 11)
}
fn cmp(a: u32, b: u32, c: u16) -> (u1, u1, u1, u32, u16, u16, u16) {
    return a == b, a < b, a >= b, if a < b then a else b, c * 13, c / 7, c % 5
}
fn mix(a: u48, b: u48, s: u16) -> (u48, u48, u32, u8) {
    return a + b, a - b, pp(a[31:0]), (s as u8) * (b[7:0])
}
fn shv(a: u64, s: u8) -> (u64, u64) {
    return a << (s as u64), a >> (s as u64)
}
fn shw(a: u128, b: u48, s: u16) -> (u128, u128, u48, u48) {
    return a << (s as u128), a >> (s as u128), b << (s as u48), b >> (s as u48)
}
"""


def _mnemonics(spec, entry: str) -> list[str]:
    """The mnemonics of function `entry` of `spec` compiled alone for msp430f1611, in order."""
    unit = compile_spec(spec, chips.load("msp430f1611"), entry=entry)
    return [ln.split()[0] for ln in unit.asm.split(f"\nops_{entry}:")[1].split(".size")[0].splitlines()
            if ln.startswith("\t") and ln.strip() and not ln.lstrip().startswith(";")]


@pytest.mark.needs("msp430")
def test_unstructured_wide_bit_permutation_is_a_carry_chain(tmp_path):
    """A bit permutation with no cell structure (every bit its own shift-and-mask group) is
    lowered as an rra/rrc carry chain, two instructions a bit: 64 rra and 64 rrc for the 64-bit
    unshuffle of `bp` (its results, and those of `bq`, whichever lowering the cost estimate
    picks, are checked against the interpreter below)."""
    spec = tmp_path / "ops.ae"
    spec.write_text(OPS_SPEC)
    unit = compile_spec(spec, chips.load("msp430f1611"), entry="bp")
    body = unit.asm.split("\nops_bp:")[1]
    assert len(re.findall(r"\brrc\b", body)) == 64
    assert len(re.findall(r"\brra\b", body)) == 64


@pytest.mark.needs("msp430")
def test_bit_reversal_is_a_carry_chain_entering_at_the_bottom(tmp_path):
    """A reversal makes the destination bits arrive in decreasing order when the source bits
    leave lowest first: the chain takes them out with rra and puts them in with rlc (addc r, r),
    one register and no shift into place: 16 rra and 16 rlc for the 16-bit `rev16`."""
    spec = tmp_path / "ops.ae"
    spec.write_text(OPS_SPEC)
    unit = compile_spec(spec, chips.load("msp430f1611"), entry="br")
    body = unit.asm.split("\nops_br:")[1]
    assert len(re.findall(r"\brlc\b", body)) == 16
    assert len(re.findall(r"\brra\b", body)) == 16
    assert not re.search(r"\brrc\b", body)


@pytest.mark.needs("msp430")
def test_a_shift_under_a_mask_keeps_only_the_limb_halves_it_needs(tmp_path, monkeypatch):
    """(x >> 3) & 0x11111111 needs no bit that crosses from the upper limb, (y >> 7) ^ (y << 9)
    under 0x0101.. none either: the shifts are selected again without those halves (the
    results of `dm` are checked against the interpreter below)."""
    spec = tmp_path / "ops.ae"
    spec.write_text(OPS_SPEC)

    def size():
        unit = compile_spec(spec, chips.load("msp430f1611"), entry="dm")
        return len([ln for ln in unit.asm.split("\nops_dm:")[1].split(".size")[0].splitlines()
                    if ln.startswith("\t") and not ln.lstrip().startswith(";")])

    on = size()
    monkeypatch.setattr(Msp430Selector, "DEMANDED_BITS", False)
    assert on < size() - 8


@pytest.mark.needs("msp430")
def test_a_shift_under_a_mask_that_needs_none_of_the_bits_it_shifts_in_is_a_rotation(tmp_path, monkeypatch):
    """Under 0x0101.. no bit of x >> 7 that the shift fills is needed: the rotation swpb; rla;
    adc (3 cycles) replaces clrc; rrc and six rra (8) in every limb of `dr`; x >> 5 keeps its
    shift (a rotation by 5 costs 7 cycles against 6), z << 7 under 0x8080 becomes swpb; bit;
    rrc (against seven rla). The results are checked against the interpreter below."""
    spec = tmp_path / "ops.ae"
    spec.write_text(OPS_SPEC)

    on = _mnemonics(spec, "dr")
    assert on.count("adc") == 4 and on.count("swpb") == 4 + 2
    monkeypatch.setattr(Msp430Selector, "rotation_is_cheaper", lambda self, k: False)
    off = _mnemonics(spec, "dr")
    assert "adc" not in off and len(on) <= len(off) - 4 * 4 - 2 * 3


@pytest.mark.needs("msp430")
def test_a_mask_reaches_through_a_shift_to_the_operand_it_shifts(tmp_path, monkeypatch):
    """In ((x ^ (x << 2)) >> 7) & 0x0101.. the mask needs bits 7 and 15 of each limb of
    x ^ (x << 2), none of the two bits x << 2 brings in from the limb below: the inner shift is
    selected again limb by limb (rla twice each, no rlc carry chain tying the four limbs'
    registers together). The results of `dq` are checked against the interpreter below."""
    spec = tmp_path / "ops.ae"
    spec.write_text(OPS_SPEC)

    on = _mnemonics(spec, "dq")
    assert "rlc" not in on and on.count("rla") == 4 * 3     # x << 2, then rla; adc for >> 7
    monkeypatch.setattr(Msp430Selector, "DEMANDED_BITS", False)
    assert "rlc" in _mnemonics(spec, "dq")


@pytest.mark.needs("msp430")
def test_a_16_bit_window_of_two_words_is_a_carry_chain(tmp_path):
    """x[18:3] takes bits from two words: copies of both, three `rra hi; rrc lo` steps (8
    cycles against two rotations by 3, two masks and a merge); x[44:29] three `rla lo; rlc hi`
    steps, the window ending in the high word's copy (the results against the interpreter
    below)."""
    spec = tmp_path / "ops.ae"
    spec.write_text(OPS_SPEC)
    ops = _mnemonics(spec, "fw")
    assert ops.count("rra") == ops.count("rrc") == 3 and ops.count("rla") == ops.count("rlc") == 3
    assert "and" not in ops and "bis" not in ops and "adc" not in ops


@pytest.mark.needs("msp430")
def test_a_window_next_to_one_already_made_is_moved_bit_by_bit(tmp_path):
    """x[28:13] and x[26:11] are x[27:12] moved by one bit (bit; rrc / bit; rlc on its copy;
    x[30:15] is cheaper afresh, a one-bit chain left); in `step`, inlined for y and for x, each
    second window is its first moved, for the right value (the results against the
    interpreter below)."""
    spec = tmp_path / "ops.ae"
    spec.write_text(OPS_SPEC)
    ops = _mnemonics(spec, "wn")
    assert ops.count("bit") == 4 and ops.count("rlc") == 4 + 1 + 1    # 4 + 1: the chains left


@pytest.mark.needs("msp430")
def test_a_shift_under_a_mask_leaves_the_bits_it_fills_as_they_come(tmp_path, monkeypatch):
    """(x >> 3) & 0x11111111 in `dm`: the mask clears whatever the shift brings in at the top,
    so each limb is three rra (no clrc; rrc first): one instruction fewer a limb (the results
    against the interpreter below)."""
    spec = tmp_path / "ops.ae"
    spec.write_text(OPS_SPEC)

    on = _mnemonics(spec, "dm")
    assert "clrc" not in on
    monkeypatch.setattr(Msp430Selector, "loose_shift_limb", lambda self, limb, k: None)
    off = _mnemonics(spec, "dm")
    assert off.count("clrc") == 2 and len(on) == len(off) - 2


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("chip", CHIPS)
def test_ops_against_interpreter(tmp_path, chip):
    spec = tmp_path / "ops.ae"
    spec.write_text(OPS_SPEC)
    c = chips.load(chip)
    unit = compile_spec(spec, c)
    prog = Program(build_elf(unit, c), c)
    ref = compile_module(load_module(spec, {}))
    rnd = random.Random(11)
    for name, e in unit.entries.items():
        for t in range(12):
            vals = [rnd.getrandbits(p.width) for p in e.params]
            if name == "cmp" and t % 3 == 0:
                vals[1] = vals[0]
            if name == "shv":
                vals[1] = rnd.choice([0, 1, 7, 16, 33, 63, 64, 200])
            if name == "shw":            # whole-limb steps, then bits; and amounts >= the width
                vals[2] = [0, 15, 16, 17, 31, 32, 47, 48, 49, 96, 120, 127, 128, 300][t % 12 + (t >= 10) * 2]
            got = call_entry(prog, e, vals)
            assert got == list(ref.call(name, vals)), (name, vals)
