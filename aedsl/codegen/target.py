"""What a target supplies to the shared back end (the contract; docs/BACKENDS.md explains it).

A target is data plus a little code:

- `allocatable`: physical register numbers the allocator may use, in preference order
  (caller-saved first makes fewer saves); `callee_saved`: those the prologue must save.
- `instrs`: mnemonic -> `InstrDesc` (which operands are read/written, which must be registers,
  flag use, whether it ends a block). The allocator, liveness and scheduler read only this.
- `cost(inst) -> (bytes, cycles)`: the cost model, from the simulator's timing tables.
- `move(src, dst)`: a register/memory copy instruction (spill code), which must not change flags.
- `spill_operand(slot)`: the operand naming spill slot k (a memory operand, so a target whose
  instructions accept memory operands uses a spilled value in place).
- `rematerialize`: a spilled register whose only definition is `move(Imm, reg)` is not given a
  slot; each use gets the constant moved into a temporary instead (worth it where a constant
  move costs no more than a reload and instructions need registers, as on Thumb-1).
- `arg_homes`: a spilled value loaded from an incoming stack argument word (and nothing else
  reading that word) lives in the word itself instead of a new slot (where a stack slot is
  what a spill costs anyway; not where spills go to spare registers first, as on Thumb-1).
- `word_homes`: a spilled value that is a load of a word through a pointer, unchanged while
  the value lives, is read from that word at each use instead of being stored to a slot
  (where instructions take memory operands, as on MSP430).
- `writeback_homes`: a spilled variable loaded from a word through a pointer at the function's
  entry and stored back to it at the exit lives in that word in between
  (`codegen/writeback_homes.py`; where instructions take memory operands, as on MSP430).
- `word_bytes`: the machine word's bytes (a word access through a pointer covers that many).
- `unit_of(inst)`: the functional unit an instruction uses (default: its `InstrDesc.unit`); a
  target whose multiplier is a memory-mapped peripheral names the stores that feed it.
- `final_form(mf, alloc)`: a copy of an allocated function as its emission will have it, for
  judging a schedule by its allocated code (`codegen/interface.run_mir_pipeline`): a target that
  places spill slots after the MIR pipeline (Thumb-1: the most used in high registers) places
  them. None: the function as allocated is what is emitted.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable

from .mir import MInst, Operand, R


@dataclass(frozen=True)
class InstrDesc:
    """reads/writes: operand positions read / written; reg_only: positions that must be a
    register (a spilled vreg there is reloaded/stored through a temporary); flags_in/out: reads
    or changes the condition flags; branch: "jump" (unconditional), "cond", "ret" or None;
    commutes: a two-address instruction whose two read operands can be swapped with the same
    result and flags (codegen/commute.py); cancels: with every read operand one register, the
    result does not depend on it (x - x, x ^ x; with flags_in, on the carry alone), which the
    constant-time analysis (ct/taint_mir.py) uses for `subc rD, rD`-style masks; width: the bytes
    a load or store moves, where said (0: not said), so that analysis knows a store that replaces
    a whole word of a frame area; copy: a whole-word copy of operand 0 into operand 1 besides the
    target's move (MSP430's peripheral read `movio`), which codegen/fold_copies.py may fold into
    its reader."""
    reads: tuple[int, ...] = ()
    writes: tuple[int, ...] = ()
    reg_only: tuple[int, ...] = ()
    flags_in: bool = False
    flags_out: bool = False
    branch: str | None = None
    pseudo: bool = False
    memory: str = ""
    addr: tuple[int, ...] = ()
    unit: str = ""
    commutes: bool = False
    cancels: bool = False
    width: int = 0
    copy: bool = False


# A register given a value nothing will read: `undef rX` defines rX for liveness and allocation
# (the register's life starts here, as after a clear) and is no instruction: no bytes, no cycles;
# `Backend.compile_module` drops it before emission. The selector writes it where every bit the
# register held is shifted out before the value is read (a carry chain's register that the chain
# fills from end to end, `select/shifts.py` `perm_carry`), instead of a clear.
UNDEF = "undef"
UNDEF_DESC = InstrDesc(writes=(0,))


@dataclass
class Target:
    name: str
    allocatable: tuple[int, ...]
    callee_saved: frozenset[int]
    instrs: dict[str, InstrDesc]
    cost: Callable[[MInst], tuple[int, int]]
    move: Callable[[Operand, Operand], MInst]
    spill_operand: Callable[[int], Operand]
    reg_name: Callable[[int], str]
    rematerialize: bool = False
    arg_homes: bool = False
    word_homes: bool = False
    writeback_homes: bool = False
    word_bytes: int = 2
    unit_of: Callable[[MInst], str] | None = None
    final_form: Callable[[object, object], object] | None = None

    @cached_property
    def move_mn(self) -> str:
        """The mnemonic of the register-to-register `move`."""
        return self.move(R(0), R(0)).mn

    def unit(self, inst: MInst) -> str:
        """The functional unit `inst` uses ("" = none named)."""
        if self.unit_of is not None:
            return self.unit_of(inst)
        d = self.instrs.get(inst.mn)
        return d.unit if d is not None else ""

    def desc(self, inst: MInst) -> InstrDesc:
        try:
            return self.instrs[inst.mn]
        except KeyError:
            raise KeyError(f"{self.name}: instruction {inst.mn!r} is not in the instruction table") from None
