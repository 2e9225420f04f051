"""Knobs: the one typed description of every knob (`Knob`) and the one parser of `-k NAME=VALUE`.

A knob belongs to one owner: a spec declares its own (`knob name: {...} = default`, seen by the
frontend), an IR pass reads a pass knob (each pass module lists its `KNOBS`), a target owns its
knobs (`Backend.knobs`). The compile driver gathers them (`aedsl.driver.knob_registry`) and checks
every `-k` against them before compiling, so a bad name or value is one clear error.
"""
from __future__ import annotations

from dataclasses import dataclass


class KnobError(ValueError):
    """A knob setting that is malformed, unknown, or has a value its knob does not take."""


@dataclass(frozen=True)
class Knob:
    """`values`: the values it takes (strings), or None for any integer (`minimum` and up).
    `default`: what an unset knob means (None: the owner decides from the variant)."""
    name: str
    owner: str                    # "spec" | "pass" | "target"
    values: tuple[str, ...] | None = None
    default: str | None = None
    minimum: int = 0
    doc: str = ""

    def check(self, value: str) -> str:
        """`value` as the knob takes it, or KnobError naming what it takes."""
        value = str(value)
        if self.values is not None:
            if value not in self.values:
                raise KnobError(f"knob {self.name}={value!r}: expected one of {', '.join(self.values)}")
            return value
        try:
            n = int(value, 0)
        except ValueError:
            raise KnobError(f"knob {self.name}={value!r}: expected an integer") from None
        if n < self.minimum:
            raise KnobError(f"knob {self.name}={value!r}: expected an integer >= {self.minimum}")
        return str(n)


def parse_knobs(items: list[str]) -> dict[str, str]:
    """`["a=1", "b=x"]` -> {"a": "1", "b": "x"}; KnobError for an item that is not NAME=VALUE or
    sets one knob twice."""
    knobs: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise KnobError(f"bad knob setting {item!r}; write NAME=VALUE")
        if name in knobs and knobs[name] != value:
            raise KnobError(f"knob {name} is set twice ({knobs[name]!r} and {value!r})")
        knobs[name] = value
    return knobs
