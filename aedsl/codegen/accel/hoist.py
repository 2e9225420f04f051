"""Rising accelerator starts within an IR block (part of step 1 of the package docstring).

`hoist_starts` reorders a block's op list: each `accel_start` moves up, with its backward slice,
to just after the last op it depends on, through a segment that ends at any effect the slice
could observe. Only pure ops and loads cross each other, so every value is computed from the same
inputs as before; the IR itself is not changed (the selector walks the reordered list).
"""
from __future__ import annotations

from aedsl.ir.nodes import Memory, Op, Value

BARRIERS = ("for", "if", "call", "accel_start", "accel_result")
STORES = ("store", "store_be", "store_le")
LOADS = ("load", "load_be", "load_le")


def may_alias(a, b) -> bool:
    """Whether memories `a` and `b` may be the same bytes at run time. Tables (ROM) and a
    function's local arrays alias only themselves. A fixed-size array parameter (a key-setup
    state, round keys) never overlaps a `bytes` buffer (a message, AD, nonce: the runtime and
    the key-setup convention of docs/LANGUAGE.md give the state its own storage, only read by
    `encrypt_with`/`decrypt_with`); two `bytes` buffers, or two arrays, may overlap."""
    if a is b:
        return True
    if not isinstance(a, Memory) or not isinstance(b, Memory):
        return True
    if "table" in (a.kind, b.kind) or "local" in (a.kind, b.kind):
        return False
    return (a.length is None) == (b.length is None)


def hoist_starts(ops: list[Op]) -> list[Op]:
    """The block's ops with each `accel_start` (and its backward slice) moved up through the
    segment since the last barrier, when no earlier operation's result is pending at the
    segment's start (see the module docstring)."""
    ops = list(ops)
    i = 0
    while i < len(ops):
        if ops[i].opcode != "accel_start":
            i += 1
            continue
        s = i
        lo = i
        while lo > 0 and ops[lo - 1].opcode not in BARRIERS:
            lo -= 1
        pending = lo > 0 and ops[lo - 1].opcode in ("accel_result", "accel_start")
        seg = ops[lo:s]
        need = set(v for v in ops[s].args if isinstance(v, Value))
        in_slice = [False] * len(seg)
        for k in range(len(seg) - 1, -1, -1):
            o = seg[k]
            if any(r in need for r in o.results):
                in_slice[k] = True
                need.update(a for a in o.args if isinstance(a, Value))
        loaded = {o.args[0] for o, f in zip(seg, in_slice) if f and o.opcode in LOADS}
        if any(f and o.opcode in STORES for o, f in zip(seg, in_slice)):
            i += 1
            continue
        # a store the slice's loads could observe ends the segment (two buffer parameters may
        # be the same memory at run time, e.g. in-place encryption)
        cut = 0
        for k, o in enumerate(seg):
            if o.opcode in STORES and any(may_alias(m, o.args[0]) for m in loaded):
                cut = k + 1
        head, seg, in_slice = seg[:cut], seg[cut:], in_slice[cut:]
        if pending:
            # The previous operation's result is still unread: the start reads it first (the
            # selector flushes before every start), so all work that does not need that result
            # goes first, in the previous operation's delay slot (CCM decryption: the mask of
            # the partial block, from the length alone), then the start's slice that needs it,
            # the start, and the rest of the work that needs it (storing M = C ^ U) behind the
            # start, in this operation's delay slot. Effects keep their order: a store of the
            # first group would move ahead of the slice, so then nothing moves.
            prev = ops[lo - 1]
            prev_results = set(prev.results) if prev.opcode == "accel_result" else set()
            dep = set(prev_results)
            waits = [False] * len(seg)
            for k, o in enumerate(seg):
                if any(isinstance(a, Value) and a in dep for a in o.args):
                    waits[k] = True
                    dep.update(o.results)
            early = [o for o, w in zip(seg, waits) if not w]
            if not prev_results or any(o.opcode in STORES for o in early):
                i += 1
                continue
            moved = early + [o for o, f, w in zip(seg, in_slice, waits) if f and w] + [ops[s]] + \
                [o for o, f, w in zip(seg, in_slice, waits) if not f and w]
        else:
            moved = [o for o, f in zip(seg, in_slice) if f] + [ops[s]] + [o for o, f in zip(seg, in_slice) if not f]
        ops[lo:s + 1] = head + moved
        i = s + 1
    return ops
