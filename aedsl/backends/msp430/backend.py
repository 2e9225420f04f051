"""The MSP430 backend: exported IR functions -> selected, allocated, framed, emitted assembly.

Exported functions: a block cipher's key_schedule/encrypt_block/decrypt_block, a scheme's
encrypt/decrypt (other functions are inlined where they are called). Parameter words follow
the MSP430 EABI (R12–R15, then the stack); see `driver.Param` for how each IR parameter becomes
words, and docs/BACKENDS.md.

Frame (SP grows down; offsets from SP after the prologue):
    [0, 2*slots)                spill slots
    [2*slots, 2*slots+locals)   local arrays (zeroed on entry, as the IR says)
    then the saved registers, the return address (2 bytes: CALL/RET), the stack arguments.
"""
from __future__ import annotations

from pathlib import Path

from aedsl.ir.nodes import Memory, Module

from ..common import dce, regalloc
from ..common.driver import AEAD_ENTRIES, BLOCK_ENTRIES, Compiled, Entry, Param, variant_stem
from ..common.emit import SpecLines, render
from ..common.mir import Frame, Imm, Inc, Ind, Lbl, Mem, MFunction, MInst, R
from ..common.select_base import MemBind, nlimbs
from .select import Msp430Selector
from .target import ARG_REGS, SP, make_target, reg_name

TEMPLATES = Path(__file__).parent / "templates"
VERSION = "0.1"
ASM_NAME = {"movb.st": "mov.b"}


def exported(module: Module) -> list[str]:
    names = [f.name for f in module.functions]
    if all(n in names for n in BLOCK_ENTRIES):
        return list(BLOCK_ENTRIES)
    if all(n in names for n in AEAD_ENTRIES):
        return list(AEAD_ENTRIES)
    return [n for n in names if "." not in n]


def entry_params(fn) -> tuple[list[Param], list[int]]:
    params = []
    for p in fn.params:
        if isinstance(p, Memory):
            if p.length is None:
                params.append(Param(p.name, "bytes", p.elem_width))
            else:
                stride = 1 if p.elem_width <= 8 else 2 * nlimbs(p.elem_width, 16)
                params.append(Param(p.name, "mem", p.elem_width, p.length, stride))
        else:
            params.append(Param(p.name, "word" if p.width <= 16 else "wide", p.width))
    return params, list(fn.result_widths)


def select_function(module: Module, fname: str, symbol: str, cpux: bool) -> tuple[MFunction, Entry, set]:
    fn = module.function(fname)
    params, results = entry_params(fn)
    mf = MFunction(symbol, doc=f"{module.name}.{fname}")
    sel = Msp430Selector(module, mf, module.name, cpux)
    vals, mems = {}, {}
    sel.scopes.append((vals, mems))
    words = []                              # one vreg per incoming word

    def word() -> int:
        k = len(words)
        v = mf.vreg()
        src = R(ARG_REGS[k]) if k < len(ARG_REGS) else Mem(SP, Frame("arg", k - len(ARG_REGS)))
        sel.emit("mov", src, R(v))
        words.append(v)
        return v

    for p, ip in zip(fn.params, params):
        if ip.kind == "mem":
            mems[p] = MemBind("ptr", ip.stride, p.elem_width, base=word(), count=p.length)
        elif ip.kind == "bytes":
            base = word()
            mems[p] = MemBind("ptr", 1, 8, base=base, length=[R(word())])
        elif ip.kind == "word":
            vals[p] = [R(word())]
        else:
            base = word()
            # read-only input words, used in place as memory operands
            vals[p] = [Ind(base) if j == 0 else Mem(base, 2 * j) for j in range(nlimbs(p.width, 16))]
    outs = [word() for _ in results]
    for m in fn.locals:
        sel.bind_local(m)
    ys = sel.select_block(fn.body)
    sel.materialize_pending()
    for o, y in zip(outs, ys):
        for j, limb in enumerate(y):
            sel.emit("mov", limb, Mem(o, 2 * j))
    sel.emit("ret")
    mf.n_arg_words = len(words)
    entry = Entry(fname, symbol, params, results)
    return mf, entry, sel.used_tables


def _fmt_disp(d, frame: dict) -> str:
    if isinstance(d, Frame):
        if d.kind == "slot":
            return str(2 * d.key + d.extra)
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


def finish_function(mf: MFunction, target, cpux: bool, lines_src: SpecLines) -> dict:
    """DCE, register allocation, frame layout and the assembly lines of one function."""
    dce.eliminate(mf, target)
    alloc = regalloc.allocate(mf, target)
    dce.eliminate(mf, target)
    saved = sorted(r for r in alloc.used_phys if r in target.callee_saved)
    if saved and cpux:
        saved = list(range(min(saved), 11))          # pushm saves a contiguous range r10 down
    local_off, off = {}, 2 * alloc.n_slots
    for name, size in mf.locals.items():
        local_off[name] = off
        off += size
    frame_size = off
    frame = {"locals": local_off, "args": frame_size + 2 * len(saved) + 2}
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
    insts = pro + body
    for inst in insts:
        # a source operand 0(Rn) is @Rn: one word and one cycle less (the assembler would
        # shorten it anyway; doing it here keeps the cost model exact)
        if len(inst.ops) == 2 and isinstance(inst.ops[0], Mem) and inst.ops[0].base is not None:
            r = resolve(inst.ops[0], frame)
            if r.disp == 0:
                inst.ops[0] = Ind(r.base)
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
        mn = ASM_NAME.get(inst.mn, inst.mn)
        if inst.mn in ("pushm", "popm", "rlam", "rram", "rrum"):
            mn += ".w"
        ops = ", ".join(fmt_operand(o, frame) for o in inst.ops)
        lines.append(f"\t{mn}\t{ops}" if ops else f"\t{mn}")
    return {"symbol": mf.name, "doc": mf.doc, "lines": lines, "frame": frame_size, "slots": alloc.n_slots,
            "locals_bytes": frame_size - 2 * alloc.n_slots, "saved": ", ".join(reg_name(r) for r in saved),
            "size": size, "n_insts": sum(1 for i in insts if i.mn != "label")}


def _table(module: Module, name: str, prefix: str) -> dict:
    t = next(x for x in module.tables if x.name == name)
    data = list(t.data or ())
    if t.elem_width <= 8:
        items, directive = [f"{v:#04x}" for v in data], ".byte"
    else:
        n = nlimbs(t.elem_width, 16)
        items = [f"{(v >> (16 * j)) & 0xFFFF:#06x}" for v in data for j in range(n)]
        directive = ".word"
    rows = [", ".join(items[i:i + 8]) for i in range(0, len(items), 8)]
    stride = 1 if t.elem_width <= 8 else 2 * nlimbs(t.elem_width, 16)
    return {"name": name, "symbol": f"{prefix}_{name}", "count": len(data), "elem_width": t.elem_width,
            "bytes": stride * len(data), "rows": rows, "directive": directive}


def _c_params(e: Entry) -> str:
    out = []
    for p in e.params:
        if p.kind == "mem":
            out.append(f"{'uint8_t' if p.stride == 1 else 'uint16_t'} *{p.name}")
        elif p.kind == "bytes":
            out.append(f"uint8_t *{p.name}, uint16_t {p.name}_len")
        elif p.kind == "word":
            out.append(f"uint16_t {p.name}")
        else:
            out.append(f"const uint16_t *{p.name}")
    out += [f"uint16_t *out{i}" for i in range(len(e.results))]
    return ", ".join(out) or "void"


def compile_module(module: Module, chip, spec_path: str) -> Compiled:
    cpux = chip.isa == "msp430x"
    target = make_target(chip)
    spec_lines = SpecLines()
    functions, entries, tables = [], {}, set()
    for fname in exported(module):
        symbol = f"{module.name}_{fname}"
        mf, entry, used = select_function(module, fname, symbol, cpux)
        tables |= used
        info = finish_function(mf, target, cpux, spec_lines)
        entry.code_bytes, entry.frame_bytes = info["size"], info["frame"]
        functions.append(info)
        entries[fname] = entry
    table_info = [_table(module, t.name, module.name) for t in module.tables if t.name in tables]
    knobs = dict(module.knobs)
    knob_text = " ".join(f"{k}={v}" for k, v in knobs.items()) or "(defaults)"
    stem = variant_stem(module.name, {k: v for k, v in knobs.items()})
    ctx = dict(version=VERSION, spec=Path(spec_path).name, chip=chip.name, isa=chip.isa, cpu=chip.cpu,
               knobs=knob_text, header=f"{stem}.h")
    asm = render(TEMPLATES, "file.S.j2", functions=functions, tables=table_info, **ctx)
    kind = "block" if all(n in entries for n in BLOCK_ENTRIES) else "aead" if all(n in entries for n in AEAD_ENTRIES) else ""
    consts = [{"name": f"{module.name.upper()}_{k.upper()}", "value": v} for k, v in sorted(module.consts.items())
              if isinstance(v, int)]
    header = render(TEMPLATES, "header.h.j2", guard=f"AEDSL_{stem.upper().replace('-', '_')}_H", consts=consts,
                    functions=[{"symbol": e.symbol, "doc": f"{module.name}.{e.name}", "c_params": _c_params(e)}
                               for e in entries.values()], **ctx)
    return Compiled(spec=str(spec_path), chip=chip.name, knobs=knobs, asm=asm, header=header, entries=entries,
                    kind=kind, consts=dict(module.consts), stem=stem,
                    domains=dict(module.domains))
