"""Subroutine calls on MSP430: a call the IR kept (`inline=auto|none|entries`) becomes `call #f`;
and the interface words of MSP430 functions (`entry_params`).

The callee is compiled once, as a function of its own with a local symbol, and takes its
parameters exactly like an exported function (docs/BACKENDS.md, "Calls"): a memory is a pointer,
a `bytes` buffer (pointer, length), a scalar of up to 16 bits one word by value, a wider scalar a
pointer to its little-endian words, then one out-pointer per result. Words go in R12-R15, then
on the stack (the outgoing-argument area at the bottom of the caller's frame: 0(SP), 2(SP) …
at the CALL). R11-R15 and the flags are clobbered (the `call` instruction writes them, so the
allocator keeps every value live across a call in R4-R10, which the callee saves only if it
uses them).

Where the words live in the caller's frame:
- each call site's results get their own area (`call.res<N>.<k>`): the callee writes them and
  nothing else ever does, so the result words are used in place as memory operands (lazy loads
  that need no materialising), and a result passed straight on as a wide argument is passed by
  its address, not copied;
- other wide arguments are copied into one area shared by all call sites (`call.args`, sized
  for the largest), read by the callee only during the call.

A subroutine (a function the unit does not export, so every call of it is in this unit) whose
results take at most four words returns them in R12-R15 instead (`returns_in_registers`): no
out-pointer to pass, store through and read back (AES's `mix_column` in size mode, called 36
times a block: about 20 cycles and 12 bytes a call site less).
"""
from __future__ import annotations

from aedsl.ir.nodes import Memory, Op

from aedsl.codegen import calls as interface
from aedsl.codegen.calls import call_symbol
from aedsl.codegen.mir import Frame, Imm, Lbl, Mem, R
from aedsl.codegen.select_base import nlimbs
from ..target import ARG_REGS, CALL_CLOBBERS, SP

ARGS_AREA = "call.args"


def element_stride(elem_width: int) -> int:
    """Bytes per element of a memory: bytes packed, wider elements in whole 16-bit words."""
    return 1 if elem_width <= 8 else 2 * nlimbs(elem_width, 16)


def entry_params(fn):
    """The interface words of `fn` (aedsl/codegen/calls.py) with 16-bit words."""
    return interface.entry_params(fn, 16, element_stride)


def returns_in_registers(module, fname: str, result_widths) -> bool:
    """The shared rule (codegen/calls.py) with 16-bit words and R12-R15."""
    return interface.returns_in_registers(module, fname, result_widths, 16, len(ARG_REGS))


def _res_area(limbs: list) -> str | None:
    """The result area whose words are exactly `limbs` (in order, from its start), if any."""
    if not limbs or not all(isinstance(x, Mem) and x.base == SP and isinstance(x.disp, Frame) for x in limbs):
        return None
    name = limbs[0].disp.key
    if not (isinstance(name, str) and name.startswith("call.res")):
        return None
    if all(x.disp.kind == "local" and x.disp.key == name and x.disp.extra == 2 * j for j, x in enumerate(limbs)):
        return name
    return None


class Msp430Calls:
    """Selector mixin: `real_call` (the SelectorBase hook) and the address of a memory."""

    def mem_address(self, b):
        """A register holding the address of the memory bound as `b`."""
        if b.kind == "ptr":
            return R(b.base)
        r = R(self.vreg())
        if b.kind == "table":
            self.emit("lea", Mem(None, b.name), r)
        else:
            self.emit("lea", Mem(SP, Frame("local", b.name, 0)), r)
        return r

    def real_call(self, op: Op, callee) -> bool:
        self.call_sites += 1
        site = self.call_sites
        # the interface is the callee's before the passes (word legalization splits wide scalar
        # parameters and results into u16 ones; the words are the same)
        ofn = self.module.interfaces.get(callee.name, callee)
        params, results = entry_params(ofn)
        mem_args = [a for a in op.args if isinstance(a, Memory)]
        scalar = [limb for a in op.args if not isinstance(a, Memory) for limb in self.get(a)]
        words: list = []
        args_off = 0
        for p, ip in zip(ofn.params, params):
            if ip.kind in ("mem", "bytes"):
                a = mem_args.pop(0)
                b = self.mems[a] if a in self.mems else self.memory(a)
                words.append(self.mem_address(b))
                if ip.kind == "bytes":
                    words.append(b.length[0] if b.length is not None else Imm(b.count))
            elif ip.kind == "word":
                words.append(scalar.pop(0))
            else:
                n = nlimbs(p.width, 16)
                limbs, scalar = scalar[:n], scalar[n:]
                area = _res_area(limbs)
                if area is not None:
                    words.append(self.mem_address_local(area))
                    continue
                for j, x in enumerate(limbs):
                    self.emit("mov", x, Mem(SP, Frame("local", ARGS_AREA, args_off + 2 * j)))
                r = R(self.vreg())
                self.emit("lea", Mem(SP, Frame("local", ARGS_AREA, args_off)), r)
                words.append(r)
                args_off += 2 * n
        if args_off:
            self.mf.locals[ARGS_AREA] = max(self.mf.locals.get(ARGS_AREA, 0), args_off)
        in_regs = returns_in_registers(self.module, callee.name, results)
        areas = []
        for k, w in enumerate(results if not in_regs else ()):
            area = f"call.res{site}.{k}"
            self.mf.locals[area] = 2 * nlimbs(w, 16)
            areas.append((area, w))
            words.append(self.mem_address_local(area))
        # stack words first (they may need registers), then the argument registers
        n_out = max(0, len(words) - len(ARG_REGS))
        self.mf.n_out = max(self.mf.n_out, n_out)
        for k, x in enumerate(words[len(ARG_REGS):]):
            self.emit("mov", x, Mem(SP, Frame("out", k)))
        regs = [R(ARG_REGS[k]) for k in range(min(len(words), len(ARG_REGS)))]
        for r, x in zip(regs, words):
            self.emit("mov", x, r)
        ops = [Lbl(call_symbol(self.module, callee.name))] + regs + [Imm(0)] * (len(ARG_REGS) - len(regs))
        written = interface.call_writes(self.clobbers.get(callee.name, CALL_CLOBBERS), ARG_REGS, results, 16, in_regs)
        self.emit("call", *ops, *[R(r) for r in written])
        self.calls.add(callee.name)
        if hasattr(self, "_acc_state"):
            self._acc_state = (None, None)       # the callee may have used the accelerator
        if in_regs:
            flat = [limb for limbs in interface.results_from_registers(self, ARG_REGS, results, 16)
                    for limb in limbs]
        else:
            flat = [Mem(SP, Frame("local", area, 2 * j)) for area, w in areas for j in range(nlimbs(w, 16))]
        for r in op.results:
            n = nlimbs(r.width, 16)
            self.put(r, flat[:n])
            flat = flat[n:]
        return True

    def mem_address_local(self, area: str) -> R:
        r = R(self.vreg())
        self.emit("lea", Mem(SP, Frame("local", area, 0)), r)
        return r
