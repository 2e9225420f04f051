"""Inline calls, so later passes see one straight function per entry point.

Knob `inline`: `auto` (default) keeps a call where a subroutine pays (the size/benefit heuristic
of `call_policy.py`: big callees with work that dwarfs a call's overhead, called from several
places; entry points called from other entry points) and inlines the rest; `all` inlines every
call it can; `none` leaves calls alone; `entries` inlines all but the calls to entry points
(KEPT_CALLS: a used primitive's `key_schedule` / `encrypt_block` / `decrypt_block`, a scheme's
key-setup stage), which stay calls so a backend can emit each once as a subroutine (code size: a
mode calls AES from many places). Backends without subroutine calls inline kept calls at selection.
A call is replaced by a copy of the callee's body (fresh value names), with scalar parameters
bound to the arguments and memory parameters to the memories passed. A callee's local arrays
become locals of the caller; because locals are zeroed only on function entry, a callee with
locals is inlined only where the call is at the caller's top level (not inside a loop or `if`,
where the zeroing would happen once instead of per call) — such calls stay calls.
Knob `opt` (`speed` | `size`, default speed; the compiler-wide speed/size choice, declared here
because inlining is where it matters most; targets read it too): under `auto`, `size` applies the
call policy's size rule (call_policy.py: a callee with several call sites is one subroutine
whenever that is smaller).
Under `auto` a scheme's key-setup stage (`key_setup`, `encrypt_with`, `decrypt_with`) stays calls
from `encrypt`/`decrypt` and is a root: each is flattened once by the policy (call_policy.py), and
the backends export the stage.
Afterwards the module keeps only the entry points (`key_schedule`, `encrypt_block`,
`decrypt_block`, `encrypt`, `decrypt`, the key-setup stage, or, if it has none of these, all of
its own un-dotted functions) and the functions still called from them.

Preserves: the results and memory effects of every kept function, in order.
Assumes: no recursion (the DSL has none).
"""
from __future__ import annotations

from aedsl.knobs import Knob

from ..nodes import Block, Function, Memory, Module, walk_ops
from .call_policy import MIN_WORK, kept_calls
from .common import Subst, Names, clone_block, is_size_mode, knob_int, reachable_functions, resolve, substitute

NAME = "inline"
POLICIES = ("auto", "all", "none", "entries")
OPT_MODES = ("speed", "size")
KNOBS = (
    Knob("inline", "pass", POLICIES, "auto",
         doc="which calls are inlined: auto (the call policy keeps big multi-site callees), all, none, entries"),
    Knob("opt", "pass", OPT_MODES, "speed",
         doc="optimise for speed (default) or code size: inlining, table strategy, unrolling, runtime glue"),
    Knob("call_min_work", "pass", None, None, minimum=1,
         doc="the call policy's work threshold for keeping a callee a call (targets set their own)"),
)


# Entry points kept as calls by `inline=entries` (matched on the last dotted component).
KEPT_CALLS = frozenset({"key_schedule", "encrypt_block", "decrypt_block", "key_setup", "encrypt_with",
                        "decrypt_with"})


def _inline_block(block: Block, module: Module, fn: Function, names: Names, top: bool,
                  subst: dict[int, object], keep=frozenset()) -> None:
    """Inline the calls in `block` except those whose callee's full name is in `keep`."""
    out = []
    for op in block.ops:
        op.args = [resolve(subst, a) for a in op.args]
        for r in op.regions:
            _inline_block(r, module, fn, names, False, subst, keep)
        if op.opcode != "call" or op.attrs["callee"] in keep:
            out.append(op)
            continue
        callee = module.function(op.attrs["callee"])
        if callee.locals and not top:
            out.append(op)
            continue
        vmap: dict[int, object] = {}
        for p, a in zip(callee.params, op.args, strict=True):
            vmap[id(p)] = a
        for m in callee.locals:
            local = Memory(names.fresh(m.name), m.elem_width, m.length, "local")
            names.used.add(local.name)
            fn.locals.append(local)
            vmap[id(m)] = local
        body = clone_block(callee.body, vmap, names)
        out.extend(body.ops)
        for r, y in zip(op.results, body.yields, strict=True):
            subst.bind(r, y)
    block.ops = out
    block.yields = [resolve(subst, y) for y in block.yields]


def _callees_first(module: Module) -> list[Function]:
    """Functions ordered so that every callee comes before its callers."""
    order: list[Function] = []
    state: dict[str, int] = {}

    def visit(f: Function) -> None:
        if state.get(f.name) == 2:
            return
        if state.get(f.name) == 1:
            raise ValueError(f"recursive call through {f.name}")
        state[f.name] = 1
        for op in walk_ops(f.body):
            if op.opcode == "call":
                visit(module.function(op.attrs["callee"]))
        state[f.name] = 2
        order.append(f)

    for f in module.functions:
        visit(f)
    return order


def run(module: Module, knobs: dict) -> Module:
    module = module.clone()
    policy = str((knobs or {}).get("inline", "auto"))
    if policy not in POLICIES:
        raise ValueError(f"knob inline={policy!r}: expected one of {', '.join(POLICIES)}")
    if policy == "entries":
        keep = frozenset(f.name for f in module.functions if f.name.rsplit(".", 1)[-1] in KEPT_CALLS)
    else:
        size = is_size_mode(knobs)
        # table fusion will turn byte tables (an S-box) and the code around them into word tables
        fusion = (str((knobs or {}).get("table_fusion", "full")) != "none"     # table_fusion's default
                  and any(t.elem_width == 8 and t.length == 256 for t in module.tables))
        keep = (kept_calls(module, knob_int(knobs, "call_min_work", MIN_WORK), size, fusion) if policy == "auto"
                else frozenset())
    if policy != "none":
        # Callees first: each callee is already flat when it is copied into its callers.
        for fn in _callees_first(module):
            subst = Subst()
            _inline_block(fn.body, module, fn, Names(fn), True, subst, keep)
            substitute(fn.body, subst)
    module.functions = reachable_functions(module)
    return module
