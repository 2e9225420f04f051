"""The target interface: everything the driver, the toolchain, the runtime and the engines ask of
a code generator, declared once (`Backend`), and the one compile loop every target shares.

A target is data plus a little code. Its package (`aedsl/backends/<name>/`) declares a subclass
of `Backend` with:

- identity and data: `name`, the chip ISAs it compiles for (`isas`), machine word (`word_bits`),
  `version`, the knobs it owns (`knobs`: name -> allowed values; `knob_defaults`: what an unset
  one means, where that is one value for every variant), IR passes it skips
  (`skip_passes`), its Jinja2 `templates`, its C runtime directory under `runtime/` (`runtime`)
  and its toolchain description (`toolchain`, a `ToolchainSpec`);
- the policy hooks `implied_spec_knobs`, `pass_knobs` and `retry_knobs` (defaults: none,
  unchanged, no retry);
- the ABI: `entry_params` (how each IR parameter of an exported function is passed),
  `c_params` (its C prototype), `call_clobbers` (the calling convention's caller-saved
  registers) and `fixed_regs` (stack pointer, program counter);
- code generation: `select_function` (IR function -> MFunction on virtual registers),
  `mir_pipeline` (the machine-IR passes, in order, as a list of `MirPass`), `emit_function`
  (frame, prologue/epilogue and assembly lines of an allocated function) and `table` (a constant
  table as assembler data).

`Backend.compile_module` then runs the same loop for every target: the exported functions and
the subroutines they call (callees first: a subroutine's callers learn what it overwrites, knob
`subroutine_saves`), each selected, put through the MIR pipeline and emitted, and the unit
rendered from the target's templates. `aedsl.backends.registry` maps a chip's ISA to its target.
"""
from __future__ import annotations

import copy
import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, ClassVar

from aedsl.codegen import commute, dce, jumps, regalloc, schedule, writeback_homes
from aedsl.codegen.emit import SpecLines, render
from aedsl.codegen.liveness import defs_uses
from aedsl.codegen.mir import MFunction
from aedsl.codegen.target import UNDEF
from aedsl.codegen.unit import Compiled, Entry, Param, exported, unit_kind, variant_stem
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes.common import is_size_mode
from aedsl.knobs import Knob


# Knobs of the shared compile loop, whatever the target.
SUBROUTINE_SAVES = Knob(
    "subroutine_saves", "target", ("caller", "callee"), None,
    doc="caller: a subroutine (a function no entry point is) saves no register and each call of it "
        "names what it overwrites, so its callers keep across the call only what that leaves "
        "alone (the hand-written code's private convention: fewer cycles, sometimes more bytes); "
        "callee: the calling convention's callee-saved registers (AAPCS r4-r11, MSP430 EABI "
        "r4-r10). Unset: caller, or callee in size mode (opt=size)")
CODEGEN_KNOBS = (SUBROUTINE_SAVES,)


def subroutines_save(knobs: dict) -> bool:
    """Whether subroutines keep the calling convention's saves (knob `subroutine_saves`)."""
    value = knobs.get("subroutine_saves")
    return value == "callee" if value is not None else is_size_mode(knobs)


@dataclass
class MirContext:
    """What the MIR passes of one function share: the chip, the machine description (`machine`,
    a `codegen.target.Target`), the unit's knobs, and the allocation once `regalloc` has run."""
    chip: object
    machine: object
    knobs: dict
    alloc: object = None
    # write-back homes (`Target.writeback_homes`): None = the pipeline decides at REGALLOC
    # (`run_mir_pipeline`: in size mode it tries the function with and without them, in speed
    # mode without); True / False = with / without
    writeback: bool | None = None


@dataclass
class KeptFunction:
    """One function's machine IR after the MIR pipeline (`compile_module(keep_mir=True)`): the IR
    function's name, the MFunction, its machine description and, for an exported function, its
    Entry (None for a subroutine)."""
    name: str
    mf: MFunction
    machine: object
    entry: Entry | None


@dataclass(frozen=True)
class MirPass:
    """One step of a target's machine-IR pipeline: `run(mf, ctx)` rewrites `mf` in place."""
    name: str
    run: Callable[[MFunction, MirContext], None]


def _dce(mf: MFunction, ctx: MirContext) -> None:
    dce.eliminate(mf, ctx.machine)


def _regalloc(mf: MFunction, ctx: MirContext) -> None:
    ctx.alloc = regalloc.allocate(mf, ctx.machine, writeback=ctx.writeback is not False)


def _commute(mf: MFunction, ctx: MirContext) -> None:
    commute.commute_copies(mf, ctx.machine)


def _schedule(mf: MFunction, ctx: MirContext) -> None:
    """Placeholder in a pipeline: `run_mir_pipeline` tries the function with and without it."""


# The MIR passes every target's pipeline lists (the target orders them among its own)
DCE = MirPass("dce", _dce)
SCHEDULE = MirPass("schedule", _schedule)        # for register pressure, right before allocation
REGALLOC = MirPass("regalloc", _regalloc)        # sets ctx.alloc
COMMUTE = MirPass("commute", _commute)           # two-address ops copy the operand that dies
JUMPS = MirPass("jumps", lambda mf, ctx: jumps.remove_jumps_to_next(mf, ctx.machine))   # last


def _order(mf: MFunction) -> tuple:
    """The function's instructions as a comparable value (the same order of the same code)."""
    return tuple((i.mn, tuple(i.ops)) for i in mf.insts)


def _judge(mf: MFunction, ctx: MirContext) -> tuple[int, ...]:
    """`schedule.judge` of the allocated function in the form its emission gives it
    (`Target.final_form`: spill slots placed where the target places them after the pipeline)."""
    final = ctx.machine.final_form
    return schedule.judge(final(mf, ctx.alloc) if final is not None else mf, ctx.machine, ctx.knobs)


def run_mir_pipeline(mf: MFunction, passes: list[MirPass], ctx: MirContext) -> None:
    """Run the passes in order. At SCHEDULE, the rest of the pipeline runs on the function as
    selected and on one copy per scheduling strategy that re-orders it (`codegen/schedule.py`:
    for register pressure, bitsliced regions limb-major; fewer for a very long function,
    `schedule.strategies`); the cheapest allocated code by the
    cost model is kept, the selected order on a tie: fewer cycles, or in size mode (`opt=size`)
    fewer bytes (`schedule.judge` of the function as the target will emit it, `Target.final_form`;
    knob `op_order=source`: no copy is tried)."""
    for i, p in enumerate(passes):
        if p is SCHEDULE:
            if ctx.knobs.get("op_order", "pressure") == "source":
                continue
            trials = []              # each strategy that re-orders something, allocated and judged
            seen = {_order(mf)}      # an order two strategies reach is allocated once
            for strategy in schedule.strategies(mf):
                trial = mf.clone()
                changed = [schedule.schedule(trial, ctx.machine, step) for step in strategy.split("+")]
                if any(changed) and _order(trial) not in seen:
                    seen.add(_order(trial))
                    trials.append((trial, dataclasses.replace(ctx)))
            if not trials:
                continue
            run_mir_pipeline(mf, [q for q in passes[i + 1:]], ctx)
            best = _judge(mf, ctx)
            for trial, trial_ctx in trials:
                run_mir_pipeline(trial, [q for q in passes[i + 1:]], trial_ctx)
                cost = _judge(trial, trial_ctx)
                if cost < best:
                    best = cost
                    mf.__dict__.update(trial.__dict__)
                    ctx.alloc = trial_ctx.alloc
            return
        if p is REGALLOC and ctx.writeback is None and ctx.machine.writeback_homes:
            if is_size_mode(ctx.knobs) and writeback_homes.possible(mf, ctx.machine):
                _with_and_without_homes(mf, passes[i:], ctx)
                return
            ctx.writeback = False
        p.run(mf, ctx)


def _with_and_without_homes(mf: MFunction, rest: list[MirPass], ctx: MirContext) -> None:
    """The rest of the pipeline from REGALLOC with write-back homes and, where the allocation
    gave some, again without them on a copy; the one `schedule.judge` prefers is kept, the homes
    on a tie. Size mode only (`opt=size`): a home saves a load at the entry and a store at the
    exit but can hold a register over the whole function, and in speed mode the copies won
    every time (the permutations of Ascon-128, Ascon-AEAD128, ISAP-A-128A, NORX32-4-1 and
    PHOTON-Beetle on msp430f1611 get homes and none kept them, in any scheduling trial;
    Ascon-p6 alone: 3 380 cycles without against 3 408 with), so speed mode is not allocated
    twice, and nor is a function without the shape (`writeback_homes.possible`). In size mode
    Ascon-p6 takes 1 016 B with its homes against 1 106."""
    plain = mf.clone()
    homes = dataclasses.replace(ctx, writeback=True)
    try:
        for p in rest:
            p.run(mf, homes)
    except regalloc.RegAllocError:
        # a pointer kept in a register for its homes left a later round without a colour
        homes = None
    other = dataclasses.replace(ctx, writeback=False)
    if homes is not None:
        ctx.alloc = homes.alloc
        if not homes.alloc.writeback:
            return
    for p in rest:
        p.run(plain, other)
    if homes is None or _judge(plain, other) < _judge(mf, homes):
        mf.__dict__.update(plain.__dict__)
        ctx.alloc = other.alloc


@dataclass(frozen=True)
class ToolchainSpec:
    """How a target's objects are made and linked, as data: the binutils `prefix`, assembler
    flags, whether `.S` files are preprocessed by the C compiler (`cpp` = "gcc" | "clang"), the C
    compiler (`cc`: "gcc" = the prefixed gcc, "clang" = clang with `cc_flags`), and per-ISA extra
    flags for the assembler and the C compiler. The linker script comes from the target's
    `linker_script(chip, bench)`."""
    prefix: str
    as_flags: tuple[str, ...] = ()
    cc: str = "gcc"
    cc_flags: tuple[str, ...] = ()
    cpp: str = "gcc"
    cpp_flags: tuple[str, ...] = ()
    isa_as_flags: dict = field(default_factory=dict)
    isa_cc_flags: dict = field(default_factory=dict)


class Backend(ABC):
    """The target interface (see the module docstring)."""

    name: ClassVar[str]
    isas: ClassVar[tuple[str, ...]]
    word_bits: ClassVar[int]
    data_directives: ClassVar[dict[int, str]]       # unit bytes -> assembler data directive
    version: ClassVar[str] = "0.1"
    knobs: ClassVar[dict[str, tuple[str, ...]]] = {}
    # name -> the value an unset knob of `knobs` means, for a knob whose default is the same for
    # every variant (one the target picks per variant, MSP430's aes_tables, has none): a request
    # that gives a knob its default names the variant that leaves it out
    knob_defaults: ClassVar[dict[str, str]] = {}
    skip_passes: ClassVar[frozenset[str]] = frozenset()
    templates: ClassVar[Path]
    call_clobbers: ClassVar[tuple[int, ...]]        # the calling convention's caller-saved registers
    fixed_regs: ClassVar[tuple[int, ...]]           # stack pointer, program counter: never clobbered
    runtime: ClassVar[str]
    toolchain: ClassVar[ToolchainSpec]

    # --- policy --------------------------------------------------------------------------------
    def implied_spec_knobs(self, module, chip, knobs: dict) -> dict:
        """Spec knob values a target choice implies (applied when the spec has the knob and -k
        does not set it)."""
        return {}

    def pass_knobs(self, module, chip, knobs: dict) -> dict:
        """The IR pass knobs of a variant, from the user's knobs."""
        return dict(knobs)

    def retry_knobs(self, module, chip, knobs: dict) -> dict | None:
        """After the IR passes (`module`): the knobs to build the variant with instead, when a
        default the target chose for `knobs` did not pay on this spec; None to keep it."""
        return None

    # --- ABI -----------------------------------------------------------------------------------
    @abstractmethod
    def entry_params(self, fn) -> tuple[list[Param], list[int]]:
        """How each parameter of an exported IR function is passed, and its result widths."""

    def c_params(self, entry: Entry) -> str:
        """The C parameter list of an exported function: arrays by their element's C type
        (elements wider than 16 bits as machine words), a byte buffer and its length, scalars up
        to a word by value, wider scalars and the results through word pointers (a result of at
        most 16 bits through a 16-bit one: it is written as one 16-bit unit)."""
        word = f"uint{self.word_bits}_t"
        ctype = {1: "uint8_t", 2: "uint16_t"}
        out = []
        for p in entry.params:
            if p.kind == "mem":
                out.append(f"{ctype.get(p.stride, word)} *{p.name}")
            elif p.kind == "bytes":
                out.append(f"uint8_t *{p.name}, {word} {p.name}_len")
            elif p.kind == "word":
                out.append(f"{word} {p.name}")
            else:
                out.append(f"const {word} *{p.name}")
        # a result takes 2*ceil(w/16) bytes (docs/BACKENDS.md): one 16-bit unit up to 16 bits
        out += [f"{'uint16_t' if w <= 16 else word} *out{i}" for i, w in enumerate(entry.results)]
        return ", ".join(out) or "void"

    # --- code generation -------------------------------------------------------------------------
    @abstractmethod
    def machine(self, chip, mf: MFunction, saves: bool = True):
        """The machine description (`codegen.target.Target`) the MIR passes of `mf` use.
        `saves=False`: a subroutine that saves no register (`callee_saved` empty)."""

    @abstractmethod
    def select_function(self, module, fname: str, symbol: str, chip,
                        clobbers: dict | None = None) -> tuple[MFunction, Entry, set]:
        """Instruction selection of one IR function: the MFunction, its Entry and the tables it
        reads. `module.interfaces` holds each function as the user sees it (before the passes).
        `clobbers`: subroutine name -> the registers a call of it overwrites (`clobbered`; a
        callee not named there follows the calling convention: `call_clobbers`)."""

    def clobbered(self, mf: MFunction, machine) -> tuple[int, ...]:
        """The registers a call of the emitted subroutine `mf` (it saves none) overwrites: the
        calling convention's caller-saved ones (`call_clobbers`) and every other register its
        code writes, its own calls' included; never the stack pointer or the program counter."""
        written = set(self.call_clobbers)
        for inst in mf.insts:
            written.update(defs_uses(inst, machine)[0])
        return tuple(sorted(written - set(self.fixed_regs)))

    @abstractmethod
    def mir_pipeline(self, chip, knobs: dict) -> list[MirPass]:
        """The MIR passes, in order, from selected code to allocated code ready to emit."""

    @abstractmethod
    def emit_function(self, mf: MFunction, ctx: MirContext, spec_lines: SpecLines) -> dict:
        """Frame layout and the assembly lines of an allocated function (a dict the templates
        read: symbol, doc, lines, frame, size, ...)."""

    def table(self, module, name: str, prefix: str) -> dict:
        """A constant table as assembler data: bytes for elements up to 8 bits, half-words up to
        16, wider elements as little-endian machine words (`data_directives`: unit bytes ->
        assembler directive)."""
        t = next(x for x in module.tables if x.name == name)
        data = list(t.data or ())
        unit = 1 if t.elem_width <= 8 else 2 if t.elem_width <= 16 else self.word_bits // 8
        n = -(-t.elem_width // (8 * unit))
        mask, digits = (1 << (8 * unit)) - 1, 2 + 2 * unit
        items = [f"{(v >> (8 * unit * j)) & mask:#0{digits}x}" for v in data for j in range(n)]
        rows = [", ".join(items[i:i + 8]) for i in range(0, len(items), 8)]
        return {"name": name, "symbol": f"{prefix}_{name}", "count": len(data), "elem_width": t.elem_width,
                "bytes": unit * n * len(data), "rows": rows, "directive": self.data_directives[unit]}

    def linker_script(self, chip, bench) -> str:
        raise NotImplementedError(f"target {self.name} has no linker script")

    # --- the shared compile loop -----------------------------------------------------------------
    def call_symbol(self, module, fname: str) -> str:
        return f"{module.name}_{fname.replace('.', '_')}"

    def compile_module(self, module, chip, spec_path: str, keep_mir: bool = False) -> Compiled:
        """The exported functions and the subroutines they call, each selected, put through the
        MIR pipeline and emitted; then the unit (assembly + C header) from the templates.
        With knob `subroutine_saves=caller` (the default but in size mode), a subroutine (a
        function no entry point is, so every call of it is in this unit) saves no register: it
        is compiled before its callers (`_callees_first`), and each call of it names the
        registers its code writes (`clobbered`) instead of the calling convention's caller-saved
        set; a caller keeps across the call only what those leave alone, and saves what they
        overwrite of its own callee-saved registers (the hand-written code's private convention:
        seed 002's permutations save nothing for their mode's loop).
        `keep_mir`: the unit also keeps each function's machine IR as the last MIR pass left it
        (`Compiled.mir`, for analyses of the selected and scheduled code)."""
        spec_lines = SpecLines()
        knobs = dict(module.knobs)
        passes = self.mir_pipeline(chip, knobs)
        entries, tables = {}, set()
        public = exported(module)
        graph = _call_graph(module, public)
        infos, kept_by, clobbers = {}, {}, {}
        for fname in _callees_first(graph, public):
            symbol = self.call_symbol(module, fname)
            mf, entry, used = self.select_function(module, fname, symbol, chip, clobbers)
            tables |= used
            if not mf.calls <= set(graph[fname]):
                raise AssertionError(f"{fname}: calls {sorted(mf.calls - set(graph[fname]))}, not in its IR")
            subroutine = fname not in public and not subroutines_save(knobs)
            ctx = MirContext(chip=chip, machine=self.machine(chip, mf, saves=not subroutine), knobs=knobs)
            run_mir_pipeline(mf, passes, ctx)
            if keep_mir:
                kept_by[fname] = KeptFunction(fname, copy.deepcopy(mf), ctx.machine, entry if fname in public else None)
            mf.insts = [i for i in mf.insts if i.mn != UNDEF]      # no instruction (target.UNDEF)
            info = self.emit_function(mf, ctx, spec_lines)
            if subroutine:
                clobbers[fname] = self.clobbered(mf, ctx.machine)
            info["global"] = fname in public
            entry.code_bytes, entry.frame_bytes = info["size"], info["frame"]
            infos[fname] = info
            if fname in public:
                entries[fname] = entry
        order = list(graph)                 # the exported functions, then subroutines by first call
        functions = [infos[f] for f in order]
        kept = [kept_by[f] for f in order if f in kept_by]
        entries = {f: entries[f] for f in order if f in entries}
        table_info = [self.table(module, t.name, module.name) for t in module.tables if t.name in tables]
        knob_text = " ".join(f"{k}={v}" for k, v in knobs.items()) or "(defaults)"
        stem = variant_stem(module.name, dict(knobs))
        ctx = dict(version=self.version, spec=Path(spec_path).name, chip=chip.name, isa=chip.isa, cpu=chip.cpu,
                   knobs=knob_text, header=f"{stem}.h")
        asm = render(self.templates, "file.S.j2", functions=functions, tables=table_info, **ctx)
        consts = [{"name": f"{module.name.upper()}_{k.upper()}", "value": v} for k, v in sorted(module.consts.items())
                  if isinstance(v, int)]
        header = render(self.templates, "header.h.j2", guard=f"AEDSL_{stem.upper().replace('-', '_')}_H",
                        consts=consts,
                        functions=[{"symbol": e.symbol, "doc": f"{module.name}.{e.name}", "c_params": self.c_params(e)}
                                   for e in entries.values()], **ctx)
        return Compiled(spec=str(spec_path), chip=chip.name, knobs=knobs, asm=asm, header=header, entries=entries,
                        kind=unit_kind(entries), consts=dict(module.consts), stem=stem, domains=dict(module.domains),
                        function_bytes={f["symbol"]: f["size"] for f in functions}, mir=kept)


def _call_graph(module, public) -> dict[str, list[str]]:
    """Each function the exported ones reach -> the functions it calls (sorted, once each), in
    the unit's order of functions: the exported ones, then the subroutines by first call."""
    graph: dict[str, list[str]] = {}
    todo = list(public)
    while todo:
        f = todo.pop(0)
        if f in graph:
            continue
        graph[f] = sorted({op.attrs["callee"] for op in walk_ops(module.function(f).body) if op.opcode == "call"})
        todo.extend(graph[f])
    return graph


def _callees_first(graph: dict[str, list[str]], public) -> list[str]:
    """The functions in an order where each comes after every function it calls (calls form no
    cycle: a spec has no recursion), deterministic."""
    out: list[str] = []
    seen: set[str] = set()

    def visit(f: str) -> None:
        if f in seen:
            return
        seen.add(f)
        for g in graph[f]:
            visit(g)
        out.append(f)

    for f in public:
        visit(f)
    return out
