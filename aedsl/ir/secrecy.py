"""Which values of a module may be secret: a conservative taint analysis on the IR, for the
transformations that turn a value into control flow, whose condition must then be public: the
lazy `if ... then ... else` (frontend/lazy_if.py) and a wide shift's saturation guard
(passes/saturating_shifts.py).

Public: constants, buffer lengths (`len`), loop indices over public bounds, table elements at
public indices, and whatever is computed from public values only. Secret: words read from any
other memory (parameters, locals: keys, messages, state), accelerator results, the word
parameters of a function nothing in the module calls (an entry point), and anything computed
from a secret value, including a loop-carried value that is ever secret and the results of an
`if` on a secret condition. A word parameter of a called function is public when every call
passes a public value; a call's result is public when the callee returns a public value there.
The analysis iterates to a fixpoint (secrets only grow)."""
from __future__ import annotations

from .nodes import Block, Function, Memory, Module, Value, walk_ops


class Secrecy:
    def __init__(self, module: Module):
        self.functions = {f.name: f for f in module.functions}
        sites: dict[str, list] = {name: [] for name in self.functions}
        for f in module.functions:
            for op in walk_ops(f.body):
                if op.opcode == "call" and op.attrs["callee"] in sites:
                    sites[op.attrs["callee"]].append((f.name, op))
        self.secret_params = {name: ({i for i, p in enumerate(f.params) if isinstance(p, Value)}
                                     if not sites[name] else set())
                              for name, f in self.functions.items()}
        self.secret_yields: dict[str, set[int]] = {name: set() for name in self.functions}
        self.secret: dict[str, set[int]] = {}
        changed = True
        while changed:
            changed = False
            for name, f in self.functions.items():
                self.secret[name] = self.analyse(f)
                yields = {i for i, y in enumerate(f.body.yields) if id(y) in self.secret[name]}
                if yields != self.secret_yields[name]:
                    self.secret_yields[name], changed = yields, True
            for callee, calls in sites.items():
                for caller, op in calls:
                    for i, arg in enumerate(op.args):
                        if (isinstance(arg, Value) and id(arg) in self.secret[caller]
                                and i not in self.secret_params[callee]):
                            self.secret_params[callee].add(i)
                            changed = True

    def is_public(self, fname: str, v: Value) -> bool:
        return id(v) not in self.secret[fname]

    def analyse(self, f: Function) -> set[int]:
        """The ids of the values of `f` that may be secret, given the current assumptions about
        its parameters and its callees' results."""
        secret = {id(p) for i, p in enumerate(f.params) if i in self.secret_params[f.name]}
        size = -1
        while size != len(secret):        # loop-carried values: repeat until nothing changes
            size = len(secret)
            self.visit(f.body, secret)
        return secret

    def visit(self, block: Block, secret: set[int]) -> None:
        def any_secret(values) -> bool:
            return any(isinstance(v, Value) and id(v) in secret for v in values)

        for op in block.ops:
            code = op.opcode
            if code == "for":
                body = op.regions[0]
                index, *params = body.params
                if any_secret(op.args[:2]):
                    secret.add(id(index))
                for p, init, y, r in zip(params, op.args[2:], body.yields, op.results):
                    if any_secret([init, y]):
                        secret.add(id(p))
                        secret.add(id(r))
                self.visit(body, secret)
                continue
            for region in op.regions:
                self.visit(region, secret)
            if code in ("const", "len"):
                continue
            if code == "load":
                mem, index = op.args
                tainted = mem.kind != "table" or id(index) in secret
            elif code in ("load_be", "load_le", "accel_start", "accel_result"):
                tainted = True
            elif code == "call":
                callee = op.attrs["callee"]
                if callee in self.secret_yields:
                    for i, r in enumerate(op.results):
                        if i in self.secret_yields[callee]:
                            secret.add(id(r))
                continue
            elif code == "if":
                tainted = id(op.args[0]) in secret
                for i, r in enumerate(op.results):
                    if tainted or any_secret([region.yields[i] for region in op.regions]):
                        secret.add(id(r))
                continue
            else:
                tainted = any_secret(a for a in op.args if not isinstance(a, Memory))
            if tainted:
                secret.update(id(r) for r in op.results)
