"""Each class of spec error: exact message, caret position, exit code 2, no traceback."""
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from aedsl.cli import main
from aedsl.frontend.diagnostics import SpecError
from aedsl.frontend.elaborate import load_module


from tests.paths import SPECS

SPECK = SPECS / "primitives/speck.ae"


def check(tmp_path, capsys, source, *knobs):
    path = tmp_path / "s.ae"
    path.write_text(textwrap.dedent(source).lstrip())
    args = ["check", str(path)] + [x for k in knobs for x in ("-k", k)]
    code = main(args)
    err = capsys.readouterr().err
    return code, err.replace(str(path), "s.ae")


CASES = [
    ("syntax", """
        spec a
        fn f(x: u8) -> u8 {
            y = x +
        }
        """, (),
     "s.ae:4:1: error: unexpected '}'; expected a number, '(', '-', a name, a string, '~'\n}\n^\n"),
    ("unknown name", """
        spec a
        fn f(x: u8) -> u8 {
            return x ^ zz
        }
        """, (),
     "s.ae:3:16: error: unknown name 'zz'\n    return x ^ zz\n               ^\n"),
    ("width mismatch", """
        spec a
        fn f(x: u8, y: u16) -> u8 {
            return x ^ y
        }
        """, (),
     "s.ae:3:12: error: width mismatch: u8 ^ u16 (convert one side with `as`)\n"
     "    return x ^ y\n           ^\n"),
    ("constant too wide", """
        spec a
        fn f(x: u8) -> u8 {
            return x ^ 0x100
        }
        """, (),
     "s.ae:3:16: error: constant 0x100 does not fit in u8\n    return x ^ 0x100\n               ^\n"),
    ("knob value not allowed", """
        spec a
        knob key_bits: {128, 256} = 128
        """, ("key_bits=100",),
     "s.ae:2:6: error: knob key_bits=100 is not allowed; choose one of 128, 256\n"
     "knob key_bits: {128, 256} = 128\n     ^\n"),
    ("unknown knob", """
        spec a
        knob key_bits: {128, 256} = 128
        """, ("rounds=3",),
     "s.ae:1:1: error: unknown knob 'rounds' (this spec's knobs: key_bits)\nspec a\n^\n"),
    ("assignment width", """
        spec a
        fn f(x: u8, y: u16) {
            z = x
            z = y
        }
        """, (),
     "s.ae:4:9: error: width mismatch: expected u8, got u16 (convert with `as u8`)\n"
     "    z = y\n        ^\n"),
    ("index out of range", """
        spec a
        table t: u8[2] = {1, 2}
        fn f() -> u8 {
            return t[2]
        }
        """, (),
     "s.ae:4:14: error: index 2 out of range for t: u8[2]\n    return t[2]\n             ^\n"),
    ("unknown function", """
        spec a
        fn f(x: u8) {
            g(x)
        }
        """, (),
     "s.ae:3:5: error: unknown function 'g'\n    g(x)\n    ^\n"),
    ("failed assert", """
        spec a
        const n = 3
        assert n % 2 == 0, "n must be even"
        """, (),
     "s.ae:3:1: error: assertion failed: n must be even\n"
     "assert n % 2 == 0, \"n must be even\"\n^\n"),
]


@pytest.mark.parametrize("name,source,knobs,expected", CASES, ids=[c[0] for c in CASES])
def test_error_message_and_caret(tmp_path, capsys, name, source, knobs, expected):
    code, err = check(tmp_path, capsys, source, *knobs)
    assert code == 2
    assert err == expected


def test_clean_spec_exits_zero(capsys):
    assert main(["check", str(SPECK), "-k", "block_bits=64", "-k", "key_bits=96"]) == 0
    assert "ok" in capsys.readouterr().out


def test_invalid_speck_combination_is_reported(capsys):
    assert main(["check", str(SPECK), "-k", "block_bits=32", "-k", "key_bits=128"]) == 2
    assert "assertion failed: Speck32 takes a 64-bit key" in capsys.readouterr().err


SPECK_TEXT = SPECK.read_text()


@st.composite
def mutated_spec(draw):
    text = SPECK_TEXT
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["delete", "insert", "replace", "swap_token"]))
        if kind == "delete":
            j = min(len(text), i + draw(st.integers(1, 12)))
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(
                ["(", ")", "{", "}", "[", "]", ",", ":", "x", "u8", " as u<n>", "0x1ff", "..",
                 "for i in 0..3 {", "forall", "-", "~", "@unroll(0)", "return", "\n", "var q: u8",
                 "if", "then", "else", ">>>", "cat(", "rev8(", "99999999999999999"])) + text[i:]
        elif kind == "replace" and i < len(text):
            text = text[:i] + draw(st.characters(min_codepoint=32, max_codepoint=126)) + text[i + 1:]
        else:
            words = ["n", "m", "rounds", "alpha", "x", "y", "k", "i", "l", "rk", "key", "b", "64", "0"]
            a, b = draw(st.sampled_from(words)), draw(st.sampled_from(words))
            text = text.replace(f" {a} ", f" {b} ", 1)
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=mutated_spec(), block=st.sampled_from(["32", "64", "128"]))
def test_mutated_specs_only_give_diagnostics(tmp_path, source, block):
    path = tmp_path / "m.ae"
    path.write_text(source)
    key = {"32": "64", "64": "96", "128": "128"}[block]
    try:
        load_module(path, {"block_bits": block, "key_bits": key})
    except SpecError as e:
        text = e.render()
        assert text.startswith(f"{path}:") and ": error: " in text
