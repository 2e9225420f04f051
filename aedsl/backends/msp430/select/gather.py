"""MSP430 byte gathers: slices remember their source byte, and a concat of bytes (rev8, byte
permutations) builds each 16-bit limb from its two source bytes with `swpb`, `mov.b` and the
`xor.b` byte merge instead of shifts and masks."""
from __future__ import annotations

from aedsl.codegen.mir import Imm, Ind, Mem, R
from aedsl.codegen.select_base import nlimbs
from .operands import M16, cheap_src, disp_add


class Msp430Gather:
    """Selector mixin: `op_slice` / `op_concat` special cases over the shared handlers."""

    def op_slice(self, op):
        (a,) = self.args(op)
        lo = op.attrs["lo"]
        if op.results[0].width == 8 and lo % 8 == 0:
            # remember where the byte came from: a later concat (rev8, byte gathers) places it
            # straight from its source limb (swpb / byte operations) instead of shift + mask
            self.byte_src[op.results[0]] = (a, lo // 16, (lo % 16) // 8)
        super().op_slice(op)

    def op_concat(self, op):
        if all(v.width == 8 for v in op.args) and any(v in self.byte_src for v in op.args):
            return self.put(op.results[0], self.gather_bytes(op.args, op.results[0].width))
        super().op_concat(op)

    def gather_bytes(self, args: list, width: int) -> list:
        """concat of bytes, each either a slice of a wider value (its source limb and byte) or a
        zero-extended 8-bit value: every output limb is built from its two source bytes by a
        copy, a `swpb` (shared per source limb), `mov.b`, or the `xor.b` byte merge."""
        srcs = []                              # (limbs list, limb index, byte index, high byte zero)
        for v in reversed(args):               # least significant byte first
            if v in self.byte_src:
                limbs, j, b = self.byte_src[v]
                srcs.append((limbs, j, b, False))
            else:
                srcs.append((self.get(v), 0, 0, True))
        swapped: dict = {}

        def operand(s):
            return s[0][s[1]] if s[1] < len(s[0]) else Imm(0)

        # a register's swapped copy is also shared with the other gathers of the basic block
        # (legalized code builds each word of `z >> 8` by its own concat: one swpb per limb,
        # not two); reset at labels, like the scaled indices
        block_swaps = self.__dict__.setdefault("swap_memo", {})

        def swap(s):
            key = (id(s[0]), s[1])
            if key not in swapped:
                x = operand(s)
                if isinstance(x, Imm):
                    swapped[key] = Imm(((x.value >> 8) | (x.value << 8)) & M16)
                elif isinstance(x, R) and x.reg in block_swaps:
                    swapped[key] = block_swaps[x.reg]
                else:
                    t = self.copy(x)
                    self.emit("swpb", t)
                    swapped[key] = t
                    if isinstance(x, R):
                        block_swaps[x.reg] = t
            return swapped[key]

        def in_place(s, pos):
            """An operand whose byte `pos` is the source byte."""
            return operand(s) if s[2] == pos else swap(s)

        def byte_operand(s):
            """A byte-instruction source operand reading the source byte."""
            x = operand(s)
            if isinstance(x, Imm):
                return Imm((x.value >> (8 * s[2])) & 0xFF)
            if isinstance(x, Ind):
                x = Mem(x.reg, 0)
            if isinstance(x, Mem):
                return Mem(x.base, disp_add(x.disp, s[2])) if s[2] else cheap_src(x)
            return in_place(s, 0)

        def low_zx(s):
            x = byte_operand(s)
            if isinstance(x, Imm):
                return x
            if s[3] and s[2] == 0 and isinstance(x, R):
                return x
            t = R(self.vreg())
            self.emit("mov.b", x, t)
            return t

        out = []
        for k in range(nlimbs(width, 16)):
            lo = srcs[2 * k] if 2 * k < len(srcs) else None
            hi = srcs[2 * k + 1] if 2 * k + 1 < len(srcs) else None
            if hi is None:
                out.append(low_zx(lo))
                continue
            same = operand(lo) is operand(hi) or (lo[0] is hi[0] and lo[1] == hi[1])
            if same and (lo[2], hi[2]) == (0, 1):
                out.append(operand(lo))
            elif same and (lo[2], hi[2]) == (1, 0):
                out.append(swap(lo))
            elif isinstance(operand(hi), Imm) or isinstance(operand(lo), Imm):
                h = operand(hi)
                hv = ((h.value >> (8 * hi[2])) & 0xFF) << 8 if isinstance(h, Imm) else None
                if hv is not None:
                    out.append(self.bitop("bis", low_zx(lo), Imm(hv)))
                else:
                    x = self.and_imm(in_place(hi, 1), 0xFF00)
                    out.append(self.bitop("bis", x, low_zx(lo)))
            elif hi[3]:                      # zero-extended byte: swpb leaves the low byte 0
                x = self.copy(operand(hi))
                self.emit("swpb", x)
                self.emit("bis", operand(lo) if lo[3] else low_zx(lo), x)
                out.append(x)
            else:
                # merge: t = X ^ low(X ^ Y) keeps X's high byte and takes Y's low byte
                x = in_place(hi, 1)
                t = self.copy(x)
                self.emit("xor.b", byte_operand(lo), t)
                self.emit("xor", x, t)
                out.append(t)
        return out
