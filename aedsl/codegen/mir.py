"""Machine IR: target instructions over virtual registers, shared by every backend.

A `MFunction` is a flat list of `MInst` (labels are pseudo-instructions), so control flow is
explicit and register allocation / scheduling / emission are target-neutral walks over it.
Registers are ints: 0..63 are physical registers of the target (precoloured), >= FIRST_VREG
are virtual. Operands are small immutable objects:

  R(reg)                  register direct
  Imm(value)              immediate
  Mem(base, disp)         base + disp; base a register or None (absolute); disp an int, a
                          symbol name (str) or a `Frame` reference resolved at emission
  Ind(reg) / Inc(reg)     register indirect / indirect with post-increment (targets may lack them)
  Lbl(name)               a code label (branch targets)

Which operands an instruction reads and writes comes from the target's instruction table
(`target.InstrDesc`), so this module knows no mnemonic.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

FIRST_VREG = 64


@dataclass(frozen=True)
class Frame:
    """A stack-frame address resolved once the frame layout is known: kind "slot" (spill slot
    k), "local" (the local memory `name`), "arg" (incoming stack argument word k)."""
    kind: str
    key: object
    extra: int = 0

    def __str__(self) -> str:
        return f"{self.kind}:{self.key}{'+' + str(self.extra) if self.extra else ''}"


@dataclass(frozen=True)
class R:
    reg: int


@dataclass(frozen=True)
class Imm:
    value: int


@dataclass(frozen=True)
class Mem:
    base: int | None
    disp: int | str | Frame = 0


@dataclass(frozen=True)
class Ind:
    reg: int


@dataclass(frozen=True)
class Inc:
    reg: int


@dataclass(frozen=True)
class Lbl:
    name: str


Operand = R | Imm | Mem | Ind | Inc | Lbl


def regs_in(op: Operand) -> tuple[int, ...]:
    """Registers an operand mentions (for a memory operand: its base, which is read)."""
    if isinstance(op, R):
        return (op.reg,)
    if isinstance(op, Mem):
        return () if op.base is None else (op.base,)
    if isinstance(op, (Ind, Inc)):
        return (op.reg,)
    return ()


def at_offset(op: Operand, k: int) -> Operand | None:
    """The memory operand `k` bytes above `op` (`@p`, `d(p)`, a frame word, a symbol plus a
    displacement); None for an operand that is not memory."""
    if isinstance(op, Ind):
        return Mem(op.reg, k) if k else op
    if not isinstance(op, Mem):
        return None
    if k == 0:
        return op
    d = op.disp
    if isinstance(d, int):
        return Mem(op.base, d + k)
    if isinstance(d, Frame):
        return Mem(op.base, Frame(d.kind, d.key, d.extra + k))
    return Mem(op.base, f"{d}+{k}")


def address(op: Operand) -> tuple[int, int] | None:
    """(base register, displacement) of a word of memory through a register with a numeric
    displacement (`@p` is (p, 0), `k(p)` is (p, k)); None for any other operand (`@p+` included:
    it moves p)."""
    if isinstance(op, Ind):
        return op.reg, 0
    if isinstance(op, Mem) and op.base is not None and isinstance(op.disp, int):
        return op.base, op.disp
    return None


def frame_kind(op: Operand) -> str | None:
    """The kind of frame word or area a memory operand names ("slot", "local", "arg", "out"),
    else None."""
    return op.disp.kind if isinstance(op, Mem) and isinstance(op.disp, Frame) else None


def slot_key(op: Operand):
    """(base, key) of an operand naming a spill slot, else None."""
    return (op.base, op.disp.key) if frame_kind(op) == "slot" else None


def as_mem(op: Operand) -> Operand:
    """`@p` as the memory operand `0(p)` it reads (the form a destination takes); any other
    operand as it is."""
    return Mem(op.reg, 0) if isinstance(op, Ind) else op


def is_vreg(r: int) -> bool:
    return r >= FIRST_VREG


@dataclass
class MInst:
    """One machine instruction (or a pseudo: "label", "comment").

    `depth`: loop nesting at selection (spill costs weigh by it); `no_spill`: registers that must
    stay in registers (short reload temporaries); `loc`: the spec line it came from (the line its
    assembly comment names); `origin` and `origin_loc`: the IR opcode whose selection emitted it
    and that op's own statement (a loop's latch: the `for`, where `loc` is the body's last line),
    for reports ("" / None for code the later passes add). `lane`: for an op selected limb by
    limb, limb k of its result reading only limb k of its operands (bitwise ops), the limb index
    this instruction computes, so the pressure scheduler can order a bitsliced region limb-major
    (`codegen/schedule.py`); None otherwise. `public`: what the instruction computes (its
    result and flags) depends on no secret whatever its operands hold, by the selector's
    construction (the exit test of a loop counted by a marker bit in a shifted secret value,
    select_base.sentinel_counter); the constant-time analysis takes it as public."""
    mn: str
    ops: list = field(default_factory=list)
    depth: int = 0
    loc: tuple | None = None
    text: str = ""
    origin: str = ""
    origin_loc: tuple | None = None
    lane: int | None = None
    public: bool = False

    def __repr__(self) -> str:
        return f"{self.mn} {', '.join(map(str, self.ops))}"

    def with_ops(self, ops: list) -> "MInst":
        """The same instruction (mnemonic, depth, origin, lane, public) over other operands."""
        return MInst(self.mn, ops, self.depth, self.loc, self.text, self.origin, self.origin_loc, self.lane,
                     self.public)


@dataclass
class MFunction:
    name: str
    insts: list[MInst] = field(default_factory=list)
    n_arg_words: int = 0
    # where each incoming argument word arrives, in order: a register R or the caller's stack
    # word Mem(sp, Frame("arg", k)) (set by codegen.calls.IncomingWords)
    incoming: list = field(default_factory=list)
    locals: dict[str, int] = field(default_factory=dict)   # local memory name -> bytes
    local_init_zero: list[str] = field(default_factory=list)
    no_spill: set = field(default_factory=set)
    next_vreg: int = FIRST_VREG
    next_label: int = 0
    doc: str = ""
    # facts selection hands to the later stages
    calls: set = field(default_factory=set)        # functions called as subroutines
    n_out: int = 0                                 # outgoing stack-argument words of those calls
    walk_regs: set = field(default_factory=set)    # pointers walked in loops (post-increment candidates)
    counted: list = field(default_factory=list)    # loops whose index may count down
    accel_ports: object = None                     # the accelerator's I/O ports, if the chip has one
    accel_report: list = field(default_factory=list)   # what wait finalisation did, per wait

    def __getstate__(self) -> dict:
        """Pickled (the unit cache keeps machine IR) without the accelerator's ports, which hold
        the chip's functions and serve only the pipeline that has already run."""
        return {**vars(self), "accel_ports": None}

    def clone(self) -> "MFunction":
        """An independent copy, as `copy.deepcopy` gives but faster: new instruction objects
        with their own operand lists (operands are immutable, so shared); every other field
        deep-copied."""
        new = copy.copy(self)
        new.insts = [i.with_ops(list(i.ops)) for i in self.insts]
        # a field naming instructions (the counted loops) names the copies, as deepcopy would
        memo = {id(old): copied for old, copied in zip(self.insts, new.insts)}
        for k, v in vars(self).items():
            if k != "insts":
                setattr(new, k, copy.deepcopy(v, memo))
        return new

    def vreg(self) -> int:
        v = self.next_vreg
        self.next_vreg += 1
        return v

    def label(self, hint: str = "L") -> str:
        self.next_label += 1
        return f".L{self.name}_{hint}{self.next_label}"
