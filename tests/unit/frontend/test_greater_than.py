"""`>` closes `u<...>` and is also a comparison; both must parse (it once failed after a number or `)`)."""
import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module

SPEC = """spec gt
fn f(a: u16, b: u16) -> u16 {
    c = if a + 1 > b then a else b
    d = if (a) > b then 1 as u16 else 2 as u16
    e = if a >= b then 3 as u16 else 4 as u16
    var w: u<(2*8)> = c
    return w ^ d ^ e
}
"""


@pytest.mark.parametrize("a,b", [(1, 1), (5, 3), (2, 9), (0xFFFF, 0), (7, 8)])
def test_greater_than_after_number_and_paren(tmp_path, a, b):
    path = tmp_path / "gt.ae"
    path.write_text(SPEC)
    program = compile_module(load_module(str(path), {}))
    c = a if (a + 1) & 0xFFFF > b else b
    d = 1 if a > b else 2
    e = 3 if a >= b else 4
    assert program.call("f", [a, b])[0] == c ^ d ^ e
