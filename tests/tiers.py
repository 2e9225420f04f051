"""The fast tier (`pytest -m "not slow"`): `tiered` marks the heavy cases of a parametrized test
slow and keeps the others, so the fast tier still runs every test function on a representative
case and the full suite runs every case."""
from __future__ import annotations

import pytest


def tiered(cases, fast, single: bool = False) -> list:
    """`cases` as pytest.params, each marked slow unless `fast(case)` holds (`fast` is a predicate
    or a collection of cases). `single`: each case is one argument's value, not a tuple of them."""
    keep = fast if callable(fast) else (lambda c: c in fast)
    out = []
    for c in cases:
        values = (c,) if single or not isinstance(c, tuple) else c
        out.append(pytest.param(*values, marks=() if keep(c) else pytest.mark.slow))
    return out
