"""The target-neutral parts of the interface of generated functions and of subroutine calls.

An exported function (and a callee compiled as a subroutine, see docs/BACKENDS.md "Calls")
takes its parameters as words: a memory is a pointer (`mem`), a `bytes` buffer a pointer and a
length, a scalar of up to one machine word by value (`word`), a wider scalar by pointer to its
little-endian 16-bit units (`wide`); results go through out-pointers, except a subroutine's
results of at most as many words as there are argument registers, which come back in those
registers (`returns_in_registers`). What differs by target is the word size, the argument
registers and the element stride of a memory, given by the caller.
"""
from __future__ import annotations

from aedsl.codegen.mir import Frame, Mem, R

from aedsl.ir.nodes import Memory

from .select_base import nlimbs
from .unit import Param, exported


def call_symbol(module, fname: str) -> str:
    """The assembly symbol of function `fname` of `module` (a callee or an exported function)."""
    return f"{module.name}_{fname.replace('.', '_')}"


def wide_bytes(width: int) -> int:
    """Bytes of a wide scalar parameter or a result: the target-neutral layout (16-bit units)."""
    return 2 * nlimbs(width, 16)


def returns_in_registers(module, fname: str, result_widths, word_bits: int, n_regs: int) -> bool:
    """`fname` is a subroutine (every call of it is in the unit: it is not exported) whose results,
    `word_bits`-bit words in all, take at least one and at most `n_regs` words: it returns them in
    the first argument registers (result after result, each from its low word), not through
    out-pointers, so a call passes, stores and reads back no result area."""
    n = sum(nlimbs(w, word_bits) for w in result_widths)
    return 0 < n <= n_regs and fname not in exported(module)


def call_writes(clobbers, arg_regs, result_widths, word_bits: int, in_regs: bool) -> list[int]:
    """The registers a call writes: what the callee clobbers and, when it returns in registers,
    the argument registers its result words come back in."""
    written = list(clobbers)
    if in_regs:
        n = sum(nlimbs(w, word_bits) for w in result_widths)
        written += [r for r in arg_regs[:n] if r not in written]
    return written


def results_from_registers(sel, arg_regs, result_widths, word_bits: int) -> list[list[R]]:
    """After a call of a subroutine that returns in registers: each result's words, copied out
    of the argument registers at once (the next call overwrites them)."""
    out, k = [], 0
    for w in result_widths:
        limbs = []
        for _ in range(nlimbs(w, word_bits)):
            v = R(sel.vreg())
            sel.emit("mov", R(arg_regs[k]), v)
            limbs.append(v)
            k += 1
        out.append(limbs)
    return out


def return_in_registers(sel, arg_regs, limbs: list) -> None:
    """A subroutine's return with its result words (all results' limbs, in order) in the
    argument registers; `ret` lists them, so that their moves stay live."""
    regs = [R(r) for r in arg_regs[:len(limbs)]]
    for limb, r in zip(limbs, regs):
        sel.emit("mov", limb, r)
    sel.emit("ret", *regs)


def entry_params(fn, word_bits: int, stride) -> tuple[list[Param], list[int]]:
    """The parameters of `fn` as interface words (`word_bits` the machine word, `stride(elem_width)`
    the bytes per element of a memory) and its result widths."""
    params = []
    for p in fn.params:
        if isinstance(p, Memory):
            if p.length is None:
                params.append(Param(p.name, "bytes", p.elem_width))
            else:
                params.append(Param(p.name, "mem", p.elem_width, p.length, stride(p.elem_width)))
        else:
            params.append(Param(p.name, "word" if p.width <= word_bits else "wide", p.width))
    return params, list(fn.result_widths)


class IncomingWords:
    """The incoming argument words of an exported function, in order, each copied into a fresh
    virtual register: the first `len(arg_regs)` from registers, the others from the caller's stack
    (`Frame("arg", k)`, resolved at emission)."""

    def __init__(self, sel, arg_regs: tuple[int, ...], sp: int):
        self.sel, self.arg_regs, self.sp = sel, tuple(arg_regs), sp
        self.regs: list[int] = []

    def next(self) -> int:
        k, n = len(self.regs), len(self.arg_regs)
        v = self.sel.mf.vreg()
        src = R(self.arg_regs[k]) if k < n else Mem(self.sp, Frame("arg", k - n))
        self.sel.emit("mov", src, R(v))
        self.regs.append(v)
        self.sel.mf.incoming.append(src)
        return v
