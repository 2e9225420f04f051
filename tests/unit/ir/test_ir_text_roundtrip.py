"""The IR text form round-trips: parse(print(m)) prints identically, and the parsed module runs
identically in the interpreter (same outputs on random inputs), for every spec in specs/."""
import random
from pathlib import Path

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.engines.interp import InterpAead, InterpBlockCipher
from aedsl.ir.interp import compile_module
from aedsl.ir.nodes import Memory, walk_ops
from aedsl.ir.parser import IRSyntaxError, parse_module
from aedsl.ir.printer import print_module

from tests.paths import ROOT
ALL_SPECS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "specs").glob("*/*.ae"))
# A few knob settings beside the defaults (only for specs that exist and declare the knob).
KNOBS = [
    ("specs/primitives/speck.ae", {"block_bits": "32", "key_bits": "64", "unroll": "full"}),
    ("specs/primitives/aes.ae", {"key_bits": "256"}),
    ("specs/schemes/ccm.ae", {"aes": "accel"}),
    ("specs/schemes/gcm.ae", {"ghash": "ld4"}),
    ("specs/schemes/grain128aeadv2.ae", {"par": "1"}),
    ("specs/primitives/skinny128_384plus.ae", {"rounds": "56", "unroll": "full"}),
]
CASES = [(s, {}) for s in ALL_SPECS] + KNOBS


def _id(case):
    spec, knobs = case
    return Path(spec).stem + "".join(f"-{k}={v}" for k, v in knobs.items())


def _modules(spec, knobs):
    """Every spec in the library must elaborate: one that stops doing so fails here."""
    return load_module(ROOT / spec, knobs)


def test_all_spec_directories_are_covered():
    assert any(s.startswith("specs/drafts/") for s in ALL_SPECS)
    assert "specs/primitives/speck.ae" in ALL_SPECS and "specs/schemes/ccm.ae" in ALL_SPECS


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_print_parse_print_is_identical(case):
    module = _modules(*case)
    text = print_module(module)
    parsed = parse_module(text)
    assert print_module(parsed) == text
    assert parsed.name == module.name and parsed.knobs == module.knobs
    assert parsed.consts == module.consts and parsed.domains == module.domains
    assert [(t.name, t.data) for t in parsed.tables] == [(t.name, t.data) for t in module.tables]


@pytest.mark.parametrize("spec,knobs", [("specs/primitives/speck.ae", {"word_bits": "16"}),
                                        pytest.param("specs/schemes/romulus_n.ae", {"word_bits": "32"},
                                                     marks=pytest.mark.slow)])
def test_round_trip_after_every_pass(spec, knobs):
    module = _modules(spec, {})
    for p in pipeline.passes():
        module = p.run(module, knobs)
        text = print_module(module)
        assert print_module(parse_module(text)) == text, p.NAME


def _random_arg(p, rng):
    if isinstance(p, Memory):
        return [rng.getrandbits(p.elem_width) for _ in range(p.length)]
    return rng.getrandbits(p.width)


def _runtime_loop(f):
    """Whether f has a loop with run-time bounds (a random bound could mean 2^32 iterations)."""
    consts = {id(op.results[0]) for op in walk_ops(f.body) if op.opcode == "const"}
    return any(op.opcode == "for" and not (id(op.args[0]) in consts and id(op.args[1]) in consts)
               for op in walk_ops(f.body))


def _run(program, name, args):
    try:
        return ("ok", program.call(name, args), args)
    except Exception as e:  # both must fail the same way (e.g. an index out of range)
        return ("raised", type(e).__name__)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_parsed_module_interprets_identically(case):
    module = _modules(*case)
    parsed = parse_module(print_module(module))
    a, b = compile_module(module), compile_module(parsed)
    rng = random.Random(_id(case))
    checked = 0
    # Every function without run-time-length buffers, on random scalars and arrays (arrays are
    # compared after the call too: functions write them).
    for f in module.functions:
        if any(isinstance(p, Memory) and p.length is None for p in f.params) or _runtime_loop(f):
            continue
        for _ in range(3):
            args = [_random_arg(p, rng) for p in f.params]
            copy = [list(x) if isinstance(x, list) else x for x in args]
            assert _run(a, f.name, args) == _run(b, f.name, copy), f.name
            checked += 1
    # Functions of byte buffers alone that call nothing (the spec library's tag comparison):
    # random 16-byte buffers, then equal ones.
    for f in module.functions:
        if (not f.params or not all(isinstance(p, Memory) and p.length is None for p in f.params)
                or any(op.opcode == "call" for op in walk_ops(f.body))):
            continue
        for same in (False, True):
            first = [rng.getrandbits(8) for _ in range(16)]
            args = [list(first) if same or k == 0 else [rng.getrandbits(8) for _ in range(16)]
                    for k in range(len(f.params))]
            copy = [list(x) for x in args]
            assert _run(a, f.name, args) == _run(b, f.name, copy), f.name
            checked += 1
    # The entry points through the engines, as `aedsl kat` runs them.
    if all(module.has_function(n) for n in ("key_schedule", "encrypt_block", "decrypt_block")):
        ea, eb = InterpBlockCipher(module), InterpBlockCipher(parsed)
        for _ in range(3):
            key, block = rng.randbytes(ea.key_bits // 8), rng.randbytes(ea.block_bytes)
            assert ea.encrypt_block(key, block) == eb.encrypt_block(key, block)
            assert ea.decrypt_block(key, block) == eb.decrypt_block(key, block)
            checked += 1
    elif module.has_function("encrypt") and module.has_function("decrypt"):
        ea, eb = InterpAead(module), InterpAead(parsed)
        lens = [(k, n, t) for k in range(1, 33) for n in range(1, 17) for t in range(0, 17)
                if ea.supports(k, n, t)]
        assert lens and lens == [x for x in lens if eb.supports(*x)]
        for mlen, alen in [(0, 0), (5, 3), (33, 17)]:
            k, n, t = rng.choice(lens)
            key, nonce = rng.randbytes(k), rng.randbytes(n)
            ad, msg = rng.randbytes(alen), rng.randbytes(mlen)
            out = ea.encrypt(key, nonce, ad, msg, t)
            assert eb.encrypt(key, nonce, ad, msg, t) == out
            ct, tag = out[:mlen], out[mlen:]
            assert eb.decrypt(key, nonce, ad, ct, tag) == ea.decrypt(key, nonce, ad, ct, tag)
            checked += 1
    assert checked > 0


def test_parser_reports_an_undefined_value_with_its_line():
    text = "// module t\n\nfunc @f(%x: u8) -> (u8) {\n  %y: u8 = xor %x, %z\n  return %y\n}\n"
    with pytest.raises(IRSyntaxError, match="line 4: %z is used before it is defined"):
        parse_module(text)


def test_parser_rejects_text_that_is_not_ir():
    with pytest.raises(IRSyntaxError, match="line 4, column 3"):
        parse_module("// module t\n\nfunc @f(%x: u8) -> (u8) {\n  = xor\n}\n")


def test_loop_scoping_keeps_region_values_inside():
    # the loop's index and carried values are visible only inside its body
    text = ("// module t\n\nfunc @f(%n: u16) -> (u16) {\n  %z: u16 = const 0\n"
            "  %r: u16 = for %i: u16 = %z to %n iter(%a: u16 = %z) [unroll=1] {\n"
            "    %b: u16 = add %a, %i\n    yield %b\n  }\n  return %i\n}\n")
    with pytest.raises(IRSyntaxError, match="%i is used before"):
        parse_module(text)
    ok = parse_module(text.replace("return %i", "return %r"))
    assert compile_module(ok).function("f")(5) == (10,)
