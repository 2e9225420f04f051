"""runtime/msp430/: crypto_aead_encrypt/decrypt over generated CCM (software AES), checked against
pycryptodome; a wrong tag returns non-zero, zeroes the output, and takes exactly the same path
(dynamic check: cycles, instruction count and instruction mix; static check: no conditional jump
in the runtime after the generated decrypt call depends on the verdict)."""
import re

import pytest
from Crypto.Cipher import AES

from aedsl import aead_runtime as rt
from aedsl import chips, toolchain
from aedsl.driver import compile_spec
from aedsl.engines.sim import compiled
from aedsl.sim.harness import Buffer, Program

from tests.paths import ROOT


CCM = str(ROOT / "specs/schemes/ccm.ae")
CHIP = "cc430f6137"


def B(data):
    return Buffer(data, region="bench")


@pytest.fixture(scope="module")
def ccm():
    chip = chips.load(CHIP)
    unit, _ = compiled(CCM, CHIP, {})
    return unit, Program(rt.build_with_runtime(unit, chip), chip, bench=True), rt.api_params(unit)


def reference(key, nonce, ad, msg, tag_len):
    c = AES.new(key, AES.MODE_CCM, nonce=nonce, mac_len=tag_len)
    c.update(ad)
    ct, tag = c.encrypt_and_digest(msg)
    return ct + tag


def encrypt(prog, api, key, nonce, ad, msg):
    r = prog.call("aedsl_bench_encrypt", [B(len(msg) + api.tag_bytes), B(msg), len(msg), B(ad), len(ad), B(nonce), B(key)])
    return r


def decrypt(prog, api, key, nonce, ad, ct, stats=False):
    n = len(ct) - api.tag_bytes
    return prog.call("aedsl_bench_decrypt", [B(bytes([0x5A]) * max(n, 1)), B(ct), len(ct), B(ad), len(ad), B(nonce), B(key)],
                     stats=stats)


@pytest.mark.needs("msp430")
def test_api_lengths_follow_the_spec_domains(ccm):
    _, _, api = ccm
    assert (api.key_bytes, api.npub_bytes, api.tag_bytes) == (16, 12, 16)


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("mlen,adlen", [(0, 0), (5, 0), (40, 7), (33, 20)])
def test_encrypt_and_decrypt_match_pycryptodome(ccm, mlen, adlen):
    _, prog, api = ccm
    key, nonce = bytes(range(16)), bytes(range(100, 112))
    msg, ad = bytes((7 * i + 1) & 0xFF for i in range(mlen)), bytes((3 * i) & 0xFF for i in range(adlen))
    r = encrypt(prog, api, key, nonce, ad, msg)
    assert r.return_value == 0
    assert r.buffers[0] == reference(key, nonce, ad, msg, 16)
    d = decrypt(prog, api, key, nonce, ad, r.buffers[0])
    assert d.return_value == 0
    assert d.buffers[0][:mlen] == msg


@pytest.mark.needs("msp430")
def test_wrong_tag_zeroes_output_in_the_same_time(ccm):
    _, prog, api = ccm
    key, nonce, ad = bytes(16), bytes(range(12)), b"header"
    msg = bytes(range(48))
    good = reference(key, nonce, ad, msg, 16)
    runs = {}
    for name, flip in (("good", None), ("tag", len(good) - 1), ("ct", 3)):
        ct = bytearray(good)
        if flip is not None:
            ct[flip] ^= 0x80
        runs[name] = decrypt(prog, api, key, nonce, ad, bytes(ct), stats=True)
    assert runs["good"].return_value == 0 and runs["good"].buffers[0] == msg
    for bad in ("tag", "ct"):
        r = runs[bad]
        assert r.return_value != 0
        assert r.buffers[0] == bytes(len(msg)), "plaintext of a forgery must be wiped"
        assert (r.cycles, r.instructions) == (runs["good"].cycles, runs["good"].instructions)
        assert r.stats.mnemonics == runs["good"].stats.mnemonics


def _round_key_10_words():
    """AES-128 round key 10 of the key 00 01 .. 0f (FIPS-197 Appendix C.1, round[10].k_sch)."""
    k = bytes.fromhex("13111d7fe3944a17f307a78b4d2b30c5")
    return [k[i:i + 4] for i in range(0, 16, 4)]


@pytest.mark.needs("msp430")
@pytest.mark.parametrize("op", ["encrypt", "decrypt"])
def test_expanded_key_is_wiped_from_the_stack(ccm, op):
    """crypto_aead_* keep the key-setup state (round keys) on the stack: it is zeroed before they
    return, so no round-key word is left anywhere in RAM (searched in both byte orders)."""
    _, prog, api = ccm
    chip = chips.load(CHIP)
    key, nonce = bytes(range(16)), bytes(range(12))
    ct = reference(key, nonce, b"", bytes(20), 16)
    r = encrypt(prog, api, key, nonce, b"", bytes(20)) if op == "encrypt" else decrypt(prog, api, key, nonce, b"", ct)
    assert r.return_value == 0
    ram = prog.read(chip.ram.origin, chip.ram.length)
    left = [w.hex() for w in _round_key_10_words() if w in ram or w[::-1] in ram]
    assert left == [], f"round-key words left in RAM after crypto_aead_{op}: {left}"


@pytest.mark.needs("msp430")
def test_short_ciphertext_is_rejected(ccm):
    _, prog, api = ccm
    r = prog.call("aedsl_bench_decrypt", [B(1), B(bytes(8)), 8, B(b""), 0, B(bytes(12)), B(bytes(16))])
    assert r.return_value != 0


FLAG_NEUTRAL = {"mov", "mov.b", "push", "pop", "call", "bic", "bis", "swpb", "br", "jmp", "nop", "ret",
                "pushm", "popm", "mova", "calla", "reta", "clr"}


def _operands(text):
    return [o.strip() for o in text.split(";")[0].split(",") if o.strip()]


def verdict_dependent_branches(disasm: str, generated_call: str) -> list[str]:
    """Taint analysis over the straight-line code after the call to the generated decrypt (the
    first `call` whose line contains `generated_call`, e.g. its target "#0x998a"; "" = the first
    call): every value loaded from the stack there (where the verdict word lives) is tainted, and
    taint flows from sources to destinations. Returns the conditional jumps whose flags come from
    a tainted operand (conservative: a spilled loop counter would be flagged too)."""
    lines = []
    for ln in disasm.splitlines():
        m = re.match(r"\s*[0-9a-f]+:\s+(?:[0-9a-f]{2} )+\s*(\S+)\s*(.*)$", ln)
        if m:
            lines.append((m.group(1), _operands(m.group(2)), ln))
    start = next(i for i, (mn, _, ln) in enumerate(lines) if mn == "call" and generated_call in ln) + 1
    tainted, last_flags, bad = set(), None, []
    for mn, ops, _ in lines[start:]:
        if mn.startswith("j") and mn != "jmp":
            if last_flags and any(o in tainted or re.search(r"\(r1\)", o) for o in last_flags):
                bad.append(f"{mn} after {last_flags}")
            continue
        srcs = ops[:-1] if len(ops) == 2 else ops
        dst = ops[-1] if ops else None
        src_tainted = any(o in tainted or re.search(r"\(r1\)", o) or o.lstrip("@").rstrip("+") in tainted for o in srcs)
        if dst is not None and re.fullmatch(r"r\d+", dst):
            if mn == "clr" or (mn.startswith("mov") and not src_tainted):
                tainted.discard(dst)
            elif src_tainted:
                tainted.add(dst)
        if mn not in FLAG_NEUTRAL:
            last_flags = ops
    return bad


@pytest.mark.needs("msp430")
def test_decrypt_has_no_branch_on_the_verdict(ccm):
    unit, prog, _ = ccm
    dis = toolchain.disassemble(prog.elf.path, prog.chip)
    # with the key-setup stage (the default for CCM) the runtime's decrypt_with handles the verdict
    caller, gen = ("aedsl_aead_decrypt_with", "decrypt_with") if rt.has_key_setup(unit) else \
        ("crypto_aead_decrypt", "decrypt")
    body = re.search(rf"<{caller}>:\n(.*?)(?:\n\n|\Z)", dis, re.S).group(1)
    target = re.search(rf"^0*([0-9a-f]+) <{unit.entries[gen].symbol}>:", dis, re.M).group(1)
    assert f"#0x{target}" in body
    assert verdict_dependent_branches(body, f"#0x{target}") == []
    # the analysis does catch a branch on a value read from the stack after the call
    fake = body + "\n    f100:\t1c 41 16 00 \tmov\t22(r1),\tr12\t;\n    f104:\t0c 93       \tcmp\t#0,\tr12\t;\n" \
                  "    f106:\t02 24       \tjz\t$+6      \t;"
    assert verdict_dependent_branches(fake, "") != []


@pytest.mark.needs("msp430")
def test_key_setup_stage_through_the_runtime():
    """The key-setup stage is exported by default (and only it: the runtime composes
    crypto_aead_* as key_setup + encrypt_with), and the bench entry points can exclude the key
    expansion."""
    chip = chips.load(CHIP)
    unit = compile_spec(CCM, chip, {})
    assert rt.has_key_setup(unit) and sorted(unit.entries) == sorted(rt.KEY_SETUP_ENTRIES)
    assert unit.kind == "aead" and rt.is_aead(unit)
    api = rt.api_params(unit)
    assert api.key_setup and api.state_bytes == 176         # 11 AES-128 round keys
    prog = Program(rt.build_with_runtime(unit, chip), chip, bench=True)
    key, nonce, ad, msg = bytes(range(1, 17)), bytes(12), b"ad", bytes(range(20))
    want = reference(key, nonce, ad, msg, 16)
    full = encrypt(prog, api, key, nonce, ad, msg)
    assert full.buffers[0] == want
    st = prog.call("aedsl_bench_key_setup", [B(api.state_bytes), B(key)])
    assert st.cycles > 0
    w = prog.call("aedsl_bench_encrypt_with", [B(st.buffers[0]), B(len(want)), B(msg), len(msg), B(ad), len(ad), B(nonce)])
    assert w.return_value == 0 and w.buffers[1] == want
    assert w.cycles < full.cycles - st.cycles // 2          # the expansion is really left out
    d = prog.call("aedsl_bench_decrypt_with", [B(st.buffers[0]), B(len(msg)), B(want), len(want), B(ad), len(ad), B(nonce)])
    assert d.return_value == 0 and d.buffers[1] == msg
