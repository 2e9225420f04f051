"""The IR printer, `aedsl ir`, and interpreter semantics of single ops."""
import textwrap

from aedsl.cli import main
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.ir.nodes import walk_ops
from aedsl.ir.printer import print_module

from tests.paths import ROOT


def module_of(tmp_path, source, knobs=None):
    path = tmp_path / "t.ae"
    path.write_text(textwrap.dedent(source).lstrip())
    return load_module(path, knobs or {})


def test_speck_loop_prints_as_structured_ir():
    text = print_module(load_module(ROOT / "specs/primitives/speck.ae",
                                    {"block_bits": "32", "key_bits": "64"}))
    assert "// module speck  knobs: block_bits=32 key_bits=64 unroll=1" in text
    assert ("%x.3: u16, %y.3: u16 = for %i: u16 = %t.8 to %t.9 iter(%x.1: u16 = %x, %y.1: u16 = %y)"
            " [unroll=1] {") in text
    assert "    %t.10: u16 = rotr %x.1 [by=7]\n    %t.11: u16 = add %t.10, %y.1\n" in text
    assert "    yield %x.2, %y.2\n" in text


def test_printing_is_deterministic():
    a = print_module(load_module(ROOT / "specs/schemes/ccm.ae", {}))
    b = print_module(load_module(ROOT / "specs/schemes/ccm.ae", {}))
    assert a == b


def _loops(module, fn):
    return [op.attrs["unroll"] for op in walk_ops(module.function(fn).body) if op.opcode == "for"]


def test_unroll_knob_reaches_the_loop_attribute():
    m = load_module(ROOT / "specs/primitives/aes.ae", {"unroll": "full"})
    assert _loops(m, "encrypt_block") == [0] and _loops(m, "decrypt_block") == [0]
    # the key expansion is unrolled; the equivalent inverse cipher's InvMixColumns of the round
    # keys (run once per key, the largest part of the key schedule) stays two loops
    assert _loops(m, "key_schedule") == [0, 1, 1]
    assert _loops(load_module(ROOT / "specs/primitives/aes.ae", {"unroll": "1"}), "encrypt_block") == [1]


def test_looped_aes_keeps_the_state_in_memory_and_loops_over_columns():
    """unroll=looped (seed 003's 8-BIT-LOOPED): the round loop holds a loop over the four columns
    (SubBytes/ShiftRows/MixColumns) and one over the state words (AddRoundKey), on local arrays."""
    m = load_module(ROOT / "specs/primitives/aes.ae", {"unroll": "looped", "inv_cipher": "plain"})
    for fn in ("encrypt_block", "decrypt_block"):
        f = m.function(fn)
        assert [x.name for x in f.locals] == ["s", "t"] and [x.length for x in f.locals] == [4, 4]
        rounds = [op for op in f.body.ops if op.opcode == "for"]
        assert len(rounds) == 2                     # the rounds, then the final round's columns
        inner = [op for op in rounds[0].regions[0].ops if op.opcode == "for"]
        assert len(inner) == 2 and all(op.attrs["unroll"] == 1 for op in inner)


def test_accelerator_binding_gives_async_ops():
    m = load_module(ROOT / "specs/schemes/ccm.ae", {"aes": "accel"})
    f = m.function("E.encrypt_block")
    assert [op.opcode for op in f.body.ops] == ["const", "load", "accel_start", "accel_result"]
    assert f.body.ops[2].attrs == {"op": "aes128.encrypt"} and f.body.ops[2].results[0].width == 0
    soft = load_module(ROOT / "specs/schemes/ccm.ae", {})
    assert not any(op.opcode.startswith("accel") for f in soft.functions for op in walk_ops(f.body))


def test_ir_command(capsys):
    assert main(["ir", str(ROOT / "specs/primitives/speck.ae"), "-k", "block_bits=64", "-k", "key_bits=128"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("// module speck  knobs: block_bits=64 key_bits=128 unroll=1\n")
    assert "func @encrypt_block(@rk: u32[27], %b: u64) -> (u64) {" in out
    assert main(["ir", str(ROOT / "specs/primitives/speck.ae"), "--after", "nonexistent"]) == 2


def test_op_semantics(tmp_path):
    m = module_of(tmp_path, """
        spec t
        perm p: u8 = {1, 2, 3, 4, 5, 6, 7, 0}
        fn f(x: u8, s: u8, buf: bytes) -> (u8, u8, u8, u8, u32, u32, u8, u16, u8) {
            a = x >>> 3
            b = x << s
            c = p(x)
            d = (x - 1) * 3
            e = load_be(buf, 1, 4, 2)
            g = load_le(buf, 1, 4, 2)
            h = if x > 0x80 then x / 3 else x % 0
            k = cat(x[3:0], x[7:4], x)
            return a, b, c, d, e, g, h, k, x[7] as u8
        }
        """)
    run = compile_module(m).function("f")
    buf = [0x11, 0x22, 0x33, 0x44, 0x55]
    assert run(0x81, 3, buf) == (0x30, 0x08, 0x03, 0x80, 0x22330000, 0x3322, 0x2B, 0x1881, 1)
    assert run(0x12, 9, buf)[1] == 0          # a shift by >= the width gives 0
    assert run(0x12, 9, buf)[6] == 0x12       # x % 0 = x


def test_runtime_if_and_loop_carry(tmp_path):
    m = module_of(tmp_path, """
        spec t
        fn f(n: u32, buf: bytes) -> (u32, u32) {
            total = 0 as u32
            odd = 0 as u32
            for i in 0..n {
                total = total + (buf[i] as u32)
                if buf[i][0] == 1 {
                    odd = odd + 1
                }
            }
            return total, odd
        }
        """)
    assert compile_module(m).function("f")(4, [1, 2, 3, 5, 100]) == (11, 3)
    assert compile_module(m).function("f")(0, []) == (0, 0)
