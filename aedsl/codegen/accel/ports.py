"""The accelerator's pseudo-instructions in machine IR and the target's view of the accelerator.

`accel.go id, latency` starts operation `id` (emitted right after the write that triggers it);
`accel.wait id` stands where its result is needed (removed or expanded into a poll by
`waits.finalize_waits`). `AccelPorts` is what the target tells the machine-IR steps.
"""
from __future__ import annotations

from dataclasses import dataclass

GO, WAIT = "accel.go", "accel.wait"
SCHEDULE_VALUES = ("none", "delay_slot")


@dataclass
class AccelPorts:
    """The target's view of the accelerator for the machine-IR steps: `is_io(operand)` tells an
    accelerator register operand; `cycles(inst)` the cost model; `expand_wait(mf, inst)` the
    poll loop replacing an uncovered wait."""
    is_io: object
    cycles: object
    expand_wait: object



def is_io_inst(inst, ports) -> bool:
    return any(ports.is_io(o) for o in inst.ops)
