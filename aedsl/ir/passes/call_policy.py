"""Which calls stay calls under `inline=auto`: a size/benefit heuristic over the call graph.

Inlining a callee costs code (one copy of its body per call site) and saves a call's overhead
(argument set-up, the call and return, saving registers: some tens of cycles on both targets).
So a call is worth keeping when the callee is both *big* (its copies would cost real flash) and
*busy* (its own work dwarfs the overhead, so the call costs a few per cent at most), and there
are several copies to share. Small helpers and hot inner functions (a round function, `double`,
`inc32`, AES's MixColumns) stay inlined, so block-cipher loops keep their speed; whole block
cipher calls (`E.encrypt_block` with software AES), GHASH multiplications, key schedules, the
ChaCha20 block function of a mode become subroutines.

Measures, all on the fully inlined IR (an upper bound, computed bottom-up, memoised):
- `size`: static op count, a loop's body counted once per copy the unroll pass will make
  (`unroll=0` with constant bounds: the trip count; `unroll=k`: k);
- `work`: dynamic op count, a loop's body times its trip count (UNKNOWN_TRIPS if not constant);
each op weighs by its width in 32-bit words (a u128 xor is four word ops).
A callee that loops a run-time number of times (over a message or AD, itself or in a function it
calls) is also kept when its inlined copies would total >= MIN_COPIES_SIZE ops, however little
work the estimate gives it: a call costs tens of cycles per message, each copy its whole size
(the measurements behind this rule: docs/BACKENDS.md, "Why the defaults"). Per-block helpers without such a loop never qualify (table fusion needs them
inlined: OCB3's InvMixColumns).
A callee that works in place on memory (every parameter a memory, no result: a sponge's
permutation of a state in memory) needs only half the work threshold: a call to it moves no
argument values and no results, so its overhead is the call alone (`_in_place`).
Sites are counted top-down: the copies of a call op in the program = the copies of its caller's
body times the op's unroll multiplicity; a kept callee has one body, an inlined one as many as
its sites. A scheme's key-setup stage (`key_setup`, `encrypt_with`, `decrypt_with`, all three
present) are roots of their own and always kept: they are what the backends export (the C runtime
composes `crypto_aead_encrypt` from them, and a benchmark can leave the key setup out), so each is
compiled once with this policy applied inside it; `encrypt`/`decrypt` keep calling them (two
calls each) and a backend need not emit them at all.
A callee with local arrays called inside a loop or `if` stays a call whatever the policy (the
inline pass's own rule: locals are zeroed on function entry).
Pass knob `call_min_work` (default MIN_WORK) moves the work threshold: a backend whose word ops
are cheaper than MSP430's (Cortex-M0: one cycle for a 32-bit op) raises it, so that the call
overhead stays a few per cent of the callee's cycles.

Size mode (`opt=size`, `decide(..., size=True)`): work no longer matters; a callee called from
two or more places is kept whenever one body plus its call sites is smaller than its inlined
copies: (sites - 1) * size > sites * call_size, a call costing one op per argument word and one
for the call itself (`call_size`). So a computation that encryption and decryption share (CTR's
`xor_stream`, a mode's MAC loop) is one subroutine, and so is a block cipher called from several
places, if it is busy (work >= the work threshold), walks a buffer (a loop bounded by a buffer
length, `_loops_over_buffer`), or, when table fusion will not run (`fusion=False`: MSP430's
S-box-only AES), is big (size >= MIN_SIZE) without a loop over a scalar bound. So with table
fusion, MixColumns and the S-box steps stay inlined for it; small per-block helpers (a counter
increment in a block loop) never pay a call per block; OCB3's `get_l`, looping up to ntz(i),
stays inlined, where aedsl ct sees its bound public; and a function that starts an
accelerator operation stays inlined (`_starts_accelerator`).
"""
from __future__ import annotations

from ..nodes import Block, Function, Memory, Module, Value, walk_ops
from .common import ENTRY_NAMES, key_setup_stage

# Thresholds (ops weighed in 32-bit words). Calls cost ~20-60 cycles with argument set-up; a
# callee doing >= MIN_WORK word ops takes >= ~1000 cycles on MSP430, so the call is < ~5 %.
MIN_SIZE = 48
MIN_WORK = 600
MIN_SITES = 2
UNKNOWN_TRIPS = 8
# ... or when its inlined copies would total this many ops and it loops over its input (below)
MIN_COPIES_SIZE = 400


def _weight(op) -> int:
    widths = [r.width for r in op.results] + [a.width for a in op.args if isinstance(a, Value)]
    return max(1, -(-max(widths, default=32) // 32))


def _weight_of(a) -> int:
    return max(1, -(-a.width // 32)) if isinstance(a, Value) else 1


def _consts(fn: Function) -> dict[int, int]:
    return {id(op.results[0]): op.attrs["value"] for op in walk_ops(fn.body)
            if op.opcode == "const" and op.results}


def _trips(op, consts: dict[int, int]) -> int | None:
    lo, hi = (consts.get(id(a)) for a in op.args[:2])
    return None if lo is None or hi is None else max(0, hi - lo)


class _Measure:
    """(size, work) of functions; a call to a function in `kept` counts as a call (one op per
    argument word and the call) in the size, and as the callee's work in the work."""

    def __init__(self, module: Module, kept=frozenset()):
        self.module = module
        self.kept = kept
        self.memo: dict[str, tuple[int, int]] = {}

    def function(self, name: str) -> tuple[int, int]:
        if name not in self.memo:
            fn = self.module.function(name)
            self.memo[name] = (0, 0)          # no recursion in the DSL; guards a malformed module
            self.memo[name] = self.block(fn.body, _consts(fn))
        return self.memo[name]

    def block(self, block: Block, consts: dict[int, int]) -> tuple[int, int]:
        size = work = 0
        for op in block.ops:
            if op.opcode == "call":
                s, w = self.function(op.attrs["callee"])
                if op.attrs["callee"] in self.kept:
                    s = 1 + sum(_weight_of(a) for a in op.args)
                size, work = size + s, work + w
            elif op.opcode == "for":
                s, w = self.block(op.regions[0], consts)
                trips = _trips(op, consts)
                unroll = op.attrs.get("unroll", 1)
                copies = (trips or 1) if unroll == 0 and trips is not None else max(1, unroll)
                size += s * copies
                work += w * (trips if trips is not None else UNKNOWN_TRIPS)
            elif op.opcode == "if":
                parts = [self.block(r, consts) for r in op.regions]
                size += sum(s for s, _ in parts) + 1
                work += max((w for _, w in parts), default=0) + 1
            elif op.opcode != "const":
                size += _weight(op)
                work += _weight(op)
        return size, work


def _call_sites(block: Block, consts: dict[int, int], mult: int, out: dict[str, int]) -> None:
    """callee -> copies of its call ops in one copy of `block` (unroll multiplicity included)."""
    for op in block.ops:
        if op.opcode == "call":
            out[op.attrs["callee"]] = out.get(op.attrs["callee"], 0) + mult
        for r in op.regions:
            m = mult
            if op.opcode == "for":
                trips = _trips(op, consts)
                unroll = op.attrs.get("unroll", 1)
                m = mult * ((trips or 1) if unroll == 0 and trips is not None else max(1, unroll))
            _call_sites(r, consts, m, out)


def _callers_first(module: Module, roots: list[str]) -> list[str]:
    order: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen or not module.has_function(name):
            return
        seen.add(name)
        for op in walk_ops(module.function(name).body):
            if op.opcode == "call":
                visit(op.attrs["callee"])
        order.append(name)

    for r in roots:
        visit(r)
    return list(reversed(order))


def call_size(fn: Function) -> int:
    """Ops of one call site of `fn` (argument words + the call), the unit `size` is measured in."""
    return 1 + sum(_weight_of(p) for p in fn.params)


def decide(module: Module, min_work: int = MIN_WORK, size: bool = False, fusion: bool = True) -> dict[str, dict]:
    """Per reachable function: size, work, sites (copies of its call ops if it is inlined where
    its callers end up) and whether calls to it are kept. For reports and tests.

    Two rounds: the first measures sizes fully inlined; the second measures each function's
    own size with the first round's kept callees as calls, so a thin wrapper around a kept
    function (CMAC's `encrypt_block` around AES's) is inlined rather than called twice."""
    first = _decide(module, frozenset(), min_work, size, fusion)
    return _decide(module, frozenset(n for n, d in first.items() if d["keep"]), min_work, size, fusion)


def _decide(module: Module, kept: frozenset, min_work: int, size_mode: bool = False,
            fusion: bool = True) -> dict[str, dict]:
    stage = key_setup_stage(module)
    roots = [f.name for f in module.functions if f.name in ENTRY_NAMES] or \
        [f.name for f in module.functions if "." not in f.name]
    roots += [n for n in stage if n not in roots]
    measure, full = _Measure(module, kept), _Measure(module)
    sites_in = {}
    for f in module.functions:
        out: dict[str, int] = {}
        _call_sites(f.body, _consts(f), 1, out)
        sites_in[f.name] = out
    order = _callers_first(module, roots)
    instances: dict[str, int] = {}
    info: dict[str, dict] = {}
    for name in order:
        sites = sum(instances.get(g, 0) * n.get(name, 0) for g, n in sites_in.items())
        size, work = measure.function(name)[0], full.function(name)[1]
        root = name in roots
        if (root and not sites) or name in stage:
            keep = True
        elif size_mode:
            keep = (sites >= MIN_SITES and (sites - 1) * size > sites * call_size(module.function(name))
                    and (work >= min_work or _loops_over_buffer(module, name)
                         or (size >= MIN_SIZE and not fusion and not _runs_over_input(module, name)))
                    and not _starts_accelerator(module.function(name)))
        else:
            fn = module.function(name)
            need = min_work // 2 if _in_place(fn) else min_work
            keep = sites >= MIN_SITES and size >= MIN_SIZE and (
                work >= need or (sites * size >= MIN_COPIES_SIZE and _runs_over_input(module, name)))
        instances[name] = 1 if keep else sites + (1 if root else 0)
        info[name] = {"size": size, "work": work, "sites": sites, "keep": keep}
    return info


def _in_place(fn: Function) -> bool:
    """The function works in place on memory: every parameter is a memory (passed as its
    address), and it returns nothing. A call to it costs only the call itself (call, return,
    the registers the callee saves): no argument values to move into place and no results to move
    back, and an inlined copy would still load its operands from the memory and store them there.
    That is about half of a call's usual overhead, so such a callee is kept at half the work
    threshold (a sponge's permutation applied to a state in memory)."""
    return not fn.result_widths and all(isinstance(p, Memory) for p in fn.params)


def _reaches(module: Module, name: str, own, seen=None) -> bool:
    """`own(fn)` holds for the function `name` or for one it calls, directly or not."""
    seen = set() if seen is None else seen
    if name in seen or not module.has_function(name):
        return False
    seen.add(name)
    fn = module.function(name)
    return own(fn) or any(op.opcode == "call" and _reaches(module, op.attrs["callee"], own, seen)
                          for op in walk_ops(fn.body))


def _loops_over_buffer(module: Module, name: str) -> bool:
    """The function (or one it calls) has a loop whose bounds derive from a buffer's length
    (`len`): it walks a message or AD. Stricter than `_runs_over_input`, which also counts a
    loop bounded by a scalar parameter (OCB3's `get_l` doubling up to ntz(i)): such a helper
    stays inlined in size mode, where its bound is seen as the public value it is."""
    def own(fn: Function) -> bool:
        derived: set[int] = set()
        for op in walk_ops(fn.body):
            if op.opcode == "len" or any(isinstance(a, Value) and id(a) in derived for a in op.args):
                derived.update(id(r) for r in op.results)
            if op.opcode == "for" and any(isinstance(a, Value) and id(a) in derived for a in op.args[:2]):
                return True
        return False
    return _reaches(module, name, own)


def _starts_accelerator(fn: Function) -> bool:
    """The function itself starts an accelerator operation (a hardware block cipher call): a
    few port accesses, and inlined the accelerator scheduling fills its latency with the
    caller's work, so the size rule leaves it inlined."""
    return any(op.opcode == "accel_start" for op in walk_ops(fn.body))


def _runs_over_input(module: Module, name: str) -> bool:
    """The function (or one it calls) loops a run-time number of times (over a message or AD):
    its work grows with the input, so a call costs a fixed few tens of cycles per message while
    each inlined copy costs its whole size. Pure per-block helpers (MixColumns, a round) never
    qualify: they stay inlined, where table fusion can still turn them into tables."""
    def own(fn: Function) -> bool:
        consts = _consts(fn)
        return any(op.opcode == "for" and _trips(op, consts) is None for op in walk_ops(fn.body))
    return _reaches(module, name, own)


def kept_calls(module: Module, min_work: int = MIN_WORK, size: bool = False, fusion: bool = True) -> frozenset[str]:
    """Full names of the functions whose calls `inline=auto` keeps (`size`: the size mode's rule;
    `fusion`: table fusion will run, so per-block helpers must stay inlined)."""
    return frozenset(n for n, d in decide(module, min_work, size, fusion).items() if d["keep"] and d["sites"])
