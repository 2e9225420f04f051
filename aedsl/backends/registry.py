"""The one registry from a chip's ISA to its target (`codegen.interface.Backend`)."""
from __future__ import annotations

from aedsl.backends.armv6m.backend import ARMV6M
from aedsl.backends.msp430.backend import MSP430
from aedsl.codegen.interface import Backend

TARGETS: tuple[Backend, ...] = (MSP430, ARMV6M)


class NoTargetError(ValueError):
    """No target compiles for this chip's ISA."""

    def __str__(self) -> str:
        return str(self.args[0])


def target_for(chip) -> Backend:
    """The target that compiles for `chip` (by its ISA)."""
    for t in TARGETS:
        if chip.isa in t.isas:
            return t
    raise NoTargetError(f"no target for ISA {chip.isa!r} (chip {chip.name}); "
                        f"known ISAs: {', '.join(i for t in TARGETS for i in t.isas)}")


def has_target(chip) -> bool:
    return any(chip.isa in t.isas for t in TARGETS)


def by_name(name: str) -> Backend:
    for t in TARGETS:
        if t.name == name:
            return t
    raise NoTargetError(f"no target named {name!r}; targets: {', '.join(t.name for t in TARGETS)}")


def all_target_knobs() -> dict[str, tuple[str, ...]]:
    """Every knob some target owns, with its values (the union over targets)."""
    out: dict[str, tuple[str, ...]] = {}
    for t in TARGETS:
        out.update(t.knobs)
    return out
