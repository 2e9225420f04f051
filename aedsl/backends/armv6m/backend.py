"""The ARMv6-M backend: exported IR functions -> selected, allocated, framed, emitted Thumb-1.

Exported functions and their parameters are those of the MSP430 backend (see
`common/driver.Param` and docs/BACKENDS.md), so one C runtime API fits both targets: a fixed
array is a pointer; a `bytes` buffer is (pointer, length); a scalar of up to 32 bits is passed by
value; a wider scalar is a pointer to its little-endian bytes (2*ceil(w/16) of them, 4-byte
aligned), and each result is written through a trailing out-pointer in the same layout (a
subroutine's results of at most four words come back in r0–r3 instead: codegen/calls.py
`returns_in_registers`). Words follow AAPCS: r0–r3, then the stack.

Frame (SP grows down; offsets from SP after the prologue):
    [0, 4*stack_slots)          spill slots that did not fit r12, r8–r11 (and LR in a function
                                that calls none and pushes LR with its saved low registers)
    then the local arrays (zeroed on entry, as the IR says)
    then the saved high registers (r8–r11 used as spill slots), then r4–r7 and LR, then the
    caller's stack arguments.

Emission handles what the assembler would otherwise reject: a conditional branch beyond
±256 bytes becomes an inverted branch over a B (and a B beyond ±2 KB a BL, with LR saved);
literal pools (`ldr rX, =value`) get `.ltorg` islands within the 1 KB LDR reach, branched over
only where no unconditional transfer comes in time, and then outside loops where it can be
(`_place_pools`).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from aedsl.ir.nodes import Module
from aedsl.ir.passes.common import is_size_mode

from aedsl.codegen import copies, dce, kept_spills, reloads, rename, slot_registers
from aedsl.codegen.copy_ahead import copy_ahead
from aedsl.codegen.emit import SpecLines
from aedsl.codegen.liveness import defs_uses
from aedsl.codegen.calls import IncomingWords, return_in_registers
from aedsl.codegen.interface import COMMUTE, DCE, JUMPS, REGALLOC, SCHEDULE, Backend, MirContext, MirPass
from aedsl.codegen.unit import BLOCK_ENTRIES, Entry
from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, MFunction, MInst, R, frame_kind
from aedsl.codegen.select_base import MemBind, nlimbs
from .combine import combine
from .highadd import fold_high_adds, fold_high_compares
from .ldm import merge_loads
from .zero_tests import delete_zero_tests
from .select import ArmSelector, LOAD, STORE
from .select.calls import call_symbol, entry_params, returns_in_registers, wide_bytes
from .target import (ARG_REGS, ASM_NAME, CALL_CLOBBERS, CALLER_HIGH_SLOTS, HIGH_SLOTS, INVERSE, LEAF_HIGH_SLOTS, LR, PC, SP,
                     SP_OFFSET_MAX, SUBROUTINE_HIGH_SLOTS,
                     _shifted8, make_target, reg_name)
from .toolchain import TOOLCHAIN, linker_script

TEMPLATES = Path(__file__).parent / "templates"
# Every IR pass runs, table fusion included (it turns AES's S-box + xtime MixColumns into
# 32-bit T-tables; checked on this target by the FIPS-197/CAVP and differential tests).
SKIP_PASSES = frozenset()
VERSION = "0.1"
BCC_REACH = 250          # B<cond>: -256..+254 bytes from PC+4; keep a margin
B_REACH = 2040           # B: +-2 KB
POOL_REACH = 900         # LDR literal: 1020 bytes forward; the pool itself and relaxation need room


# Flash below which a spec needing both cipher directions gets the 1-table AES variant.
SMALL_FLASH = 32 * 1024


# The call policy's work threshold here (call_policy.MIN_WORK is 600, for MSP430): a 32-bit word op
# is about one Cortex-M0 cycle and a call with AAPCS costs some 40-60, so a callee needs more work
# for the same few per cent (measurements: docs/BACKENDS.md, "Why the defaults").
CALL_MIN_WORK = 1200

# Knobs of this target, not of any spec (driver.compile_spec keeps them from the frontend).
# `placement`: where the unit's tables and code live. `flash` (the default when unset): code in
# .text, tables in .rodata. `tables_ram`: the tables in .data (RAM, their initial image in flash,
# copied by the startup code), so a table lookup pays no flash wait states. `ram`: the code too
# (.data, executable), so instruction fetches pay none either; costs RAM as large as the unit
# and leaves calls from flash code to the linker's long-branch veneers.
BACKEND_KNOBS = {"placement": ("flash", "tables_ram", "ram")}
PLACEMENT_DEFAULT = "flash"


def placement(knobs: dict) -> str:
    return str(knobs.get("placement", PLACEMENT_DEFAULT))


def table_section(knobs: dict, symbol: str) -> str:
    """The assembler section of table `symbol` under the placement knob."""
    if placement(knobs) == "flash":
        return f'.rodata.{symbol},"a",%progbits'
    return f'.data.{symbol},"aw",%progbits'


def code_section(knobs: dict, symbol: str) -> str:
    """The assembler section of function `symbol` under the placement knob."""
    if placement(knobs) == "ram":
        return f'.data.{symbol},"awx",%progbits'
    return f'.text.{symbol},"ax",%progbits'


def _reaches_inverse_cipher(module) -> bool:
    """A scheme entry point reaches a used spec's `decrypt_block`, inlined or called (a block
    cipher compiled alone, which exports its own, does not count)."""
    from aedsl.ir.passes.common import reachable_functions
    names = [f.name for f in reachable_functions(module)]
    return (any(n.rsplit(".", 1)[-1] == "decrypt_block" and "." in n for n in names)
            and not all(n in names for n in BLOCK_ENTRIES))


def implied_spec_knobs(module, chip, knobs: dict) -> dict:
    """Size mode (`opt=size`): GHASH without tables (`ghash=bitwise`, below). Without an
    inverse cipher and without a table strategy asked for, also the software AES's MixColumns on
    packed columns (`aes_mix=words`, a spec knob of the modes over aes.ae), S-box only, no
    T-table: xtime of four bytes in one word and the rows' combinations as rotations, one
    instruction each here (stm32f030 AES-128-CCM, seed 001's workload: 3 330 -> 2 618 B for
    57 352 -> 76 158 cycles). A scheme that decrypts blocks (OCB3) keeps the T-table and its
    inverse (`rotate`): its inverse cipher without tables costs three times the cycles."""
    out = {}
    if is_size_mode(knobs) and "table_fusion" not in knobs and not _reaches_inverse_cipher(module):
        out["aes_mix"] = "words"
    if is_size_mode(knobs):
        # GHASH (gcm.ae `ghash`, ghash.ae `multiply`) without per-key tables: Horner over X's
        # bits, one 128-bit shift and one masked XOR of H a bit. Shoup's tables are 512 bytes
        # of key state (on the caller's stack through crypto_aead_*) and their code; bitwise, on
        # stm32f030 AES-128-GCM (seed 001's workload), 3 228 -> 2 780 B and stack 1 260 -> 692 B
        # for 63 474 -> 152 390 cycles (Cifra's bitwise GHASH: 327 313).
        out["ghash"] = "bitwise"
    return out


def pass_knobs(module, chip, knobs: dict) -> dict:
    """The call policy is the IR's default (`inline=auto`: AES a subroutine where a mode calls it
    from several places, the key-setup stage exported with the policy applied inside it).
    The table budget follows the flash: a scheme that needs the inverse cipher too (OCB3) has
    two sets of four 1 KB T-tables, which with the code overflow 16 KB, so on a small part the
    default is `table_fusion=rotate` (one stored table per set, the others as byte rotations).
    Size mode (`opt=size`) takes `rotate` on any part, or no table at all where the spec's AES
    mixes packed columns (`aes_mix=words`: `implied_spec_knobs`), which table fusion has nothing
    to make tables of."""
    k = dict(knobs)
    k.setdefault("call_min_work", str(CALL_MIN_WORK))
    # a table read (LDR: 2 cycles, and a base register) costs what the few ALU ops of a
    # round constant's splitting do: only closed recurrences become tables
    k.setdefault("recurrence_tables", "recurrences")
    # a table read at the loop index (base register + LDRB, 4-5 cycles with the counter's
    # increment) against a carried value stepped in a register the loop counts with
    # (ir/passes/affine_tables.py): Ascon-128 on stm32f030, seed 001's workload,
    # 45 392 -> 44 296 cycles, 2 576 -> 2 552 B
    k.setdefault("affine_tables", "on")
    # a recurrence table's fields that never share a bit share an entry: one LDR and a UXTB
    # for two LDRs (Spongent-π[160]: 37 989 -> 37 909 cycles, 1 550 -> 1 390 B)
    k.setdefault("record_packing", "on")
    # LDR/STR of a word fault on an unaligned address on ARMv6-M: align_versioning's test
    k.setdefault("word_align", "4")
    if "table_fusion" not in k and str(module.knobs.get("aes_mix")) == "words":
        k["table_fusion"] = "none"
    if "table_fusion" not in k and is_size_mode(k):
        k["table_fusion"] = "rotate"        # size mode: one T-table per direction + rotations
    if "table_fusion" not in k and chip.flash.length < SMALL_FLASH and _reaches_inverse_cipher(module):
        k["table_fusion"] = "rotate"
    return k


def _wide_access(sel: ArmSelector, store: bool, base: int, width: int, limbs=None) -> list:
    """Load (or store) a wide scalar at [base]: whole words, then a halfword for a 16-bit tail."""
    nbytes = wide_bytes(width)
    out = []
    for j in range(nlimbs(width, 32)):
        size = min(4, nbytes - 4 * j)
        mn = (STORE if store else LOAD)[size]
        if store:
            sel.emit(mn, sel.reg(limbs[j]), Mem(base, 4 * j))
        else:
            r = sel.fresh()
            sel.emit(mn, r, Mem(base, 4 * j))
            out.append(r)
    return out


def select_function(module: Module, fname: str, symbol: str,
                    clobbers: dict | None = None) -> tuple[MFunction, Entry, set]:
    """Selection of one function; its interface is its IR signature (no word legalization on
    a 32-bit target). `clobbers`: what a call of each subroutine compiled so far overwrites."""
    fn = module.function(fname)
    params, results = entry_params(fn)
    mf = MFunction(symbol, doc=f"{module.name}.{fname}")
    sel = ArmSelector(module, mf, module.name)
    sel.clobbers = dict(clobbers or {})
    vals, mems = {}, {}
    sel.scopes.append((vals, mems))
    words = IncomingWords(sel, ARG_REGS, SP)    # one vreg per incoming word
    word = words.next

    wide = []
    for p, ip in zip(fn.params, params):
        if ip.kind == "mem":
            mems[p] = MemBind("ptr", ip.stride, p.elem_width, base=word(), count=p.length)
        elif ip.kind == "bytes":
            base = word()
            mems[p] = MemBind("ptr", 1, 8, base=base, length=[R(word())])
        elif ip.kind == "word":
            vals[p] = [R(word())]
        else:
            wide.append((p, word()))
    in_regs = returns_in_registers(module, fname, results)
    outs = [word() for _ in results] if not in_regs else []
    for p, base in wide:
        vals[p] = _wide_access(sel, False, base, p.width)
    sel.bind_locals(fn)
    ys = sel.select_block(fn.body)
    sel.materialize_pending()
    for o, y, w in zip(outs, ys, results):
        if w <= 32:
            sel.emit(STORE[min(4, wide_bytes(w))], sel.reg(y[0]), Mem(o, 0))
        else:
            _wide_access(sel, True, o, w, y)
    if in_regs:                             # the result words in r0.. (select/calls.py)
        return_in_registers(sel, ARG_REGS, [sel.reg(limb) for y in ys for limb in y])
    else:
        sel.emit("ret")
    mf.n_arg_words = len(words.regs)
    mf.calls = set(sel.calls)
    return mf, Entry(fname, symbol, params, results), sel.used_tables


# --- frame, emission -------------------------------------------------------------------------

def _frame_off(d: Frame, frame: dict) -> int:
    if d.kind == "out":
        return 4 * d.key + d.extra
    if d.kind == "slot":
        return frame["slots"] + 4 * d.key + d.extra
    if d.kind == "local":
        return frame["locals"][d.key] + d.extra
    if d.kind == "arg":
        return frame["args"] + 4 * d.key + d.extra
    raise ValueError(d)


def _mem(op: Mem, frame: dict) -> str:
    disp = _frame_off(op.disp, frame) if isinstance(op.disp, Frame) else op.disp
    if op.base == SP and not (0 <= disp <= SP_OFFSET_MAX and disp % 4 == 0):
        raise ValueError(f"stack offset {disp} out of reach of SP-relative LDR/STR (frame too large)")
    return f"[{reg_name(op.base)}, #{disp}]" if disp else f"[{reg_name(op.base)}]"


def _imm_lines(v: int, rd: str) -> tuple[list[str], int]:
    """Assembly putting constant v in rd, and how many literal-pool words it needs."""
    v &= 0xFFFFFFFF
    if v < 256:
        return [f"movs\t{rd}, #{v}"], 0
    if (~v & 0xFFFFFFFF) < 256:
        return [f"movs\t{rd}, #{~v & 0xFFFFFFFF}", f"mvns\t{rd}, {rd}"], 0
    sh = _shifted8(v)
    if sh is not None:
        return [f"movs\t{rd}, #{sh[0]}", f"lsls\t{rd}, {rd}, #{sh[1]}"], 0
    return [f"ldr\t{rd}, ={v:#010x}"], 1


def render_inst(inst: MInst, frame: dict) -> tuple[list[str], object]:
    """Assembly lines of one instruction and its literal (a value or symbol needing a pool
    word, or None)."""
    mn, ops = inst.mn, inst.ops
    rn = lambda o: reg_name(o.reg)  # noqa: E731
    if mn == "mov":
        s, d = ops
        if isinstance(d, Mem):
            return [f"str\t{rn(s)}, {_mem(d, frame)}"], None
        if isinstance(s, Imm):
            lines, pool = _imm_lines(s.value, rn(d))
            return lines, (s.value & 0xFFFFFFFF) if pool else None
        if isinstance(s, Mem):
            return [f"ldr\t{rn(d)}, {_mem(s, frame)}"], None
        return [f"mov\t{rn(d)}, {rn(s)}"], None
    if mn == "ldaddr":
        return [f"ldr\t{rn(ops[0])}, ={ops[1].name}"], ops[1].name
    if mn == "addsp":
        off = _frame_off(ops[1].disp, frame)
        if not (0 <= off <= SP_OFFSET_MAX and off % 4 == 0):
            raise ValueError(f"local at stack offset {off} out of reach of ADD rd, sp, #imm")
        return [f"add\t{rn(ops[0])}, sp, #{off}"], None
    if mn in ("push", "pop"):
        return [f"{mn}\t{{{', '.join(reg_name(o.reg) for o in ops)}}}"], None
    if mn == "ldm":
        if [o.reg for o in ops[1:]] != sorted(o.reg for o in ops[1:]):
            raise ValueError(f"ldm register list out of order: {', '.join(rn(o) for o in ops[1:])}")
        wb = "" if ops[0] in ops[1:] else "!"
        return [f"ldm\t{rn(ops[0])}{wb}, {{{', '.join(rn(o) for o in ops[1:])}}}"], None
    if mn in ("subsp", "addspi"):
        return [f"{'sub' if mn == 'subsp' else 'add'}\tsp, #{ops[0].value}"], None
    if mn == "bx":
        return ["bx\tlr"], None
    if mn == "bl":
        return [f"bl\t{ops[0].name}"], None
    if mn in ("rsbs",):
        return [f"rsbs\t{rn(ops[0])}, {rn(ops[1])}, #0"], None
    asm = ASM_NAME.get(mn, mn)
    if mn in ("ldrr", "ldrhr", "ldrbr", "strr", "strhr", "strbr"):
        return [f"{asm}\t{rn(ops[0])}, [{rn(ops[1])}, {rn(ops[2])}]"], None
    parts = []
    for o in ops:
        if isinstance(o, R):
            parts.append(rn(o))
        elif isinstance(o, Imm):
            parts.append(f"#{o.value}")
        elif isinstance(o, Mem):
            parts.append(_mem(o, frame))
        elif isinstance(o, Lbl):
            parts.append(o.name)
    return [f"{asm}\t{', '.join(parts)}" if parts else asm], None


def _layout(items) -> tuple[dict, list[int]]:
    """Byte addresses of labels and of each item (item = (kind, payload, size))."""
    addr, labels, pos = 0, {}, []
    for kind, payload, size in items:
        pos.append(addr)
        if kind == "label":
            labels[payload] = addr
        addr += size
    return labels, pos


LOW = frozenset(range(8))                                       # copies renamed between r0-r7
BARRIERS = frozenset({"bl", "push", "pop", "ret", "bx"})


def _in_place(inst: MInst, target, r: int) -> bool:
    """`ldm rN!, {..}` updates its base in place (unless the base is in the list)."""
    if inst.mn == "ldm":
        return inst.ops[0] == R(r) and R(r) not in inst.ops[1:]
    return rename.in_place(inst, target, r)


def rename_copies(mf: MFunction, target) -> int:
    """Low-register copies whose source dies, renamed away (codegen/rename.py)."""
    return rename.rename_copies(mf, target, LOW, BARRIERS, _in_place)


def _reload_runs(mf: MFunction, ctx: MirContext) -> None:
    """A spill slot reloaded several times in a block into low registers that something else
    overwrites between the reloads: loaded once into a low register free over those accesses,
    the reloads become copies the renaming removes (codegen/reloads.py; a slot the emission
    puts in a high register gains nothing, and the cost model sees a slot as a stack word)."""
    ctx.alloc.used_phys |= reloads.reload_runs(mf, ctx.machine, _low_usable(ctx), is_size_mode(ctx.knobs))


def _low_usable(ctx: MirContext) -> set[int]:
    """The low registers the function may take without new saves."""
    target = ctx.machine
    return (set(ctx.alloc.used_phys) | (set(target.allocatable) - set(target.callee_saved))) & LOW


def _slot_registers(mf: MFunction, ctx: MirContext) -> None:
    """A spill slot living within one stretch of a block carried by idle low registers
    (codegen/slot_registers.py)."""
    ctx.alloc.used_phys |= slot_registers.slot_registers(mf, ctx.machine, _low_usable(ctx), LOW, BARRIERS)


def _kept_spills(mf: MFunction, ctx: MirContext) -> None:
    """A low register holding a spilled value kept over a short overwrite, the overwrite moved
    to an idle low register, so the reload after it goes (codegen/kept_spills.py)."""
    ctx.alloc.used_phys |= kept_spills.keep_spilled(mf, ctx.machine, LOW, _low_usable(ctx), BARRIERS)


MIR_PIPELINE = [
    DCE,
    MirPass("combine", lambda mf, ctx: combine(mf, ctx.machine)),     # fold shift chains (combine.py)
    SCHEDULE,
    COMMUTE,
    REGALLOC,
    DCE,
    MirPass("slot_registers", _slot_registers),   # a slot living within one block stretch: idle registers
    MirPass("reload_runs", _reload_runs),      # a slot reloaded several times: once into a free register
    MirPass("reload_copies", lambda mf, ctx: peephole(mf)),     # a spill reloaded at once -> a copy
    MirPass("kept_spills", lambda mf, ctx: _kept_spills(mf, ctx)),   # a spill kept over a short overwrite
    MirPass("redundant_moves", lambda mf, ctx: copies.remove_redundant_moves(mf, ctx.machine)),
    DCE,                                       # (a reload a register still holds -> a copy, or gone)
    MirPass("rename_copies", lambda mf, ctx: rename_copies(mf, ctx.machine)),   # codegen/rename.py
    MirPass("ldm", lambda mf, ctx: merge_loads(mf, ctx.machine)),  # word-load runs -> LDM (ldm.py)
    MirPass("zero_tests", lambda mf, ctx: delete_zero_tests(mf, ctx.machine)),  # cmp #0 after its flags (zero_tests.py)
    JUMPS,
]


def _place_pools(items: list, name: str) -> list:
    """The items with literal-pool islands inserted: after an unconditional transfer once the
    pending literals are a third of the LDR reach away, else, before they go out of reach,
    branched over (`b` past the pool) at the point of least loop depth since the first of them
    (the latest such point), so that no loop body pays for the branch where it need not; the
    literals loaded after that point wait for the next island (LDR reaches forward only)."""
    out, n_island = [], 0
    pending: dict = {}                        # literal -> indices in out of its loads
    since = 0                                 # bytes after the first pending literal's load
    for it in items:
        out.append(it)
        if it[0] != "inst":
            continue
        lines, lit, inst = it[1]
        since += it[2] if pending else 0
        if lit is not None:
            pending.setdefault(lit, []).append(len(out) - 1)
        if not pending:
            continue
        ends = inst.mn in ("jmp", "bx") or (inst.mn == "pop" and R(PC) in inst.ops)
        if ends and since + 4 * len(pending) > POOL_REACH // 3:
            out.append(("pool", None, 4 * len(pending) + 2))
            pending, since = {}, 0
        elif since + 4 * len(pending) > POOL_REACH:
            # insert before out[j]: j after the first pending load, the instruction before it
            # of least depth (a loop body's branch over the pool runs every iteration)
            first = min(min(u) for u in pending.values())
            cands = [j for j in range(first + 1, len(out) + 1) if out[j - 1][0] == "inst"]
            j = min(cands, key=lambda j: (out[j - 1][1][2].depth, -j))
            n_island += 1
            lbl = f".L{name}_pool{n_island}"
            n_taken = sum(1 for u in pending.values() if min(u) < j)
            island = [("inst", ([f"b\t{lbl}"], None, MInst("jmp", [Lbl(lbl)])), 2),
                      ("pool", None, 4 * n_taken + 2), ("label", lbl, 0)]
            out[j:j] = island
            pending = {v: [k + len(island) for k in u if k >= j] for v, u in pending.items()}
            pending = {v: u for v, u in pending.items() if u}
            first = min((min(u) for u in pending.values()), default=None)
            since = sum(x[2] for x in out[first + 1:]) if first is not None else 0
    return out


def emit_function(mf: MFunction, ctx: MirContext, lines_src: SpecLines) -> dict:
    """Spill slots placed (high registers, stack words), frame, literal pools, long branches and
    the assembly lines of an allocated function. A function that calls saves LR."""
    info = _emit(mf, ctx.machine, ctx.alloc, lines_src, force_lr=bool(mf.calls))
    info["section"] = code_section(ctx.knobs, mf.name)
    return info


def _slot_of(op):
    return op.disp.key if frame_kind(op) == "slot" else None


def _arg_copies(insts, target) -> dict[int, tuple[int, Mem]]:
    """Spill slots that copy an incoming stack argument word: slot k -> (index of its one store,
    the word), where the store `mov rX -> slot k` is the slot's only definition, rX was loaded
    from the word (`mov arg_j -> rX`) earlier in the same straight-line code, and that load is
    the function's only reference to the word. Such a slot that gets no high register lives in
    the word itself (the caller reads its outgoing arguments no more; nothing here writes the
    word): no stack word, no store. The allocator's `Target.arg_homes` does this before slots
    are placed, which on Thumb-1 would keep the value from a high register."""
    refs: dict = {}
    for inst in insts:
        for op in inst.ops:
            if frame_kind(op) == "arg":
                refs[op] = refs.get(op, 0) + 1
    stores: dict[int, list[int]] = {}
    for i, inst in enumerate(insts):
        k = _slot_of(inst.ops[1]) if inst.mn == "mov" else None
        if k is not None:
            stores.setdefault(k, []).append(i)
    out = {}
    for k, sites in stores.items():
        st = insts[sites[0]]
        if len(sites) != 1 or not isinstance(st.ops[0], R) or st.ops[1].disp.extra:
            continue
        reg = st.ops[0].reg
        for inst in reversed(insts[:sites[0]]):
            d = target.desc(inst)
            if inst.mn == "label" or d.branch or d.memory == "call":
                break
            if reg in defs_uses(inst, target)[0]:
                w = inst.ops[0]
                if (inst.mn == "mov" and inst.ops[1] == R(reg) and frame_kind(w) == "arg" and not w.disp.extra
                        and refs.get(w) == 1):
                    out[k] = (sites[0], w)
                break
    return out


def _call_clobbers(bl: MInst) -> set[int]:
    """The registers a `bl` overwrites (its operands after the symbol and the four argument
    positions: target.INSTRS["bl"])."""
    return {o.reg for o in bl.ops[5:] if isinstance(o, R)}


def place_slots(mf: MFunction, target, high: tuple) -> tuple[int, list[int], bool]:
    """Place the allocator's spill slots (each spilled value has its own): the most used ones
    (accesses weighted by loop depth) in the high registers `high` (a 1-cycle MOV instead of a
    2-cycle LDR/STR), the rest in stack words; slots whose live ranges do not overlap share a
    register or word. Liveness of slots is computed like that of registers: a store defines, a
    load uses. A slot that only copies an incoming stack argument word and gets no high register
    lives in that word (`_arg_copies`). Returns (stack words needed, high registers used, whether
    a copy into an argument word was deleted: its load may be dead now)."""
    from aedsl.codegen.liveness import Cfg, block_liveness
    insts = mf.insts
    du = []
    weight: dict[int, float] = {}
    for inst in insts:
        d, u = [], []
        if inst.mn == "mov":
            ks, kd = _slot_of(inst.ops[0]), _slot_of(inst.ops[1])
            if ks is not None:
                u.append(ks)
            if kd is not None:
                d.append(kd)
        for k in d + u:
            weight[k] = weight.get(k, 0) + 8.0 ** min(inst.depth, 6)
        du.append((d, u))
    slots = set(weight)
    if not slots:
        return 0, [], False
    cfg = Cfg(insts, target)
    live_out = block_liveness(cfg, du, lambda k: True)
    adj = {k: set() for k in slots}
    banned: dict[int, set[int]] = {}    # slot -> high registers a call it lives across overwrites
    dead: set[int] = set()              # stores to a slot that is overwritten before any load
    for bi, (a, b) in enumerate(cfg.blocks):
        live = set(live_out[bi])
        for i in range(b - 1, a - 1, -1):
            if insts[i].mn == "bl":
                for x in live:
                    banned.setdefault(x, set()).update(_call_clobbers(insts[i]))
            d, u = du[i]
            if d and not u and not any(x in live for x in d):
                dead.add(i)
            for x in d:
                for y in live:
                    if x != y:
                        adj[x].add(y)
                        adj[y].add(x)
            live.difference_update(d)
            live.update(u)
    mf.insts = insts = [inst for i, inst in enumerate(insts) if i not in dead]
    slots = {k for i, (d, u) in enumerate(du) if i not in dead for k in d + u}
    if not slots:
        return 0, [], False
    arg_copy = _arg_copies(insts, target)
    place: dict[int, object] = {}
    for k in sorted(slots, key=lambda k: (-weight[k], k)):
        taken = {place[n] for n in adj[k] if n in place}
        # a callee-saved high register costs its save and restore: worth it for a used slot
        h = next((r for r in high if ("r", r) not in taken and r not in banned.get(k, ())
                  and (r not in target.callee_saved or weight[k] > 4)), None)
        if h is not None:
            place[k] = ("r", h)
        elif k in arg_copy:
            place[k] = ("a", arg_copy[k][1])
        else:
            place[k] = ("s", next(c for c in range(len(slots)) if ("s", c) not in taken))
    # a slot living in its incoming argument word: the copy into it goes
    drop = {arg_copy[k][0] for k, (kind, _) in place.items() if kind == "a"}

    def sub(op):
        k = _slot_of(op)
        if k is None:
            return op
        kind, n = place[k]
        return R(n) if kind == "r" else n if kind == "a" else Mem(op.base, Frame("slot", n, op.disp.extra))

    mf.insts = insts = [inst for i, inst in enumerate(insts) if i not in drop]
    for inst in insts:
        inst.ops = [sub(o) for o in inst.ops]
    stack = [n for kind, n in place.values() if kind == "s"]
    used_high = sorted({n for kind, n in place.values() if kind == "r"})
    return (1 + max(stack)) if stack else 0, used_high, bool(drop)


def _high_slots(mf: MFunction, target, alloc, force_lr: bool, lr_slot: bool = True) -> tuple:
    """The high registers spill slots may take: r8-r11 in a function that calls (a call clobbers
    r12); r8-r12 and LR in a leaf that pushes LR anyway (it saves low registers; `lr_slot`);
    r8-r12, then LR, in a leaf subroutine that saves nothing (`subroutine_saves=caller`: its
    machine has no callee-saved register; LR costs a push and a pop, so it comes last);
    else r8-r12."""
    low_saved = [r for r in alloc.used_phys if r in target.callee_saved]
    if not target.callee_saved and not mf.calls and lr_slot:
        return SUBROUTINE_HIGH_SLOTS
    lr_slot = lr_slot and bool(low_saved or force_lr)
    return CALLER_HIGH_SLOTS if mf.calls else LEAF_HIGH_SLOTS if lr_slot else HIGH_SLOTS


def final_form(mf: MFunction, target, alloc) -> MFunction:
    """A copy of an allocated function with its spill slots placed as `_emit` places them (the
    most used in high registers: 1-cycle copies, not 2-cycle loads and stores) and the copies
    that leaves redundant removed: what a schedule's spills cost here, for the MIR pipeline's
    judge (`Target.final_form`; the saves of callee-saved registers are not counted)."""
    out = mf.clone()
    _place(out, target, _high_slots(out, target, alloc, force_lr=bool(mf.calls)))
    return out


def _place(mf: MFunction, target, high: tuple) -> tuple[int, list[int]]:
    """`place_slots`, then the copies and dead code it leaves removed and high-register adds
    folded; returns (stack words, high registers used)."""
    stack_slots, high_regs, homed = place_slots(mf, target, high)
    # a stack slot's stretch within a block carried by high registers idle over it (the slots
    # placed in them have gaps: a value written mid-loop and read at the next turn's start):
    # the 2-cycle STR/LDR become 1-cycle MOVs; only registers already saved, or needing no save
    usable = set(high_regs) | {r for r in high if r not in target.callee_saved}
    taken = slot_registers.slot_registers(mf, target, usable, frozenset(high), BARRIERS, order=high,
                                          extra_bytes=4)
    high_regs = sorted(set(high_regs) | taken)
    # a stack slot read again, its value still in a register updated in place since: copied to
    # the reload's register at once (only stack words are left: a high-register slot's reload
    # costs what the copy would)
    copy_ahead(mf, target, LOW, BARRIERS)
    if copies.remove_redundant_moves(mf, target) or homed:  # slots in high registers are registers now
        # reloads whose only reader was deleted, stores to a slot register nothing reads, loads
        # of argument words that were only copied to a slot now living in the word
        dce.eliminate(mf, target, extra=high_regs)
    fold_high_adds(mf, target)                      # mov rT, rH; adds rD, rT, rK -> add rK, rH
    fold_high_compares(mf, target)                  # mov rT, rH; cmp rX, rT -> cmp rX, rH
    return stack_slots, high_regs


def peephole(mf: MFunction) -> None:
    """Spill code leaves `mov x -> slot` followed at once by `mov slot -> y` (a value stored and
    reloaded): the reload becomes a register copy, or disappears when y is x."""
    out: list[MInst] = []
    for inst in mf.insts:
        prev = out[-1] if out else None
        if (inst.mn == "mov" and prev is not None and prev.mn == "mov" and isinstance(prev.ops[0], R)
                and inst.ops[0] == prev.ops[1] and isinstance(inst.ops[1], R)
                and (isinstance(prev.ops[1], Mem) or prev.ops[1].reg in LEAF_HIGH_SLOTS)):
            if inst.ops[1] == prev.ops[0]:
                continue
            inst = MInst("mov", [prev.ops[0], inst.ops[1]], depth=inst.depth, loc=inst.loc)
        out.append(inst)
    mf.insts = out


def _emit(mf, target, alloc, lines_src, force_lr=False, lr_slot=True) -> dict:
    # what the calls overwrite of the callee-saved registers is saved too (a subroutine that
    # saves nothing itself: `Backend.clobbered`)
    clobbered = {r for i in mf.insts if i.mn == "bl" for r in _call_clobbers(i)}
    low_saved = sorted(r for r in set(alloc.used_phys) | clobbered if r in target.callee_saved and r in LOW)
    high = _high_slots(mf, target, alloc, force_lr, lr_slot)
    before = mf.clone() if LR in high else None
    stack_slots, high_regs = _place(mf, target, high)
    high_used = sorted(r for r in set(high_regs) | clobbered if r in target.callee_saved and r not in LOW)
    n_out = mf.n_out
    if high_used:
        low_saved = sorted(set(low_saved) | set(range(4, 4 + len(high_used))))
    push_lr = bool(low_saved) or force_lr or LR in high_regs
    local_off, off = {}, 4 * (n_out + stack_slots)
    for name, size in mf.locals.items():
        local_off[name] = off
        off += size
    frame_size = off
    n_pushed = len(low_saved) + (1 if push_lr else 0) + len(high_used)
    frame = {"locals": local_off, "args": frame_size + 4 * n_pushed, "slots": 4 * n_out}
    pro: list[MInst] = []
    epi: list[MInst] = []
    if push_lr:
        pro.append(MInst("push", [R(r) for r in low_saved] + [R(LR)]))
    if high_used:
        tmp = [R(4 + i) for i in range(len(high_used))]
        for t, h in zip(tmp, high_used):
            pro.append(MInst("mov", [R(h), t]))
        pro.append(MInst("push", tmp))
        epi.append(MInst("pop", tmp))
        for t, h in zip(tmp, high_used):
            epi.append(MInst("mov", [t, R(h)]))
    rest = frame_size
    while rest:
        step = min(rest, 508)
        pro.append(MInst("subsp", [Imm(step)]))
        epi.insert(0, MInst("addspi", [Imm(step)]))
        rest -= step
    epi.append(MInst("pop", [R(r) for r in low_saved] + [R(PC)]) if push_lr else MInst("bx", []))
    insts: list[MInst] = list(pro)
    for inst in mf.insts:
        if inst.mn == "ret":
            insts.extend(MInst(e.mn, list(e.ops), loc=inst.loc) for e in epi)
        else:
            insts.append(inst)

    # items: ("inst", (lines, literal, inst), size) | ("label", name, 0) | ("comment", text, 0)
    items = []
    last_loc = None
    for inst in insts:
        if inst.loc and inst.loc[:2] != last_loc:
            last_loc = inst.loc[:2]
            items.append(("comment", lines_src.comment(inst.loc), 0))
        if inst.mn == "label":
            items.append(("label", inst.ops[0].name, 0))
            continue
        lines, lit = render_inst(inst, frame)
        # BL is one line but two halfwords (a 32-bit Thumb instruction)
        items.append(("inst", (lines, lit, inst), 2 * len(lines) + (2 if inst.mn == "bl" else 0)))
    # literal-pool islands: after an unconditional transfer when possible, else branched over
    items = _place_pools(items, mf.name)
    # branch relaxation, to a fixed point (sizes only grow): a B<cond> out of reach becomes
    # "b<inverse> skip; b target" ("near", 4 bytes) or "b<inverse> skip; bl target" ("far",
    # 6 bytes); a B out of reach becomes BL ("far", 4 bytes). BL clobbers LR, so it must be saved.
    long_form: dict[int, str] = {}

    def size_of(i, s):
        f = long_form.get(i)
        if f is None:
            return s
        jmp = items[i][1][2].mn == "jmp"
        return 4 if (jmp or f == "near") else 6

    while True:
        labels, pos = _layout([(k, p, size_of(i, s)) for i, (k, p, s) in enumerate(items)])
        changed = False
        for i, (kind, payload, _) in enumerate(items):
            if kind != "inst" or long_form.get(i) == "far":
                continue
            inst = payload[2]
            if inst.mn == "jmp" or (inst.mn.startswith("b") and inst.mn[1:] in INVERSE):
                dist = labels[inst.ops[0].name] - (pos[i] + 4)
                if inst.mn != "jmp" and i not in long_form and not -BCC_REACH <= dist <= BCC_REACH:
                    long_form[i] = "near"
                    changed = True
                if not -B_REACH <= dist <= B_REACH:
                    long_form[i] = "far"
                    changed = True
        if not changed:
            break
    if any(f == "far" for f in long_form.values()) and LR in high_regs:
        # the BL of a far branch writes LR: place the slots again without it
        mf.__dict__.update(before.__dict__)
        return _emit(mf, target, alloc, lines_src, force_lr=True, lr_slot=False)
    if any(f == "far" for f in long_form.values()) and not push_lr:
        return _emit(mf, target, alloc, lines_src, force_lr=True)
    lines, size, n_skip = [], 0, 0
    for i, (kind, payload, s) in enumerate(items):
        if kind == "comment":
            lines.append(f"\t@ {payload}")
        elif kind == "label":
            lines.append(f"{payload}:")
        elif kind == "pool":
            lines.append("\t.ltorg")
            size += s
        else:
            text, lit, inst = payload
            if i in long_form:
                tgt = inst.ops[0].name
                jump = "bl" if long_form[i] == "far" else "b"      # LR is saved when "far"
                if inst.mn == "jmp":
                    text = [f"{jump}\t{tgt}"]
                else:
                    n_skip += 1
                    skip = f".L{mf.name}_far{n_skip}"
                    text = [f"b{INVERSE[inst.mn[1:]]}\t{skip}", f"{jump}\t{tgt}", f"{skip}:"]
            for t in text:
                lines.append(t if t.endswith(":") else f"\t{t}")
            size += size_of(i, target.cost(inst)[0])
    saved_names = [reg_name(r) for r in low_saved + high_used]
    return {"symbol": mf.name, "doc": mf.doc, "lines": lines, "frame": frame_size, "slots": alloc.n_slots,
            "stack_slots": stack_slots, "locals_bytes": frame_size - 4 * (stack_slots + n_out),
            "saved": ", ".join(saved_names), "size": size,
            "n_insts": sum(1 for k, _, _ in items if k == "inst")}


class ArmV6MBackend(Backend):
    """ARMv6-M (Thumb-1, Cortex-M0/M0+), 32-bit words, AAPCS."""

    name = "armv6m"
    isas = ("armv6m",)
    word_bits = 32
    data_directives = {1: ".byte", 2: ".short", 4: ".word"}
    version = VERSION
    knobs = BACKEND_KNOBS
    knob_defaults = {"placement": PLACEMENT_DEFAULT}
    skip_passes = SKIP_PASSES
    templates = TEMPLATES
    runtime = "armv6m"
    toolchain = TOOLCHAIN

    pass_knobs = staticmethod(pass_knobs)
    implied_spec_knobs = staticmethod(implied_spec_knobs)
    entry_params = staticmethod(entry_params)
    call_symbol = staticmethod(call_symbol)
    emit_function = staticmethod(emit_function)
    linker_script = staticmethod(linker_script)

    call_clobbers = CALL_CLOBBERS
    fixed_regs = (SP, PC)

    def machine(self, chip, mf, saves=True):
        target = make_target(chip, calls=bool(mf.calls))
        if not saves:
            target = replace(target, callee_saved=frozenset())
        return replace(target, final_form=lambda allocated, alloc: final_form(allocated, target, alloc))

    def table(self, module, name, prefix):
        info = super().table(module, name, prefix)
        info["section"] = table_section(module.knobs, info["symbol"])
        return info

    def select_function(self, module, fname, symbol, chip, clobbers=None):
        return select_function(module, fname, symbol, clobbers)

    def mir_pipeline(self, chip, knobs):
        return MIR_PIPELINE


ARMV6M = ArmV6MBackend()
