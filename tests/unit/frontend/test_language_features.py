"""Tables and perms by formula, compile-time functions, simultaneous assignment, the typed loop
index, min/max and the lazy if-then-else: what each elaborates to, what it computes in the
interpreter, and the located error for each misuse (exit code 2 from the CLI)."""
import re

import pytest

from aedsl.cli import main
from aedsl.frontend.diagnostics import SpecError
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module
from aedsl.ir.nodes import walk_ops
from aedsl.ir.printer import print_module


def load(tmp_path, text: str, name: str = "t"):
    path = tmp_path / f"{name}.ae"
    path.write_text(text)
    return load_module(str(path), {})


def error(tmp_path, text: str) -> SpecError:
    with pytest.raises(SpecError) as e:
        load(tmp_path, text)
    return e.value


def opcodes(module, fname: str) -> list[str]:
    return [op.opcode for op in walk_ops(module.function(fname).body)]


# -- tables and perms by formula ---------------------------------------------------------------

def test_perm_by_formula_is_the_listed_perm(tmp_path):
    player = [j * 40 % 159 for j in range(159)] + [159]
    listed = load(tmp_path, "const n = 160\nperm p: u160 = {" + ", ".join(map(str, player)) + "}\n"
                  "fn f(x: u160) -> u160 {\n    return p(x)\n}\n", "listed")
    formula = load(tmp_path, "const n = 160\n"
                   "perm p: u160 = [if j == n - 1 then n - 1 else j * n / 4 % (n - 1) for j in 0..n]\n"
                   "fn f(x: u160) -> u160 {\n    return p(x)\n}\n", "formula")
    assert print_module(formula).replace("formula", "listed") == print_module(listed)
    (op,) = [op for op in walk_ops(formula.function("f").body) if op.opcode == "perm"]
    assert list(op.attrs["table"]) == player


def test_table_by_recurrence_and_compile_time_function(tmp_path):
    m = load(tmp_path, "const lfsr6(x) = (x << 1 & 0x3f) | (x >> 5 ^ x >> 4 ^ 1) & 1\n"
             "table rc: u8[8] = [lfsr6(if i == 0 then 0 else rc[i - 1]) for i in 0..8]\n"
             "const k = lfsr6(0x3e)\n"
             "fn f(i: u8) -> u8 {\n    return rc[i & 7] ^ lfsr6(5)\n}\n")
    assert m.tables[0].data == (0x01, 0x03, 0x07, 0x0F, 0x1F, 0x3E, 0x3D, 0x3B)
    assert m.consts["k"] == 0x3D
    assert compile_module(m).call("f", [9])[0] == 0x03 ^ 0x0B


@pytest.mark.parametrize("text,message", [
    ("table t: u8[4] = [t[i] for i in 0..4]", "t[0] is not computed yet"),
    ("table t: u8[4] = [i * 100 for i in 0..4]", "element 3 (i = 3) is 0x12c, which does not fit in u8"),
    ("table t: u8[4] = [i for i in 0..5]", "table t declares 4 entries but computes 5"),
    ("perm p: u8 = [j / 2 for j in 0..8]", "perm p: the formula gives position(s) 0, 1, 2, 3 more than once"),
    ("perm p: u8 = [j + 1 for j in 0..8]", "perm p: the formula gives position(s) 8 outside 0..7"),
    ("const f(x) = x + 1\nconst y = f(1, 2)", "f takes 1 argument(s), not 2"),
    ("const f(x, x) = x", "parameter x is listed twice"),
    ("const f(x) = f(x)\nconst y = f(1)", "compile-time calls nest too deeply"),
])
def test_formula_errors(tmp_path, text, message):
    e = error(tmp_path, text + "\nfn g(x: u8) -> u8 {\n    return x\n}\n")
    assert message in e.message and e.line >= 1 and e.column >= 1


def test_compile_time_function_needs_compile_time_arguments(tmp_path):
    e = error(tmp_path, "const f(x) = x + 1\nfn g(x: u8) -> u8 {\n    return f(x)\n}\n")
    assert "f is a compile-time function" in e.message and (e.line, e.column) == (3, 12)


# -- simultaneous assignment -------------------------------------------------------------------

def test_simultaneous_assignment_sees_the_old_values(tmp_path):
    m = load(tmp_path, "fn fib(n: u8) -> (u16, u16) {\n    a = 0 as u16\n    b = 1 as u16\n"
             "    for i in 0..n {\n        a, b = b, a + b\n    }\n    x, y = b, a\n    x, y = y, x\n"
             "    return x, y\n}\n"
             "fn st(s: u8[4]) {\n    i = 1 as u16\n    s[i], i = 7, 2\n    s[i] = 9\n}\n")
    prog = compile_module(m)
    assert prog.call("fib", [10]) == (55, 89)
    s = [0, 0, 0, 0]
    prog.call("st", [s])
    assert s == [0, 7, 9, 0]


@pytest.mark.parametrize("body,message", [
    ("a, b = x, x, x", "2 target(s) but 3 values on the right"),
    ("a, b = x, h(x)", "a call returning 2 values in a list of values"),
    ("a = 1 as u8\n    a, b = x as u16, x", "width mismatch"),
])
def test_simultaneous_assignment_errors(tmp_path, body, message):
    e = error(tmp_path, "fn h(x: u8) -> (u8, u8) {\n    return x, x\n}\n"
              f"fn g(x: u8) -> u8 {{\n    {body}\n    return x\n}}\n")
    assert message in e.message and e.line >= 5


# -- typed loop index, min/max -----------------------------------------------------------------

def test_typed_loop_index(tmp_path):
    m = load(tmp_path, "fn f(out: bytes) {\n    for i: u32 in 0..4 {\n        store_le(out, 2 * i, i as u16)\n"
             "    }\n}\n")
    (loop,) = [op for op in walk_ops(m.function("f").body) if op.opcode == "for"]
    assert loop.regions[0].params[0].width == 32
    out = [0xFF] * 8
    compile_module(m).call("f", [out])
    assert out == [0, 0, 1, 0, 2, 0, 3, 0]
    e = error(tmp_path, "type t = u8[4]\nfn f(x: u8) -> u8 {\n    for i: t in 0..4 {\n    }\n    return x\n}\n")
    assert "a loop index is a word" in e.message and e.line == 3


def test_min_max(tmp_path):
    m = load(tmp_path, "const k = max(3, 9, 4) - min(8, 2)\n"
             "fn f(a: u16, b: u16) -> (u16, u16, u16) {\n    return min(a, b), max(a, 7, b), min(a, k)\n}\n")
    assert m.consts["k"] == 7
    prog = compile_module(m)
    for a, b in ((1, 2), (9, 3), (5, 5), (0xFFFF, 0), (4, 6)):
        assert prog.call("f", [a, b]) == (min(a, b), max(a, 7, b), min(a, 7))
    assert "select" in opcodes(m, "f") and "if" not in opcodes(m, "f")
    e = error(tmp_path, "fn f(a: u16, b: u8) -> u16 {\n    return min(a, b)\n}\n")
    assert "width mismatch in min" in e.message and (e.line, e.column) == (2, 19)
    e = error(tmp_path, "fn f(a: u16) -> u16 {\n    return max(a)\n}\n")
    assert "max takes two or more arguments" in e.message


# -- lazy if-then-else -------------------------------------------------------------------------

BLOCKS = """fn block_of(nonce: bytes, ad: bytes, i: u32) -> u64 {
    return if i == 0 then load_le(nonce, 0, 4) as u64 | (load_le(ad, 0, 4, len(ad)) as u64) << 32
           else load_le(ad, 8 * i - 4, 8, len(ad) + 4 - 8 * i)
}
fn absorb(nonce: bytes, ad: bytes, out: bytes) {
    for i: u32 in 0..(len(ad) + 11) / 8 {
        store_le(out, 8 * i, block_of(nonce, ad, i))
    }
}
"""


def test_faulting_arm_is_a_branch_and_is_not_evaluated(tmp_path):
    m = load(tmp_path, BLOCKS)
    ops = opcodes(m, "block_of")
    assert "if" in ops and "select" not in ops
    out = [0] * 8
    compile_module(m).call("absorb", [[1, 2, 3, 4], [5, 6], out])   # only block 0: i = 0
    assert out == [1, 2, 3, 4, 5, 6, 0, 0]


def test_pure_arms_stay_a_select(tmp_path):
    m = load(tmp_path, "table t: u8[16] = [i for i in 0..16]\n"
             "fn f(a: u8, b: u32, s: u8[4]) -> (u8, u32, u8) {\n"
             "    x = if a < 3 then t[a & 15] else s[a % 4]\n"
             "    y = if a == 0 then b else b / (a as u32)\n"
             "    z = if a < 5 then t[a >> 4] else 0\n"
             "    return x, y, z\n}\n")
    ops = opcodes(m, "f")
    assert ops.count("select") == 3 and "if" not in ops


PAD = ("fn pad(x: u{w}, n: u32) -> u{w} {{\n"
       "    return if n < {b} then x | ((1 as u{w}) << (8 * n)) else x\n}}\n"
       "fn f(x: u{w}, buf: bytes) -> u{w} {{\n    return pad(x, {count})\n}}\n")


@pytest.mark.parametrize("w,count,branch", [
    (384, "len(buf)", True),              # a multi-word run-time shift, a public condition
    (160, "len(buf) - 1", True),
    (64, "len(buf)", False),              # a shift of at most 64 bits stays computed
    (384, "load_le(buf, 0, 4, len(buf))", False),   # a secret condition: a select, no error
])
def test_a_costly_pure_arm_is_branched_over_on_a_public_condition(tmp_path, w, count, branch):
    m = load(tmp_path, PAD.format(w=w, b=w // 8, count=count))
    ops = opcodes(m, "pad")
    assert ("if" in ops, "select" in ops) == (branch, not branch), ops
    fn = compile_module(m)
    for n in (0, 1, w // 8 - 1, w // 8, w // 8 + 3):
        x = (0x5A << (w - 8)) | 0x81
        want = x | (1 << 8 * n) if n < w // 8 else x
        assert list(fn.call("pad", [x, n])) == [want], (w, n)


@pytest.mark.parametrize("arm,what", [
    ("s[a]", "reads s at an index that may be out of range"),
    ("load_le(buf, 4, 1)", "reads buf at an offset that may be out of range"),
    ("w(s, a)", "calls w, which writes s"),
])
def test_secret_condition_with_faulting_arm_is_an_error(tmp_path, arm, what):
    e = error(tmp_path, "fn w(s: u8[4], a: u8) -> u8 {\n    s[0] = a\n    return a\n}\n"
              "fn f(a: u8, s: u8[4], buf: bytes) -> u8 {\n"
              f"    return if a == 1 then 0 else {arm}\n}}\n")
    assert "this condition may be secret" in e.message and what in e.message
    assert (e.line, e.column) == (6, 15)


def test_public_conditions(tmp_path):
    # lengths, loop indices over public bounds and parameters every caller passes public
    # values to are public; a parameter of an uncalled function is not
    load(tmp_path, BLOCKS + "fn g(ad: bytes) -> u8 {\n    n = len(ad)\n"
         "    return if n > 2 then load_le(ad, n - 1, 1) else 0\n}\n")
    e = error(tmp_path, BLOCKS.replace("block_of(nonce, ad, i))", "block_of(nonce, ad, load_le(ad, 0, 4)))"))
    assert "this condition may be secret" in e.message and e.line == 2


def test_cli_exit_code_2(tmp_path, capsys):
    spec = tmp_path / "bad.ae"
    spec.write_text("fn f(a: u8, s: u8[4]) -> u8 {\n    return if a == 1 then 0 else s[a]\n}\n")
    assert main(["check", str(spec)]) == 2
    err = capsys.readouterr().err
    assert re.search(r"bad\.ae:2:15: error: this condition may be secret", err) and "Traceback" not in err


# -- a knob defaulting to the target's word ----------------------------------------------------

WORD_KNOB = """spec w
knob par: {8, 16, 32} = word
fn f(x: u<par>) -> u<par> {
    return x ^ 1
}
"""


def test_a_knob_defaulting_to_word_takes_the_targets_word(tmp_path):
    path = tmp_path / "w.ae"
    path.write_text(WORD_KNOB)
    assert load_module(str(path), {}).knobs == {"par": 16}          # no target: 16
    assert load_module(str(path), {}, 32).knobs == {"par": 32}
    assert load_module(str(path), {"par": "8"}, 32).knobs == {"par": 8}   # -k still sets it
    assert load_module(str(path), {}, 32).knob_decls["par"].default == "word"


def test_a_word_default_outside_the_choices_is_an_error(tmp_path):
    path = tmp_path / "w.ae"
    path.write_text(WORD_KNOB.replace("{8, 16, 32}", "{8, 16}"))
    with pytest.raises(SpecError, match="target's word size 32 of knob par is not one of its choices"):
        load_module(str(path), {}, 32)


def test_compiled_for_each_target_at_its_word(tmp_path):
    from aedsl.driver import compile_spec
    path = tmp_path / "w.ae"
    path.write_text(WORD_KNOB)
    assert compile_spec(path, "msp430f1611", entry="f").knobs["par"] == 16
    assert compile_spec(path, "stm32f030", entry="f").knobs["par"] == 32


# -- the spec library's shared functions (specs/lib/) ---------------------------------------------

def test_a_spec_uses_the_librarys_tag_comparison(tmp_path):
    """`use V = tags()` from a spec outside the library finds specs/lib/tags.ae (after the spec's
    own folders, as for primitives and schemes); `equal` compares the first len(tag) bytes."""
    m = load(tmp_path, "spec v\nuse V = tags()\nfn check(tag: bytes, t: bytes) -> bit {\n"
             "    return V.equal(tag, t)\n}\n")
    prog = compile_module(m)
    t = list(range(16))
    assert prog.call("check", [list(t), list(t)])[0] == 1
    assert prog.call("check", [t[:12], t])[0] == 1                  # a 12-byte tag: its bytes only
    for k in (0, 7, 11):
        bad = list(t[:12])
        bad[k] ^= 0x80
        assert prog.call("check", [bad, t])[0] == 0
