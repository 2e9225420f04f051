"""Secret-taint analysis of the IR a target compiled (the module after the IR passes).

Every exported function is analysed with its parameters' secrecy from `roles`; a value is secret
if any operand it is computed from is secret (a load also if its index is), a memory's contents
are secret once a secret is stored into it (memories are tracked through calls: a callee's
memory parameter is the caller's memory). Calls the passes kept are analysed per call with the
callee's argument secrecy (no recursion exists: the frontend refuses it). The whole module is
re-analysed until the set of secret memories no longer grows.

Reported (`findings.Finding`, level "ir"): an `if` on a secret ("branch"), a `for` whose bounds
depend on a secret ("loop"), and every load or store whose index, offset or byte count depends on
a secret ("index", naming the memory). Whether a shift by a run-time amount or a division is a
loop is the target's choice: `taint_mir` sees that in the selected code.

Reads only the IR; changes nothing.
"""
from __future__ import annotations

from aedsl.ir.nodes import Block, Function, Memory, Module, Value

from .findings import Finding
from .roles import is_secret

INDEXED = {"load": (1,), "store": (1,), "load_be": (1, 2), "load_le": (1, 2), "store_be": (1, 3),
           "store_le": (1, 3)}


class IrTaint:
    def __init__(self, module: Module, entries: list[str]):
        self.module = module
        self.entries = list(entries)
        self.secret_mem: set[int] = set()            # id() of memories whose contents are secret
        self.mem_names: dict[int, Memory] = {}
        self.findings: set[Finding] = set()
        self.version = 0
        self.memo: dict = {}
        self.loc = None

    # --- driver ------------------------------------------------------------------------------
    def run(self) -> list[Finding]:
        while True:
            before = len(self.secret_mem)
            self.findings = set()
            self.memo = {}
            for name in self.entries:
                fn = self.module.function(name)
                args, binds = [], {}
                for p in fn.params:
                    if isinstance(p, Memory):
                        binds[p] = p
                        self._note(p)
                        if is_secret(p.name):
                            self._taint_mem(p)
                    else:
                        args.append(is_secret(p.name))
                self.function(fn, args, binds)
            if len(self.secret_mem) == before:
                return sorted(self.findings)

    def _note(self, m: Memory) -> None:
        self.mem_names[id(m)] = m

    def _taint_mem(self, m: Memory) -> None:
        if id(m) not in self.secret_mem:
            self.secret_mem.add(id(m))
            self.version += 1

    # --- functions and blocks ----------------------------------------------------------------------
    def function(self, fn: Function, args: list[bool], binds: dict) -> list[bool]:
        key = (fn.name, tuple(args), tuple(id(binds.get(p, p)) for p in fn.params if isinstance(p, Memory)),
               self.version)
        if key in self.memo:
            return self.memo[key]
        vals: dict[Value, bool] = {}
        mems = dict(binds)
        scalars = iter(args)
        for p in fn.params:
            if not isinstance(p, Memory):
                vals[p] = next(scalars)
        for m in fn.locals:
            mems[m] = m
            self._note(m)
        out = self.block(fn.body, vals, mems, fn.name)
        self.memo[key] = out
        return out

    def block(self, block: Block, vals: dict, mems: dict, fname: str) -> list[bool]:
        for op in block.ops:
            self.op(op, vals, mems, fname)
        return [vals.get(y, False) for y in block.yields]

    def mem(self, m: Memory, mems: dict) -> Memory:
        c = mems.get(m, m)
        self._note(c)
        return c

    def find(self, kind: str, op, fname: str, detail: str, memory: str = "") -> None:
        # an op a pass made has no position of its own: the last statement seen before it (as
        # the selectors attribute code)
        self.findings.add(Finding(kind, tuple(op.loc or self.loc or ()), "ir", fname, detail, memory))

    # --- ops ---------------------------------------------------------------------------------------
    def op(self, op, vals: dict, mems: dict, fname: str) -> None:
        code = op.opcode
        if op.loc is not None:
            self.loc = op.loc

        def t(a) -> bool:
            return vals.get(a, False) if isinstance(a, Value) else False

        if code == "for":
            self._for(op, vals, mems, fname, t)
            return
        if code == "if":
            c = t(op.args[0])
            if c:
                self.find("branch", op, fname, "`if` on a secret condition")
            outs = [False] * len(op.results)
            for region in op.regions:
                ys = self.block(region, vals, mems, fname)
                outs = [o or y for o, y in zip(outs, ys)]
            for r, o in zip(op.results, outs):
                vals[r] = o or c
            return
        if code == "call":
            callee = self.module.function(op.attrs["callee"])
            args, binds = [], {}
            for p, a in zip(callee.params, op.args):
                if isinstance(p, Memory):
                    binds[p] = self.mem(a, mems)
                else:
                    args.append(t(a))
            here = self.loc
            outs = self.function(callee, args, binds)
            self.loc = here
            for r, o in zip(op.results, outs):
                vals[r] = o
            return
        if code in INDEXED:
            m = self.mem(op.args[0], mems)
            where = [op.args[k] for k in INDEXED[code] if k < len(op.args)]
            if any(t(a) for a in where):
                what = "table" if m.kind == "table" else "memory"
                verb = "store into" if code.startswith("store") else "load from"
                self.find("index", op, fname, f"{verb} {what} @{m.name} at a secret-dependent index", m.name)
            if code.startswith("store"):
                if t(op.args[2]) or any(t(a) for a in where):      # the stored value is args[2]
                    self._taint_mem(m)
                return
            vals[op.results[0]] = id(m) in self.secret_mem or any(t(a) for a in where)
            return
        if code == "len":
            vals[op.results[0]] = False
            return
        if code == "addr_low":                  # the buffer's address is public, not the offset
            vals[op.results[0]] = t(op.args[1])
            return
        secret = any(t(a) for a in op.args)
        for r in op.results:
            vals[r] = secret

    def _for(self, op, vals: dict, mems: dict, fname: str, t) -> None:
        bound = t(op.args[0]) or t(op.args[1])
        if bound:
            self.find("loop", op, fname, "loop bound depends on a secret")
        body = op.regions[0]
        index, *params = body.params
        carried = [t(a) for a in op.args[2:]]
        while True:
            vals[index] = bound
            for p, c in zip(params, carried):
                vals[p] = c
            ys = self.block(body, vals, mems, fname)
            new = [c or y for c, y in zip(carried, ys)]
            if new == carried:
                break
            carried = new
        for r, c in zip(op.results, carried):
            vals[r] = c or bound


def analyse(module: Module, entries: list[str]) -> list[Finding]:
    """The findings of the IR taint analysis of `module`'s exported functions `entries`."""
    return IrTaint(module, entries).run()
