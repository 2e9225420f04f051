"""Accelerator scheduling, target-neutral: delay slots around an asynchronous accelerator.

The accelerator itself (its registers, latencies, how a start and a poll look in machine code) is
described by the chip file and the target's binding (for MSP430, `aedsl/backends/msp430/accel.py`
with the `[accelerator]` section of aedsl/chips/*.toml); this package only knows the abstract
protocol: an operation starts (`accel.go`), runs for `latency` cycles, and its result may be read
after a wait (`accel.wait`).

An accelerator operation (`accel_start` ... `accel_result` in the IR) runs for `latency` cycles
after the instruction that starts it; reading its result earlier is an error on the hardware
(and a SimError in our simulators). The naive code starts, waits (polls BUSY) and reads. This
package moves independent work into that gap and removes the wait when the work provably covers
the latency. Three steps, each preserving the program's meaning:

1. **At selection** (`select.AccelSelection`, a mixin of a target's selector; the rising of
   starts is `hoist.hoist_starts`):
   - *Starts rise.* Inside an IR block, an `accel_start` with no result of an earlier operation
     still unread is moved up to just after the last op it depends on, together with the ops of
     its backward slice (its operands' definitions in the same block). The segment it moves
     through ends at any effect the slice could observe: another accelerator op, a region
     (`for`/`if`), a call, or (if the slice loads) any store. Only pure ops and loads
     cross each other, so every value is computed from the same inputs as before.
   - *Results sink.* `accel_result` emits nothing; its words are read (after a wait) when first
     used, when the next operation must start (the module holds one block), before a region is
     entered, or at the end of the function. Reading later is always allowed; the module keeps
     the result until the next start.
   - *The module's state is tracked*: the key it holds (a loaded key is identified by the memory
     element it was loaded from and the number of stores to that memory so far, so "unchanged"
     is proven from the dataflow) and the operation mode. A key or mode write is emitted only
     when it changes. A counted loop whose accelerator operations all use one key and mode gets
     them set once before the loop (the loop body cannot change them), so the body sets nothing.
2. **In machine IR, before register allocation** (`delay_slots.schedule_function`): a list scheduler over
   each basic block that holds an accelerator start or wait. Dependences: registers (RAW, WAR,
   WAW), the condition flags (an instruction that clobbers them keeps its order relative to every
   instruction of a live flags range), memory (stores stay ordered with loads and stores they may
   alias; accelerator registers form one ordered chain, apart from ordinary memory), and the
   block's label and terminator stay in place. Priorities: a start (`accel.go`) issues as soon as
   its data writes are done; while an operation is in flight and its latency not yet covered by
   scheduled cycles (the target's cost model), independent instructions go first (those the next
   start needs, then the rest in original order), and the wait (`accel.wait`) and the result reads
   come only when the latency is covered or nothing else is ready.
3. **After register allocation** (`waits.finalize_waits`): for each wait, the minimum over all paths
   from its start to the first accelerator access after the wait of the summed instruction cycles
   (the start instruction excluded, that access included: every access happens at the end of its
   instruction, see the simulators' timing contract). If it is >= the latency the wait is
   deleted; otherwise the target expands it into a BUSY poll loop. Spill code only adds cycles and
   coalescing only removes copies, so the check runs on the final instructions.

With the knob `schedule=none` steps 1 (rising, sinking) and 2 are skipped and every wait becomes a
poll: start, poll, read, the baseline the delay-slot effect is measured against.

Modules: `ports` (the pseudo-instructions and the target's machine-IR view, `AccelPorts`),
`select` (step 1), `hoist` (step 1's rising starts), `delay_slots` (step 2), `waits` (step 3).
"""
from __future__ import annotations

from .delay_slots import schedule_function
from .hoist import hoist_starts, may_alias
from .ports import GO, SCHEDULE_VALUES, WAIT, AccelPorts
from .select import AccelConfig, AccelSelection
from .waits import covered_cycles, finalize_waits

__all__ = ["GO", "WAIT", "SCHEDULE_VALUES", "AccelPorts", "AccelConfig", "AccelSelection", "hoist_starts",
           "may_alias", "schedule_function", "covered_cycles", "finalize_waits"]
