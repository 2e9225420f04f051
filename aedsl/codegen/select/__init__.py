"""Instruction selection shared by the targets: the handlers that are one algorithm everywhere.

A target's selector is `SelectorBase` (aedsl/codegen/select_base.py: the IR walk, limbs, lazy
loads, calls, loops) plus these mixins, plus its own modules for what is truly its own. A mixin
here is written against the limb model and a few target hooks, which each target implements:

- `arith.ArithOps`: not/neg/add/sub, unsigned division and remainder, zext/trunc/select, the six
  comparisons, `len`, `add_imm`, `branch_if_zero`; hooks `addsub(a, b, width, sub)`,
  `not_limb`, `bit_to_mask`, `divide`, `carry_if_nonzero`, `carry_if_ge`, `carry_bit`,
  `carry_mask` (a select's mask from an ordering's carry: C - 1, or its complement),
  `branch_zero_limb`;
- `shifts.ShiftOps`: shl/shr/rotl/rotr by constants, shifts by a run-time amount, slice and
  concat over the target's `shl_multi` / `shr_multi` / `rotl_multi` / `_shift_var`;
- `loops.LoopAddressing`: induction variables (`affine_of`, `note_affine`) and walking pointers
  (`walker`, `loop_latch`); hooks `walker_key`, `walker_reaches`, `walker_origin`,
  `walker_setup`, `walker_advance`, `affine_ok`;
- `bytes.ByteBlocks`: `load_be/le`, `store_be/le` dispatch and the shape tests of the word-block
  path with its frame scratch area (`word_block`, `odd_block`, `reserve_scratch`).

Every target also supplies `mask(limbs, width)`, `bitop(mnemonic, a, b)` over its `BITWISE`
mnemonics, and the `LIMB` size.
"""
