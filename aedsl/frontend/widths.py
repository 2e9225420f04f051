"""Width checks where a runtime value is needed: materialising compile-time integers as IR
constants of the right width, and the diagnostics for mismatched or unknown widths.

Every function takes the `FunctionBuilder` `fb` it emits into and reports errors through."""
from __future__ import annotations

from ..ir.nodes import Memory, Value
from .types import CInt, fits


def need_value(fb, v, node) -> Value:
    """`v` as a runtime value; an untyped constant, an array or a tuple of results is an error."""
    if isinstance(v, Value):
        return v
    if isinstance(v, CInt):
        if v.width is None:
            raise fb.error("this constant needs a width (e.g. `5 as u8`)", node)
        return fb.emit("const", v.width, attrs={"value": v.value}, node=node)
    if isinstance(v, Memory):
        raise fb.error(f"{v.name} is an array; index it", node)
    if isinstance(v, list):
        raise fb.error("a call returning several values used as one value", node)
    raise fb.error("not a runtime value", node)


def check_fit(fb, v: CInt, width: int, node) -> int:
    """The value of constant `v` as a u`width` (negative untyped constants wrap around)."""
    if v.width is not None and v.width != width:
        raise fb.error(f"width mismatch: expected u{width}, got u{v.width}", node)
    value = v.value % (1 << width) if v.value < 0 else v.value
    if not fits(value, width):
        raise fb.error(f"constant {v.value:#x} does not fit in u{width}", node)
    return value


def as_value(fb, v, width: int, node) -> Value:
    """`v` as a runtime u`width` value."""
    if isinstance(v, CInt):
        return fb.emit("const", width, attrs={"value": check_fit(fb, v, width, node)}, node=node)
    v = need_value(fb, v, node)
    if v.width != width:
        raise fb.error(f"width mismatch: expected u{width}, got u{v.width} (convert with `as u{width}`)", node)
    return v


def common_width(fb, a, b, node, what) -> int:
    """The width two operands share; an untyped constant adopts its partner's."""
    wa = a.width if isinstance(a, (Value, CInt)) else None
    wb = b.width if isinstance(b, (Value, CInt)) else None
    if wa is not None and wb is not None and wa != wb:
        raise fb.error(f"width mismatch: u{wa} {what} u{wb} (convert one side with `as`)", node)
    w = wa if wa is not None else wb
    if w is None:
        raise fb.error("cannot tell the width of this expression; give a constant a type", node)
    return w
