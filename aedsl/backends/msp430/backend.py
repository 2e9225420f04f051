"""The MSP430 backend: exported IR functions -> selected, allocated, framed, emitted assembly.

Exported functions: a block cipher's key_schedule/encrypt_block/decrypt_block, a scheme's
key_setup/encrypt_with/decrypt_with if it has that stage, else its encrypt/decrypt (other
functions are inlined where they are called or, where the call policy keeps them, subroutines). Parameter words follow
the MSP430 EABI (R12–R15, then the stack); see `driver.Param` for how each IR parameter becomes
words, and docs/BACKENDS.md.

Calls the IR kept become `call #f` to the callee compiled once with a local symbol
(`calls.py`; the convention is the exported functions' one).

Frame (SP grows down; offsets from SP after the prologue):
    [0, 2*out)                  outgoing stack arguments of calls (words 5, 6, … at the CALL)
    then the spill slots (2 bytes each)
    then local arrays (zeroed on entry, as the IR says) and call areas (results, wide arguments)
    then the saved registers, the return address (2 bytes: CALL/RET), the stack arguments.

Long branches: a conditional jump reaches -512..+511 words, so after layout (exact sizes from
the cost model) one out of reach becomes the inverted jump over `br #label` (MOV #label, PC,
any address of the 64 KB space), a `jmp` out of reach becomes `br #label`; repeated until no
size changes (sizes only grow).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from aedsl.ir.nodes import Memory, Module
from aedsl.ir.passes.common import is_size_mode
from aedsl.ir.passes.table_fusion import fused_tables

from aedsl.codegen import accel, copies, dce, reloads, rename, slot_registers
from aedsl.codegen.emit import SpecLines
from aedsl.codegen.calls import IncomingWords, return_in_registers
from aedsl.codegen.fold_copies import fold_copies
from aedsl.codegen.interface import COMMUTE, DCE, JUMPS, REGALLOC, SCHEDULE, Backend, MirContext, MirPass
from aedsl.codegen.unit import BLOCK_ENTRIES, Entry
from aedsl.codegen.mir import Frame, Imm, Inc, Ind, Lbl, Mem, MFunction, MInst, R
from aedsl.codegen.select_base import MemBind, nlimbs
from . import bytepair, peephole, swap
from .accel import make_ports
from .masked_rotations import masked_rotations
from .select import Msp430Selector
from .select.calls import call_symbol, entry_params, returns_in_registers
from .target import ARG_REGS, CALL_CLOBBERS, CG, PC, SP, SR, make_target, reg_name
from .toolchain import TOOLCHAIN, linker_script

TEMPLATES = Path(__file__).parent / "templates"
VERSION = "0.1"
ASM_NAME = {"movb.st": "mov.b", "movio": "mov"}
# knobs of this backend, not of any spec (driver.compile_spec keeps them from the frontend):
# `schedule` = delay-slot scheduling around the accelerator (codegen/accel) or none
BACKEND_KNOBS = {"schedule": ("none", "delay_slot"),
                 # CBC-MAC chaining through the AES256 module's AESAXDIN (codegen/accel/select.py),
                 # or the XOR in software as on a module without it
                 "aes_chain": ("xor_in", "software"),
                 # table strategy of the IR's table_fusion pass (seed 003's AES variants):
                 "aes_tables": ("sbox", "sbox2", "t16x4", "t32x4", "t32x1")}
BACKEND_KNOB_DEFAULTS = {"schedule": "delay_slot", "aes_chain": "xor_in"}


def knob(knobs: dict, name: str) -> str:
    """The value of one of the target's knobs with a fixed default (`BACKEND_KNOB_DEFAULTS`)."""
    return str(knobs.get(name, BACKEND_KNOB_DEFAULTS[name]))


AES_TABLES = {
    "sbox": {"table_fusion": "none"},                       # 8-BIT: S-box only, xtime code
    "sbox2": {"table_fusion": "byte"},                      # 8-BIT-2SBOX: 8-bit tables (S, 2S, 3S)
    "t16x4": {"table_fusion": "full", "word_bits": "16"},   # 16-BIT-4T: 4 x 256 x u16 (2 KB)
    "t32x4": {"table_fusion": "full"},                      # 32-BIT-4T: 4 x 256 x u32 (4 KB)
    "t32x1": {"table_fusion": "rotate"},                    # 32-BIT-1T: 1 table + byte rotations
}
# Spec knob defaults that a table strategy implies (driver.compile_spec applies them when the
# spec has the knob and -k does not set it). Without table fusion the equivalent inverse cipher
# gains nothing (no inverse T-tables) and costs InvMixColumns in the key schedule; the plain one
# with the factored InvMixColumns is faster and smaller (docs/BACKENDS.md, "Why the defaults").
IMPLIED_SPEC_KNOBS = {"aes_tables": {"sbox": {"inv_cipher": "plain"}}}


def implied_spec_knobs(module, chip, knobs: dict) -> dict:
    """The spec knob values IMPLIED_SPEC_KNOBS gives the variant's table strategy."""
    return IMPLIED_SPEC_KNOBS["aes_tables"].get(str(variant_aes_tables(module, chip, knobs)), {})


# table_fusion runs only when asked for (aes_tables or table_fusion knob): see pass_knobs
SKIP_PASSES = frozenset()


# Flash from which a scheme with a software S-box cipher gets the 16-bit T-tables by default
# (2 KB of tables; the trade-off measured: docs/BACKENDS.md, "Why the defaults")
T16_MIN_FLASH = 32 * 1024


def default_aes_tables(module, chip) -> str | None:
    """`t16x4` for a scheme (not a block cipher exported alone: those keep the S-box default
    their budgets and seed tables describe) on a chip with >= T16_MIN_FLASH of flash, when the
    module has a 256-entry byte table (an S-box: what table_fusion turns into T-tables);
    otherwise None (no fusion). A scheme with the AES accelerator or without tables is unchanged."""
    if chip.flash.length < T16_MIN_FLASH or all(module.has_function(n) for n in BLOCK_ENTRIES):
        return None
    if not any(t.elem_width == 8 and t.length == 256 for t in module.tables):
        return None
    return "t16x4"


def variant_aes_tables(module, chip, knobs: dict) -> str | None:
    """The table strategy a variant gets: `-k aes_tables`; None when `table_fusion` or
    `word_bits` are given directly instead; `sbox` in size mode (`opt=size`); otherwise
    `default_aes_tables`, or `sbox` (no fusion: the S-box-only strategy) where there is no default."""
    if "aes_tables" in knobs:
        return knobs["aes_tables"]
    if "table_fusion" in knobs or "word_bits" in knobs:
        return None
    if is_size_mode(knobs):
        return "sbox"                   # size mode: the S-box only (no T-tables)
    return default_aes_tables(module, chip) or "sbox"


def pass_knobs(module, chip, knobs: dict) -> dict:
    """The IR pass knobs of a variant: `aes_tables` selects table_fusion's mode (and word
    legalization at 16 bits for the 16-bit T-tables); without it, `default_aes_tables`, which
    also names the variant (module.knobs) so that its files and bench rows say what was built."""
    k = dict(knobs)
    tables = variant_aes_tables(module, chip, k)
    if "aes_tables" not in k and tables not in (None, "sbox"):    # `sbox` = no fusion, the pass default
        k["aes_tables"] = tables
        module.knobs["aes_tables"] = tables
    if "aes_tables" in k:
        if k["aes_tables"] not in AES_TABLES:
            raise ValueError(f"knob aes_tables={k['aes_tables']!r}: expected one of {', '.join(AES_TABLES)}")
        k.update(AES_TABLES[k["aes_tables"]])
    k.setdefault("table_fusion", "none")
    # word moves need even addresses: align_versioning's test. Off by default: the word path's
    # test is a `bit #1` and a jump, and the aligned copy measured 0.1 % faster for 7 % more
    # ROM (Ascon-128, msp430f1611, AD = M = 1024 B: 908 857 -> 907 975 cycles, +386 B)
    k.setdefault("word_align", "2")
    k.setdefault("align_versioning", "off")
    # the largest byte buffer (its addresses, Msp430Selector.MAX_BUFFER_BYTES) bounds the
    # dividends divconst rewrites: a message length divided by a block size is a word division
    k.setdefault("buffer_bytes", str(Msp430Selector.MAX_BUFFER_BYTES))
    return k


def retry_knobs(module, chip, knobs: dict) -> dict | None:
    """The default T-table strategy (`default_aes_tables`) legalizes at 16 bits for the sake of
    the tables table_fusion makes; where it made none (an S-box whose outputs no linear map
    combines into words: only placed bytes), the legalization costs cycles and ROM for nothing,
    and the variant is built with the S-box strategy instead (a knob `-k aes_tables=...` is
    always kept)."""
    if "aes_tables" in knobs or module.knobs.get("aes_tables") in (None, "sbox"):
        return None
    if fused_tables(module):
        return None
    return {**knobs, "aes_tables": "sbox"}


def _signature(fn) -> tuple:
    return tuple((p.elem_width, p.length) if isinstance(p, Memory) else p.width for p in fn.params), \
        tuple(fn.result_widths)


def select_function(module: Module, fname: str, symbol: str, chip,
                    clobbers: dict | None = None) -> tuple[MFunction, Entry, set]:
    """The interface is the function's before the passes (`module.interfaces`): a legalized
    function (word_bits=16) takes each wide scalar as several u16 parameters and returns several
    u16 results, bound here to the words of the original pointer / out-pointer (the memory layout
    is the same). `clobbers`: what a call of each subroutine compiled so far overwrites."""
    fn = module.function(fname)
    ofn = module.interfaces.get(fname, fn)
    cpux = chip.isa == "msp430x"
    params, results = entry_params(ofn)
    legal = list(fn.params)
    legalized = _signature(fn) != _signature(ofn)
    mf = MFunction(symbol, doc=f"{module.name}.{fname}")
    sel = Msp430Selector(module, mf, module.name, cpux)
    sel.clobbers = dict(clobbers or {})
    sel.configure_accel(chip, knob(module.knobs, "schedule"),     # the AES module, if any
                        knob(module.knobs, "aes_chain"), rolled_keys=is_size_mode(module.knobs))
    vals, mems = {}, {}
    sel.scopes.append((vals, mems))
    words = IncomingWords(sel, ARG_REGS, SP)    # one vreg per incoming word
    word = words.next

    li = 0
    for p, ip in zip(ofn.params, params):
        lp = legal[li]
        li += 1
        if ip.kind == "mem":
            mems[lp] = MemBind("ptr", sel.stride(lp.elem_width), lp.elem_width, base=word(), count=lp.length)
        elif ip.kind == "bytes":
            base = word()
            mems[lp] = MemBind("ptr", 1, 8, base=base, length=[R(word())])
        elif ip.kind == "word":
            vals[lp] = [R(word())]
        else:
            base = word()
            # read-only input words, used in place as memory operands
            limbs = [Ind(base) if j == 0 else Mem(base, 2 * j) for j in range(nlimbs(p.width, 16))]
            if legalized:
                li -= 1
                for limb in limbs:
                    vals[legal[li]] = [limb]
                    li += 1
            else:
                vals[lp] = limbs
    in_regs = returns_in_registers(module, fname, results)
    outs = [word() for _ in results] if not in_regs else []
    sel.bind_locals(fn)
    ys = sel.select_block(fn.body)
    sel.accel_flush()                       # no operation may still run at the return
    sel.materialize_pending()
    if legalized:                           # regroup the u16 results per original result
        flat, ys = [limb for y in ys for limb in y], []
        for w in results:
            ys.append(flat[:nlimbs(w, 16)])
            flat = flat[nlimbs(w, 16):]
    for o, y in zip(outs, ys):
        for j, limb in enumerate(y):
            sel.emit("mov", limb, Mem(o, 2 * j))
    if in_regs:                             # the result words in R12.. (select/calls.py)
        return_in_registers(sel, ARG_REGS, [limb for y in ys for limb in y])
    else:
        sel.emit("ret")
    mf.n_arg_words = len(words.regs)
    mf.walk_regs = sel.walk_regs            # pointers the @Rn+ peephole may rewrite
    mf.counted = sel.counted                # loops whose index may count down
    mf.calls = set(sel.calls)               # functions called as subroutines
    mf.accel_ports = make_ports(chip, make_target(chip).cost)
    entry = Entry(fname, symbol, params, results)
    return mf, entry, sel.used_tables


def _fmt_disp(d, frame: dict) -> str:
    if isinstance(d, Frame):
        if d.kind == "out":
            return str(2 * d.key + d.extra)
        if d.kind == "slot":
            return str(frame["slots"] + 2 * d.key + d.extra)
        if d.kind == "local":
            return str(frame["locals"][d.key] + d.extra)
        if d.kind == "arg":
            return str(frame["args"] + 2 * d.key + d.extra)
    return str(d)


def fmt_operand(op, frame: dict) -> str:
    if isinstance(op, R):
        return reg_name(op.reg)
    if isinstance(op, Imm):
        v = op.value & 0xFFFF
        return "#-1" if v == 0xFFFF else f"#{v}"
    if isinstance(op, Mem):
        if op.base is None:
            return f"&{_fmt_disp(op.disp, frame)}"
        return f"{_fmt_disp(op.disp, frame)}({reg_name(op.base)})"
    if isinstance(op, Ind):
        return f"@{reg_name(op.reg)}"
    if isinstance(op, Inc):
        return f"@{reg_name(op.reg)}+"
    if isinstance(op, Lbl):
        return op.name
    raise ValueError(op)


def resolve(op, frame: dict):
    """The operand with frame references replaced by SP offsets (for the cost model)."""
    if isinstance(op, Mem) and isinstance(op.disp, Frame):
        return Mem(op.base, int(_fmt_disp(op.disp, frame)))
    return op


def _autoincrement(mf: MFunction, ctx: MirContext) -> None:
    if peephole.autoincrement(mf, mf.walk_regs):
        dce.eliminate(mf, ctx.machine)


def _cancel_swaps(mf: MFunction, ctx: MirContext) -> None:
    """Byte-order swaps that cancel (bytewise data paths)."""
    if swap.cancel_swaps(mf, ctx.machine, is_size_mode(ctx.knobs)):
        dce.eliminate(mf, ctx.machine)


def _usable(ctx: MirContext) -> set[int]:
    """Registers the function may take without new saves."""
    target = ctx.machine
    return set(ctx.alloc.used_phys) | (set(target.allocatable) - set(target.callee_saved))


def _reload_runs(mf: MFunction, ctx: MirContext) -> None:
    ctx.alloc.used_phys |= reloads.reload_runs(mf, ctx.machine, _usable(ctx), is_size_mode(ctx.knobs))


def _slot_registers(mf: MFunction, ctx: MirContext) -> None:
    target = ctx.machine
    ctx.alloc.used_phys |= slot_registers.slot_registers(mf, target, _usable(ctx), frozenset(target.allocatable))


def _delay_slots(mf: MFunction, ctx: MirContext) -> None:
    """Independent work moved into the accelerator's delay slots (knob schedule=delay_slot)."""
    if mf.accel_ports is not None and knob(ctx.knobs, "schedule") == "delay_slot":
        accel.schedule_function(mf, ctx.machine, mf.accel_ports)


MIR_PIPELINE = [
    DCE,
    MirPass("autoincrement", _autoincrement),                   # loop pointers -> @Rn+
    MirPass("scale_index", lambda mf, ctx: peephole.scale_index(mf, mf.counted)),   # i << k kept: no shifts
    MirPass("count_down", lambda mf, ctx: peephole.count_down(mf, mf.counted, ctx.machine)),
    MirPass("rebase_index", lambda mf, ctx: peephole.rebase_index(mf, mf.counted)),   # i - hi: exit on zero
    MirPass("autoincrement_straight", lambda mf, ctx: peephole.autoincrement_straight(mf)),  # 0(p), 2(p) -> @p+
    MirPass("cancel_swaps", _cancel_swaps),
    MirPass("delay_slots", _delay_slots),
    MirPass("byte_pairs", lambda mf, ctx: bytepair.split_byte_pairs(mf, ctx.machine)),  # both bytes in 3 insts
    SCHEDULE,
    COMMUTE,
    REGALLOC,
    DCE,
    MirPass("byte_loads", lambda mf, ctx: peephole.byte_loads(mf)),   # bytes of spilled words read in place
    MirPass("slot_registers", _slot_registers),   # a slot living within one block stretch: a free register
    MirPass("reload_runs", _reload_runs),      # a spilled value read several times: once into a free register
    MirPass("rename_copies", lambda mf, ctx: rename.rename_copies(mf, ctx.machine, frozenset(ctx.machine.allocatable))),
    MirPass("redundant_moves", lambda mf, ctx: copies.remove_redundant_moves(mf, ctx.machine)),
    DCE,                                       # reloads whose only reader was deleted
    MirPass("autoincrement_tail", lambda mf, ctx: peephole.autoincrement_tail(mf, ctx.machine)),  # last reads -> @p+
    MirPass("carry_masks", lambda mf, ctx: peephole.carry_masks(mf, ctx.machine)),   # mov #0, d .. subc #0, d -> subc d, d
    MirPass("masked_rotations", lambda mf, ctx: masked_rotations(mf, ctx.machine, ctx.chip.isa == "msp430x")),  # rotl k & M -> shl k
    MirPass("bit_shifts", lambda mf, ctx: peephole.bit_shifts(mf, ctx.machine)),    # bit #1, r .. rra r -> rra r
    MirPass("fold_copies", lambda mf, ctx: fold_copies(mf, ctx.machine)),    # mov x, t; op t, y -> op x, y
    JUMPS,
]


def emit_function(mf: MFunction, ctx: MirContext, lines_src: SpecLines) -> dict:
    """Frame layout, prologue/epilogue, accelerator waits, long branches and the assembly lines of
    an allocated function."""
    target, alloc, cpux = ctx.machine, ctx.alloc, ctx.chip.isa == "msp430x"
    saved = sorted(r for r in alloc.used_phys if r in target.callee_saved)
    if saved and cpux:
        saved = list(range(min(saved), 11))          # pushm saves a contiguous range r10 down
    n_out = mf.n_out
    local_off, off = {}, 2 * (n_out + alloc.n_slots)
    for name, size in mf.locals.items():
        local_off[name] = off
        off += size
    frame_size = off
    frame = {"locals": local_off, "args": frame_size + 2 * len(saved) + 2, "slots": 2 * n_out}
    pro: list[MInst] = []
    epi: list[MInst] = []
    if saved:
        if cpux:
            pro.append(MInst("pushm", [Imm(len(saved)), R(10)]))
            epi.append(MInst("popm", [Imm(len(saved)), R(10)]))
        else:
            for r in reversed(saved):
                pro.append(MInst("push", [R(r)]))
            for r in saved:
                epi.append(MInst("pop", [R(r)]))
    if frame_size:
        pro.append(MInst("sub", [Imm(frame_size), R(SP)]))
        epi.insert(0, MInst("add", [Imm(frame_size), R(SP)]))
    body: list[MInst] = []
    for inst in mf.insts:
        if inst.mn == "ret":
            body.extend(MInst(e.mn, list(e.ops), loc=inst.loc) for e in epi)
        body.append(inst)
    insts = _expand_lea(pro + body, frame)
    for inst in insts:
        # a source operand 0(Rn) is @Rn: one word and one cycle less (the assembler would
        # shorten it anyway; doing it here keeps the cost model exact)
        if len(inst.ops) == 2 and isinstance(inst.ops[0], Mem) and inst.ops[0].base is not None:
            r = resolve(inst.ops[0], frame)
            if r.disp == 0:
                inst.ops[0] = Ind(r.base)
    ports = mf.accel_ports
    if ports is not None:
        # waits covered by the scheduled cycles vanish, the others become BUSY polls
        insts, mf.accel_report = accel.finalize_waits(
            mf.name, insts, target, accel.AccelPorts(
                ports.is_io, lambda i: target.cost(MInst(i.mn, [resolve(o, frame) for o in i.ops]))[1]
                if i.mn not in ("label", "comment", accel.GO, accel.WAIT) else 0, ports.expand_wait),
            mf.label)
    insts = relax_branches(insts, lambda i: target.cost(MInst(i.mn, [resolve(o, frame) for o in i.ops]))[0],
                           mf.label)
    lines, size, last_loc = [], 0, None
    for inst in insts:
        if inst.loc and inst.loc[:2] != last_loc:
            last_loc = inst.loc[:2]
            lines.append(f"\t; {lines_src.comment(inst.loc)}")
        if inst.mn == "label":
            lines.append(f"{inst.ops[0].name}:")
            continue
        nbytes, _ = target.cost(MInst(inst.mn, [resolve(o, frame) for o in inst.ops]))
        size += nbytes
        if inst.mn in ("call", "br"):
            lines.append(f"\t{inst.mn}\t#{inst.ops[0].name}")
            continue
        if inst.mn == "ret":                # its operands only tell liveness what it returns
            lines.append("\tret")
            continue
        mn = ASM_NAME.get(inst.mn, inst.mn)
        if inst.mn in ("pushm", "popm", "rlam", "rram", "rrum"):
            mn += ".w"
        ops = ", ".join(fmt_operand(o, frame) for o in inst.ops)
        lines.append(f"\t{mn}\t{ops}" if ops else f"\t{mn}")
    return {"symbol": mf.name, "doc": mf.doc, "lines": lines, "frame": frame_size, "slots": alloc.n_slots,
            "locals_bytes": frame_size - 2 * (alloc.n_slots + n_out), "saved": ", ".join(reg_name(r) for r in saved),
            "size": size, "n_insts": sum(1 for i in insts if i.mn != "label"),
            "accel": mf.accel_report}


def _expand_lea(insts: list[MInst], frame: dict) -> list[MInst]:
    """`lea` (the address of a frame area or a table) as real instructions, the frame known."""
    out = []
    for inst in insts:
        if inst.mn != "lea":
            out.append(inst)
            continue
        src, dst = inst.ops
        if src.base is None:
            out.append(MInst("mov", [Imm(src.disp), dst], depth=inst.depth, loc=inst.loc))
            continue
        off = int(_fmt_disp(src.disp, frame)) if isinstance(src.disp, Frame) else src.disp
        out.append(MInst("mov", [R(src.base), dst], depth=inst.depth, loc=inst.loc))
        if off:
            out.append(MInst("add", [Imm(off), dst], depth=inst.depth, loc=inst.loc))
    return out


INVERSE_JUMP = {"jz": "jnz", "jnz": "jz", "jc": "jnc", "jnc": "jc"}
JUMP_WORDS = (-512, 511)        # Jcc/JMP: PC + 2 + 2*offset, a signed 10-bit word offset


def relax_branches(insts: list[MInst], size_of, make_label) -> list[MInst]:
    """Jumps whose target is out of the ±1 KB reach become long forms: `jcc L` ->
    `j<inverse> skip; br #L; skip:`, `jmp L` -> `br #L`. Layout is recomputed until no jump
    changes (a long form only grows the code, so this terminates)."""
    long: set[int] = set()
    sizes = [size_of(i) if i.mn not in ("label", "comment") else 0 for i in insts]
    while True:
        addr, labels, pos = 0, {}, []
        for k, inst in enumerate(insts):
            pos.append(addr)
            if inst.mn == "label":
                labels[inst.ops[0].name] = addr
            addr += (6 if inst.mn != "jmp" else 4) if k in long else sizes[k]
        changed = False
        for k, inst in enumerate(insts):
            if k in long or not (inst.mn == "jmp" or inst.mn in INVERSE_JUMP):
                continue
            words = (labels[inst.ops[0].name] - (pos[k] + 2)) // 2
            if not JUMP_WORDS[0] <= words <= JUMP_WORDS[1]:
                long.add(k)
                changed = True
        if not changed:
            break
    if not long:
        return insts
    out = []
    for k, inst in enumerate(insts):
        if k not in long:
            out.append(inst)
            continue
        target = inst.ops[0]
        if inst.mn == "jmp":
            out.append(MInst("br", [target], depth=inst.depth, loc=inst.loc))
            continue
        skip = make_label("near")
        out += [MInst(INVERSE_JUMP[inst.mn], [Lbl(skip)], depth=inst.depth, loc=inst.loc),
                MInst("br", [target], depth=inst.depth, loc=inst.loc),
                MInst("label", [Lbl(skip)], depth=inst.depth, loc=inst.loc)]
    return out


class Msp430Backend(Backend):
    """MSP430 and MSP430X (CPUXV2), 16-bit words, MSP430 EABI."""

    name = "msp430"
    isas = ("msp430", "msp430x")
    word_bits = 16
    data_directives = {1: ".byte", 2: ".word"}
    version = VERSION
    knobs = BACKEND_KNOBS
    knob_defaults = BACKEND_KNOB_DEFAULTS
    skip_passes = SKIP_PASSES
    templates = TEMPLATES
    runtime = "msp430"
    toolchain = TOOLCHAIN

    implied_spec_knobs = staticmethod(implied_spec_knobs)
    pass_knobs = staticmethod(pass_knobs)
    retry_knobs = staticmethod(retry_knobs)
    entry_params = staticmethod(entry_params)
    call_symbol = staticmethod(call_symbol)
    select_function = staticmethod(select_function)
    emit_function = staticmethod(emit_function)
    linker_script = staticmethod(linker_script)

    call_clobbers = CALL_CLOBBERS
    fixed_regs = (PC, SP, SR, CG)

    def machine(self, chip, mf, saves=True):
        target = make_target(chip)
        return target if saves else replace(target, callee_saved=frozenset())

    def mir_pipeline(self, chip, knobs):
        return MIR_PIPELINE


MSP430 = Msp430Backend()
