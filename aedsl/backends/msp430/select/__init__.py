"""MSP430 instruction selection: IR ops over 16-bit limbs -> MSP430 machine IR.

Every value is a list of 16-bit limbs (least significant first, zero-extended in the top limb;
see aedsl/codegen/select_base.py; the handlers shared with the other target are in
aedsl/codegen/select). What makes MSP430 code fast, and where it is used here:

- memory and immediate source operands everywhere (`xor @r12, r4`, `xor sbox(r15), r4`,
  `xor #0x1b, r5`); constants of the constant generator (0, 1, 2, 4, 8, -1) cost nothing extra
  (the cost model knows);
- 16-bit rotations by `swpb` plus 1-bit `rla/adc` (left) or `bit #1/rrc` (right) steps, whichever
  is shorter; multi-word rotations by `rla/rlc/.../adc` carry chains for small amounts and by
  per-limb rotate + mask + merge for larger ones, with whole-limb rotations free (renaming);
- shifts by `rlam/rrum #n` on MSP430X (plain `rla` / `clrc; rrc; rra...` on the original CPU);
- two-address form (`mov a, t; xor b, t`) whose copies the allocator coalesces away.

Modules (each a mixin of `Msp430Selector`, composed in `selector.py`): `shifts` (rotations and
shifts), `arith` (carry chains, comparisons, branches), `mul` (multiply, divide), `gather` (byte
gathers), `memory` (element operands, walking pointers), `buffers` (byte-order blocks), `calls`
(subroutine calls, interface words), `operands` (limb helpers); the accelerator and the hardware
multiplier are bound in ../accel.py and ../multiplier.py.
"""
from __future__ import annotations

from .selector import Msp430Selector

__all__ = ["Msp430Selector"]
