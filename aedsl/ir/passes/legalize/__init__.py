"""Word legalization: split every value wider than the target word W into W-bit words.

Knob `word_bits` (the target's word: 16 for MSP430, 32 for ARMv6-M). Without it the pass does
nothing (`acts`). Words are little-endian: word 0 holds bits 0..W-1; a width that is not a
multiple of W ends with a narrower word (u48 at W=32 = u32 + u16). One pass, in modules of one
responsibility each:

- layout.py: the word layout of values and memories, and `Interface`, which converts arguments,
  results and memory contents between the original and the legalized function;
- walker.py: the walk (each value's words, narrow ops kept, dispatch of the rest);
- bits.py: bitwise ops, shifts, rotates, slices, concat, zext/trunc, perm, variable shifts;
- carry.py: add/sub/neg and comparisons as carry chains (`addc`/`subb`);
- products.py: multiplication as partial products (`mul`/`umulh`);
- memory.py: wide memory elements, byte/block accesses, `len`;
- control.py: calls, loops, conditionals and accelerator ops.

Assumes (documented limits of the targets, whose RAM is far below 2^W bytes): indices, byte
offsets, byte counts and loop bounds fit in one word, so only their low word is used; `len`
results are produced as one word. udiv/umod of values wider than W are not supported (constfold
turns divisions by powers of two into shifts first) and raise LegalizeError.
Word assembly leaves full-width slices, zero concats and repeated constants: the pipeline runs
constfold and cse_dce after this pass (when it `acts`).
Preserves: each function's behaviour under the word-splitting `Interface`.
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ...nodes import Memory, Module
from ..common import knob_int
from .bits import Bits
from .carry import Carry
from .control import Control
from .layout import Interface, join_ints, legal_memory, split_int, word_widths
from .memory import MemoryAccess
from .products import Products
from .walker import LegalizeError, Walker

NAME = "legalize"
KNOBS = (Knob("word_bits", "pass", ("16", "32"), None,
              doc="the target's machine word: wider values become words of this size (targets set it)"),)

__all__ = ["NAME", "Interface", "LegalizeError", "acts", "join_ints", "run", "split_int", "word_widths"]


class _Legalizer(Bits, Carry, Products, MemoryAccess, Control, Walker):
    """Legalizes one function (`run()`): the walk with every lowering."""


def acts(knobs: dict) -> bool:
    """Whether the pass changes anything (the pipeline cleans up after it only then)."""
    return knob_int(knobs, "word_bits") is not None


def run(module: Module, knobs: dict) -> Module:
    W = knob_int(knobs, "word_bits")
    module = module.clone()
    if W is None:
        return module
    memories: dict[int, Memory] = {}
    keep = []
    for t in module.tables:
        memories[id(t)] = legal_memory(t, W)
    for f in module.functions:
        for m in f.params + f.locals:
            if isinstance(m, Memory):
                memories[id(m)] = legal_memory(m, W)
                keep.append(m)
    for f in module.functions:
        _Legalizer(module, f, W, memories).run()
    module.tables = [memories[id(t)] for t in module.tables]
    return module
