"""A table read at a loop's index whose entries, over every index the loop can reach, are an
affine function of the index becomes a value the loop carries and steps by a constant.

The IR shape (general, not tied to a scheme): a `for` loop whose index is read only by table
loads `load @T, i`, each of them such a progression (else the index stays, and a carried value
would only take a register), with a constant upper bound `hi` and a lower bound computed from constants and
from parameters of its function that every call in the module passes as a constant (the function
is a used spec's, `U.f`, never an entry point of the unit, so its calls are all here). Over the
indices the loop can reach, [least lower bound, hi), each table's entries are `a + b * i` modulo
2^w (w the entry width): Ascon-p's round constants 0xf0, 0xe1, .., 0x4b at indices 4 .. 15, which
`permute(s, 12)` and `permute(s, 6)` start at 4 and 10 (the four constants SP 800-232 puts in front
break the progression, but no call reaches them).

The load goes; the loop carries `c` instead, `c = a + b * lo` before it and `c + b` at the end of
each turn. The index is then read by nothing, and the selector counts the loop with `c` itself
(`select_base.affine_counter`: until c is `a + b * hi`), the hand-written loop's "sub #15; cmp
#60" with no counter and no table (ascon-c's Cortex-M0 round). The table stays in the module
while anything else reads it.

Where the entries are an integer progression `e + s * i` (s signed, no wrap modulo 2^w) over the
reachable indices and the value after the last turn, the step is `c - |s|` or `c + |s|` and the
start `E + t * x` when the lower bound is `C - x` (a loop over the last x entries: E = e + s * C,
t = -s; Ascon-p's `60 + 15 * rounds`), or `e + s * lo`; those ops get the attribute `nowrap`
when every intermediate stays in [0, 2^w) for every argument the module passes: the exact
integer equals the modular one, so a target keeps no mask to w bits. A loop that every call
enters (each reachable lower bound below `hi`) gets `entered`: the selector drops its entry test.
Both attributes are facts about the module as it is (its calls), like the progression itself.

Where that start is `E + t * x` and x is a parameter that nothing else reads but the lower bound
`C - x`, the calls pass `E + t * v` for their constant v instead (`_premap`): the start is the
parameter itself, and the lower bound reads v back by comparing the parameter with each mapped
constant (a select per constant: dead code once the loop counts with c). The loop then gets the
attribute `until`, c's value after its last turn (`e + s * hi`), which the selector counts to
(`select_base.affine_counter`) since no linear form ties the start to the lower bound any more:
Ascon-p's entry loses its `15 * rounds + 60` (the calls pass 240 and 150).

Knob `affine_tables`: `on` | `off`; a target chooses its default (`Backend.pass_knobs`): the
carried constant costs a register where an indexed read from the table costs none (MSP430's
`xor rc(r), x`).

Preserves: every function's results and memory effects (at every turn c equals the entry the load
read, for every argument the module passes; the loop runs the same turns).
"""
from __future__ import annotations

from itertools import product

from aedsl.knobs import Knob

from ..nodes import Function, Memory, Module, Op, Value, walk_ops
from .common import Names, Subst, const_defs, evaluate, substitute

NAME = "affine_tables"
KNOBS = (Knob("affine_tables", "pass", ("on", "off"), "off",
              doc="a table read at a loop index that is affine over the indices the loop reaches "
                  "becomes a value the loop carries and steps (the loop counts with it); the "
                  "target picks the default"),)
MAX_COMBINATIONS = 64       # argument combinations evaluated for a loop's lower bound


def acts(knobs: dict) -> bool:
    return str(knobs.get("affine_tables", "off")) == "on"


def _call_constants(module: Module) -> dict[str, list[set[int] | None]]:
    """For each used spec's function (`U.f`), per parameter: the constants its calls pass there,
    or None where some call passes something else (or the parameter is a memory)."""
    out: dict[str, list[set[int] | None]] = {}
    for fn in module.functions:
        consts = const_defs(fn)
        for op in walk_ops(fn.body):
            if op.opcode != "call" or "." not in op.attrs["callee"]:
                continue
            sets = out.setdefault(op.attrs["callee"], [set() for _ in op.args])
            for k, a in enumerate(op.args):
                if sets[k] is None:
                    continue
                if isinstance(a, Memory) or id(a) not in consts:
                    sets[k] = None
                else:
                    sets[k].add(consts[id(a)])
    return out


def _values(v, env: dict[int, int], defs: dict[int, Op]) -> int | None:
    """v's value given the parameters' values in env, through the pure ops that define it; None
    where it depends on anything else (another parameter, a load, a call)."""
    if id(v) in env:
        return env[id(v)]
    d = defs.get(id(v))
    if d is None or d.regions or d.opcode in ("load", "call") or len(d.results) != 1:
        return None
    args = [_values(a, env, defs) for a in d.args]
    if any(x is None or isinstance(x, Memory) for x in args):
        return None
    return evaluate(d, args)[0]


def _affine(data: tuple[int, ...], lo: int, hi: int, width: int) -> tuple[int, int] | None:
    """(a, b) with data[i] == (a + b * i) mod 2^width for every lo <= i < hi, else None."""
    if 0 <= lo and hi <= len(data) and hi - lo >= 3:
        m = (1 << width) - 1
        b = (data[lo + 1] - data[lo]) & m
        a = (data[lo] - b * lo) & m
        if all(data[i] == (a + b * i) & m for i in range(lo, hi)):
            return a, b
    return None


def _rewrite(fn: Function, ranges: list[set[int] | None], module: Module) -> None:
    names = Names(fn)
    top = fn.body
    defs = {id(r): op for op in top.ops for r in op.results}
    known = [(p, ranges[k]) for k, p in enumerate(fn.params) if isinstance(p, Value) and ranges[k]]
    envs = [dict(zip([id(p) for p, _ in known], vals)) for vals in product(*[sorted(s) for _, s in known])]
    if len(envs) > MAX_COMBINATIONS:
        return
    for loop in [op for op in top.ops if op.opcode == "for"]:
        body = loop.regions[0]
        index = body.params[0]
        uses = [o for o in walk_ops(body) if any(a is index for a in o.args)]
        at_top = {id(o) for o in body.ops}
        if not uses or any(o.opcode != "load" or o.args[1] is not index or id(o) not in at_top
                           or o.args[0].kind != "table" for o in uses) or any(y is index for y in body.yields):
            continue
        his = {_values(loop.args[1], e, defs) for e in envs}
        los = {_values(loop.args[0], e, defs) for e in envs}
        if None in his or None in los or len(his) != 1:
            continue
        hi, lo = his.pop(), min(los)
        progressions = [_affine(ld.args[0].data, lo, hi, ld.args[0].elem_width) if lo < hi else None
                        for ld in uses]
        if None in progressions:
            continue                # the index stays: a carried value would only add a register
        subst = Subst()
        for ld, (a, b) in zip(uses, progressions):
            w = ld.results[0].width
            exact = _exact_progression(ld.args[0].data, lo, hi, b, w)
            pre, c0, form = _start(loop.args[0], defs, envs, exact, a, b, w, names)
            if form is not None and len(uses) == 1 and _premap(fn, module, loop, form, ranges, defs, names):
                pre, c0 = [], form[0]
                loop.attrs["until"] = exact[0] + exact[1] * hi
            at = next(k for k, o in enumerate(top.ops) if o is loop)
            top.ops[at:at] = pre
            c, step, nxt, res = (names.value("c", w), names.value("step", w), names.value("c", w),
                                 names.value("c", w))
            body.ops = [o for o in body.ops if o is not ld]
            if exact is None:
                body.ops += [Op("const", [step], [], {"value": b}), Op("add", [nxt], [c, step])]
            else:
                s = exact[1]
                body.ops += [Op("const", [step], [], {"value": abs(s)}),
                             Op("sub" if s < 0 else "add", [nxt], [c, step], {"nowrap": 1})]
            body.params.append(c)
            body.yields.append(nxt)
            loop.args.append(c0)
            loop.results.append(res)
            subst.bind(ld.results[0], c)
        substitute(body, subst)
        if max(los) < hi:
            loop.attrs["entered"] = 1       # every call reaches at least one turn


def _exact_progression(data, lo: int, hi: int, b: int, w: int) -> tuple[int, int] | None:
    """(e, s) with data[i] == e + s * i as integers (no wrap modulo 2^w) for lo <= i <= hi, the
    value after the last turn included, s the step as a signed w-bit number; else None."""
    s = b - (1 << w) if b >= 1 << (w - 1) else b
    e = data[lo] - s * lo
    if all(0 <= e + s * i < 1 << w for i in (lo, hi)):
        return e, s
    return None


def _premap(fn: Function, module: Module, loop: Op, form: tuple, ranges: list, defs: dict[int, Op],
            names: Names) -> bool:
    """Pass the start `E + t * x` in place of x where x is a parameter that only the loop's lower
    bound `C - x` reads besides: every call passes E + t * v for its constant v, the start is
    the parameter itself, and the lower bound reads x back by comparing the parameter with each
    mapped constant (a fact about the module's calls, like `nowrap`). Returns whether it did."""
    x, big, t = form
    if x not in fn.params:
        return False
    k = fn.params.index(x)
    lo_def = defs.get(id(loop.args[0]))
    readers = [o for o in walk_ops(fn.body) if any(a is x for a in o.args)]
    if lo_def is None or readers != [lo_def] or sum(a is x for a in lo_def.args) != 1:
        return False
    values = sorted(ranges[k])
    back = names.value(x.name, x.width)
    chain = [Op("const", [back], [], {"value": values[-1]})]
    for v in values[:-1]:
        mapped, eq, kept, sel = (names.value("m", x.width), names.value("is", 1),
                                 names.value("k", x.width), names.value(x.name, x.width))
        chain += [Op("const", [mapped], [], {"value": big + t * v}), Op("eq", [eq], [x, mapped]),
                  Op("const", [kept], [], {"value": v}), Op("select", [sel], [eq, kept, back])]
        back = sel
    at = next(i for i, o in enumerate(fn.body.ops) if o is lo_def)
    fn.body.ops[at:at] = chain
    lo_def.args = [back if a is x else a for a in lo_def.args]
    for caller in module.functions:
        _map_calls(caller.body, fn.name, k, big, t, const_defs(caller), Names(caller))
    return True


def _map_calls(block, callee: str, k: int, big: int, t: int, consts: dict, names: Names) -> None:
    """Each call of `callee` in the block (and the blocks inside it) passes E + t * v as its
    k-th argument where it passed the constant v (`consts`: the caller's constants)."""
    out = []
    for op in block.ops:
        for region in op.regions:
            _map_calls(region, callee, k, big, t, consts, names)
        if op.opcode == "call" and op.attrs["callee"] == callee:
            c = names.value("mapped", op.args[k].width)
            out.append(Op("const", [c], [], {"value": big + t * consts[id(op.args[k])]}))
            op.args = op.args[:k] + [c] + op.args[k + 1:]
        out.append(op)
    block.ops = out


def _start(lo: Value, defs: dict[int, Op], envs: list[dict[int, int]], exact, a: int, b: int, w: int,
           names: Names) -> tuple[list[Op], Value, tuple | None]:
    """Ops computing the carried value's start, `a + b * lo` modulo 2^w, and that value. With an
    exact progression (e, s) and every intermediate in [0, 2^w) for every argument the module
    passes, the ops are marked `nowrap` (a target keeps no mask): `e + s * lo`, or `E + t * x`
    where lo is `C - x` (E = e + s * C, t = -s; the lower bound `n_max - rounds` of a loop over the
    last `rounds` entries then costs nothing)."""
    if exact is not None:
        e, s = exact
        forms = []
        d = defs.get(id(lo))
        if d is not None and d.opcode == "sub" and lo.width == w and d.args[1].width == w:
            cd = defs.get(id(d.args[0]))
            if cd is not None and cd.opcode == "const":
                forms.append((d.args[1], e + s * cd.attrs["value"], -s))
        if lo.width == w:
            forms.append((lo, e, s))
        for x, big, t in forms:
            xs = {_values(x, env, defs) for env in envs}
            top = 1 << w
            if None in xs or not 0 <= big < top or t == 0:
                continue
            if all(0 <= abs(t) * v < top and 0 <= big + t * v < top for v in xs):
                ct, ce, p, c = (names.value("t", w), names.value("e", w), names.value("tx", w),
                                names.value("c", w))
                return [Op("const", [ct], [], {"value": abs(t)}), Op("mul", [p], [x, ct], {"nowrap": 1}),
                        Op("const", [ce], [], {"value": big}),
                        Op("add" if t > 0 else "sub", [c], [p, ce] if t > 0 else [ce, p], {"nowrap": 1})], \
                    c, (x, big, t)
    return (*_affine_of(lo, a, b, w, names), None)


def _affine_of(lo: Value, a: int, b: int, w: int, names: Names) -> tuple[list[Op], Value]:
    """Ops computing (a + b * lo) mod 2^w, and that value."""
    ops = []
    x = lo
    if lo.width != w:
        y = names.value("lo", w)
        ops.append(Op("zext" if lo.width < w else "trunc", [y], [x]))
        x = y
    cb, ca, p, s = (names.value("b", w), names.value("a", w), names.value("lo", w), names.value("c", w))
    ops += [Op("const", [cb], [], {"value": b}), Op("mul", [p], [x, cb]),
            Op("const", [ca], [], {"value": a}), Op("add", [s], [p, ca])]
    return ops, s


def run(module: Module, knobs: dict) -> Module:
    if not acts(knobs):
        return module
    module = module.clone()
    calls = _call_constants(module)
    for fn in module.functions:
        if "." in fn.name and fn.name in calls:
            _rewrite(fn, calls[fn.name], module)
    return module
