"""Translation validation: run a function before and after a transformation on the same random
inputs (seeded) in the reference interpreter and compare results and written memories.

`convert` adapts a call to a module whose interface the transformation changed (legalize splits
wide scalars and memory elements into words): see aedsl.ir.passes.legalize.Interface.
"""
from __future__ import annotations

import random

from aedsl.ir.interp import InterpError, compile_module
from aedsl.ir.nodes import Memory, Module


def random_args(module: Module, fn_name: str, rng: random.Random) -> list:
    fn = module.function(fn_name)
    d = module.domains
    lengths: dict[str, int] = {}
    for name in ("key", "nonce", "tag"):
        if f"{name}_len" in d:
            dom = d[f"{name}_len"]  # a tuple or a (possibly huge) range
            lengths[name] = dom[0] if name == "key" else rng.choice(
                [x for x in (dom[0], 12, 16, dom[-1]) if x in dom and x <= 64])
    # The AEAD conventions: ct has len(msg) bytes.
    n = rng.choice([0, 1, 15, 16, 17, 33])
    lengths["msg"] = lengths["ct"] = n
    args = []
    for p in fn.params:
        if isinstance(p, Memory):
            length = p.length if p.length is not None else lengths.get(p.name, rng.choice([0, 5, 16, 23]))
            args.append([rng.getrandbits(p.elem_width) for _ in range(length)])
        else:
            args.append(rng.getrandbits(p.width))
    return args


def _run(program, fn, args):
    try:
        return ("ok", program.call(fn, args), args)
    except (InterpError, IndexError) as e:  # both sides must fault alike (e.g. an index out of range;
        # a subroutine the inline pass kept runs on random inputs outside its callers' domain)
        return ("fault", type(e).__name__, None)


def check_equivalent(before: Module, after: Module, trials: int = 3, seed: int = 1,
                     interface=None, functions=None, programs: dict | None = None) -> int:
    """Assert equal behaviour of every function present in both modules; return how many calls
    were compared (so a caller can assert something was checked). `programs`: the caller's
    modules compiled for the interpreter so far, by id (a chain of passes compiles each output
    once, as the next pass's input; the caller changes no module it gives and keeps them alive)."""
    def program(m: Module):
        if programs is None:
            return compile_module(m)
        if id(m) not in programs:
            programs[id(m)] = (m, compile_module(m))
        return programs[id(m)][1]
    p0, p1 = program(before), program(after)
    names = functions or [f.name for f in after.functions if before.has_function(f.name)]
    rng = random.Random(seed)
    compared = 0
    for fn in names:
        for t in range(trials):
            args = random_args(before, fn, rng)
            a0 = [list(x) if isinstance(x, list) else x for x in args]
            r0 = _run(p0, fn, a0)
            if interface is None:
                a1 = [list(x) if isinstance(x, list) else x for x in args]
                r1 = _run(p1, fn, a1)
                got = r1 if r1[0] == "fault" else ("ok", r1[1], a1)
            else:
                a1 = interface.split_args(fn, args)
                r1 = _run(p1, fn, a1)
                got = r1 if r1[0] == "fault" else \
                    ("ok", interface.join_results(fn, r1[1]), interface.join_args(fn, a1))
            assert got[0] == r0[0], f"{fn} trial {t}: {r0[0]} before, {got[0]} after ({got[1] if got[0] == 'fault' else ''})"
            if r0[0] == "ok":
                assert tuple(got[1]) == tuple(r0[1]), f"{fn} trial {t}: results differ"
                assert got[2] == r0[2], f"{fn} trial {t}: memories differ"
            compared += 1
    return compared
