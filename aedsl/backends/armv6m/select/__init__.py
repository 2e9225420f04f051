"""ARMv6-M instruction selection: IR ops over 32-bit limbs -> Thumb-1 machine IR.

Every value is a list of 32-bit limbs (least significant first, zero-extended in the top limb;
see aedsl/codegen/select_base.py; the handlers shared with the other target are in
aedsl/codegen/select); 32-bit words are native, wider values are carry chains
(ADDS/ADCS, SUBS/SBCS) and funnel shifts (LSLS/LSRS/ORRS). What Thumb-1 asks for, and where:

- data processing is two-operand and flag-setting on low registers (`eors rd, rm`): the
  selector writes `mov a -> d; eors d, b` and the allocator coalesces the copy away when `a`
  dies; ADDS/SUBS/LSLS/LSRS also have three-operand forms, used directly;
- immediates: ALU instructions take none (except ADDS/SUBS #imm3/#imm8, CMP #imm8, shifts), so
  constants go to registers by MOVS #imm8, MOVS+MVNS/LSLS or a literal-pool LDR (`imm_cost`);
  a constant is materialised once per straight-line region and reused;
- rotates only by register: `rors d, t` with t = 32 - k (a reused constant register);
- byte reversal of a word (the `rev8` of SPECK's and AES's byte orders) is one REV / REV16;
- no unaligned access: a `bytes` block of 4k bytes is read/written as words (LDR/STR + REV)
  when its address is aligned and its count covers it, else through a frame scratch area and a
  byte loop (`_word_block`); other sizes byte by byte (LDRB/STRB gather);
- tables and arrays: `ldr rX, [rT, rI]` with the scaled index in a register, or an immediate
  offset when the index is a constant in range;
- in counted loops: `mem[a*i + c]` (i the loop index, provably without wrap-around) through a
  pointer set up before the loop and advanced per iteration, `ldr rX, [rP, #4c]` (round keys);
  table and frame addresses are loop-invariant, set up once before the outermost loop that
  makes no call (the allocator then keeps them in r8-r12 or a slot, not re-deriving them).

Modules (each a mixin of `ArmSelector`, composed in `selector.py`): `shifts` (shifts, rotations,
byte reversal), `arith` (carry chains, comparisons, branches, multiply, divide), `memory`
(addressing, walking pointers, hoisted addresses), `buffers` (byte-order blocks), `calls`
(subroutine calls, interface words), `operands` (limb constants).
"""
from __future__ import annotations

from .operands import LOAD, STORE
from .selector import ArmSelector

__all__ = ["ArmSelector", "LOAD", "STORE"]
