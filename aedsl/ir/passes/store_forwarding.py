"""A load of a memory element just stored reads the stored value instead.

The IR shape (general): in one block, `store @m, k, v` and, at most WINDOW ops later,
`load @m, k` of the same element (the same index value, or equal constant indices), with
nothing in between that may write that element: another store to @m at an index that may be
k, a byte store (`store_be`/`store_le`) to @m, a call, an accelerator op or a region (loop,
`if`) with effects, and, where @m is passed by reference, a store of any kind to another
memory passed by reference (two parameters may be one buffer). The load goes; what read it
reads v. The pipeline runs it late, after the fusions, which judge their cones as the spec
wrote them. A spec written like its paper writes a state
word and reads it back in the next line (Ascon's `S_r <- S_r ^ P_i` then `C_i <- S_r`): the
store stays, the reload goes (Cortex-M0: `str r2, [sp, #24]; ldr r0, [sp, #24]`).

Preserves: every function's results and memory effects (the element holds v when the load
runs). Assumes: a function-local memory is no other memory; tables are never written.
"""
from __future__ import annotations

from ..nodes import Block, Function, Memory, Module
from .common import Subst, const_defs, has_effect, resolve, substitute

NAME = "store_forwarding"
# ops from the store to the load at most: a value forwarded from further back is held in a
# register that long instead of in memory, which can cost more spills than the load did (no
# limit: AES-128-GCM on samd21g18, everything unrolled, 41 882 -> 42 120 cycles, its key setup
# +44 B; 4: 41 801). The reloads a spec's next line makes are a few ops away.
WINDOW = 4


def _index_key(v, consts: dict[int, int]):
    return ("c", consts[id(v)]) if id(v) in consts else ("v", id(v))


class _Forwarder:
    """One function's forwarding: its constants, and which memories are passed by reference."""

    def __init__(self, fn: Function):
        self.consts = const_defs(fn)
        self.by_ref = {p.name for p in fn.params if isinstance(p, Memory) and p.kind == "param"}
        self.subst = Subst()

    def block(self, block: Block) -> None:
        known: dict[tuple, tuple] = {}        # (memory name, index key) -> (value stored, op number)
        kept = []
        for n, op in enumerate(block.ops):
            op.args = [resolve(self.subst, a) for a in op.args]
            for r in op.regions:
                self.block(r)
            if op.opcode == "load" and op.args[0].kind != "table":
                v, at = known.get((op.args[0].name, _index_key(op.args[1], self.consts)), (None, 0))
                if v is not None and v.width == op.results[0].width and n - at <= WINDOW:
                    self.subst.bind(op.results[0], v)
                    continue
            elif op.opcode == "store":
                m, idx, v = op.args
                k = _index_key(idx, self.consts)
                for key in [key for key in known if self.may_write(m, k, key)]:
                    del known[key]
                known[(m.name, k)] = (v, n)
            elif op.opcode in ("store_be", "store_le"):
                for key in [key for key in known if self.may_write(op.args[0], None, key)]:
                    del known[key]
            elif has_effect(op):
                known.clear()                 # a call, an accelerator op, a region that writes
            kept.append(op)
        block.ops = kept
        block.yields = [resolve(self.subst, y) for y in block.yields]

    def may_write(self, m: Memory, k, key: tuple) -> bool:
        """Whether a store to element k of m (None: any element) may change what `key` names."""
        name, kk = key
        if name == m.name:
            return k is None or kk == k or not (k[0] == "c" and kk[0] == "c")
        return m.name in self.by_ref and name in self.by_ref     # two parameters may be one buffer


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    for fn in module.functions:
        f = _Forwarder(fn)
        f.block(fn.body)
        substitute(fn.body, f.subst)
    return module
