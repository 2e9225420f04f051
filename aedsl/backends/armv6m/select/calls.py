"""Subroutine calls on ARMv6-M (BL to a callee compiled once) and the interface words of
ARMv6-M functions (`entry_params`)."""
from __future__ import annotations

from aedsl.ir.nodes import Op

from aedsl.codegen import calls as interface
from aedsl.codegen.calls import call_symbol, wide_bytes
from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, R
from aedsl.codegen.select_base import nlimbs
from ..target import ARG_REGS, CALL_CLOBBERS, SP
from .operands import LIMB, LOAD, STORE

__all__ = ["ArmCalls", "call_symbol", "element_stride", "entry_params", "returns_in_registers", "wide_bytes"]


def element_stride(elem_width: int) -> int:
    """Bytes per element of a memory: bytes, halfwords, or whole 32-bit words."""
    return 1 if elem_width <= 8 else 2 if elem_width <= 16 else 4 * nlimbs(elem_width, 32)


def entry_params(fn):
    """The interface words of `fn` (aedsl/codegen/calls.py) with 32-bit words."""
    return interface.entry_params(fn, 32, element_stride)


def returns_in_registers(module, fname: str, result_widths) -> bool:
    """The shared rule (codegen/calls.py) with 32-bit words and r0-r3."""
    return interface.returns_in_registers(module, fname, result_widths, 32, len(ARG_REGS))


class ArmCalls:
    """Selector mixin: `real_call` (the SelectorBase hook)."""

    # the wide arguments and results of calls share the frame area of the byte-buffer paths
    # (`bytes.tmp`, codegen/select/bytes.py): each is written and read within one IR operation
    # (a call; a partial or unaligned block load or store), and the scheduler keeps every access
    # to one area in order where offsets meet (codegen/schedule.py `_alias_preds`), so neither
    # needs its own words (a function with both, e.g. GCM's absorb: 16 bytes less stack)
    CALL_BUF = "bytes.tmp"

    def real_call(self, op: Op, callee) -> bool:
        """A call the IR kept (`inline=entries`) becomes BL to the callee compiled once, with the
        convention of exported functions (docs/BACKENDS.md): memory -> pointer, `bytes` ->
        pointer and length, a scalar <= 32 bits by value, a wider one by pointer to its words;
        results through out-pointers, or, from a subroutine whose results take at most four
        words, in r0-r3 (`returns_in_registers`). Words go in r0-r3, then the stack (the outgoing-argument
        area at the bottom of this frame). Wide arguments and results live in one scratch area
        of the frame (`CALL_BUF`, sized for the largest call, not zeroed: written before read)."""
        params, results = entry_params(callee)
        words: list = []
        buf_off = 0
        pending_stores = []
        for p, a, ip in zip(callee.params, op.args, params):
            if ip.kind in ("mem", "bytes"):
                b = self.mems[a] if a in self.mems else self.memory(a)
                words.append(self.base_reg(b))
                if ip.kind == "bytes":
                    words.append(self.reg(b.length[0]) if b.length is not None else Imm(b.count))
            elif ip.kind == "word":
                words.append(self.get(a)[0])
            else:
                pending_stores.append((buf_off, self.get(a), wide_bytes(p.width)))
                words.append(("buf", buf_off))
                buf_off += (wide_bytes(p.width) + 3) & ~3
        in_regs = returns_in_registers(self.module, callee.name, results)
        res_offs = []
        for w in (results if not in_regs else ()):
            res_offs.append(buf_off)
            words.append(("buf", buf_off))
            buf_off += (wide_bytes(w) + 3) & ~3
        if buf_off:
            self.mf.locals[self.CALL_BUF] = max(self.mf.locals.get(self.CALL_BUF, 0), buf_off)
        for off, limbs, nbytes in pending_stores:
            for j, x in enumerate(limbs):
                size = min(4, nbytes - 4 * j)
                if size == 4:
                    self.emit("str", self.reg(x), Mem(SP, Frame("local", self.CALL_BUF, off + 4 * j)))
                else:
                    a = self.fresh()
                    self.emit("addsp", a, Mem(SP, Frame("local", self.CALL_BUF, off + 4 * j)))
                    self.emit(STORE[size], self.reg(x), Mem(a.reg, 0))

        def word_value(x):
            if isinstance(x, tuple):
                a = self.fresh()
                self.emit("addsp", a, Mem(SP, Frame("local", self.CALL_BUF, x[1])))
                return a
            return self.reg(x)

        vals = [word_value(x) for x in words]
        self.mf.n_out = max(self.mf.n_out, len(vals) - 4)
        for k, v in enumerate(vals[4:]):
            self.emit("str", v, Mem(SP, Frame("out", k)))
        argregs = [R(k) for k in range(min(4, len(vals)))]
        for k, v in enumerate(vals[:4]):
            self.emit("mov", v, argregs[k])
        ops = [Lbl(call_symbol(self.module, callee.name))] + argregs + [Imm(0)] * (4 - len(argregs))
        written = interface.call_writes(self.clobbers.get(callee.name, CALL_CLOBBERS), ARG_REGS, results, LIMB, in_regs)
        self.emit("bl", *ops, *[R(r) for r in written])
        self.calls.add(callee.name)
        # cached constants and addresses would have to survive the call in r4-r7 or a spill
        # slot: re-materialising them after it is cheaper
        self.kcache = {}
        outs = []
        if in_regs:                         # masked: a sub-word result's upper bits are not
            for w, limbs in zip(results, interface.results_from_registers(self, ARG_REGS, results, LIMB)):
                outs.append(self.mask(limbs, w))            # the callee's concern
        for off, w in zip(res_offs, results):
            nbytes = wide_bytes(w)
            limbs = []
            for j in range(nlimbs(w, LIMB)):
                size = min(4, nbytes - 4 * j)
                r = self.fresh()
                if size == 4:
                    self.emit("ldr", r, Mem(SP, Frame("local", self.CALL_BUF, off + 4 * j)))
                else:
                    a = self.fresh()
                    self.emit("addsp", a, Mem(SP, Frame("local", self.CALL_BUF, off + 4 * j)))
                    self.emit(LOAD[size], r, Mem(a.reg, 0))
                limbs.append(r)
            outs.append(self.mask(limbs, w))
        for r, limbs in zip(op.results, outs):
            self.put(r, limbs)
        return True
