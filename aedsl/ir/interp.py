"""The reference semantics: executes an IR module exactly, op by op.

For speed the module is translated once into Python source — one Python statement per IR op,
in IR order — and exec'd; walking the tree per op would be ~50x slower. Values are Python ints
masked to their width; memories are Python lists of ints (one per element).

    program = compile_module(module)
    outputs = program.call("encrypt_block", [round_keys_list, 0x0011...])

What each op computes comes from the op table (ops.py): every op other than `call`, `for` and
`if` becomes a call of its function there, bound once per distinct opcode, widths and attrs;
`const` is evaluated while generating. This module adds only the control structure (calls,
loops, conditionals) and the checks of a call's arguments.
"""
from __future__ import annotations

from typing import Callable

from .nodes import Block, Function, Memory, Module, Op
from .ops import ACCEL_MODEL, OPS, InterpError, bind_op, install_accel_model

__all__ = ["ACCEL_MODEL", "InterpError", "Program", "compile_module", "install_accel_model"]


RUNTIME = {"InterpError": InterpError}


class _Namer:
    """Python identifiers for IR values and memories, by object identity (collision-free)."""

    def __init__(self):
        self.names: dict[int, str] = {}
        self.keep: list = []  # hold the objects so ids stay unique while we generate

    def __call__(self, x) -> str:
        key = id(x)
        if key not in self.names:
            prefix = "m" if isinstance(x, Memory) else "v"
            self.names[key] = f"{prefix}{len(self.names)}"
            self.keep.append(x)
        return self.names[key]


class _Codegen:
    def __init__(self, module: Module):
        self.module = module
        self.lines: list[str] = []
        self.consts: dict[str, object] = {}
        self.fn_names = {f.name: f"f{i}" for i, f in enumerate(module.functions)}
        self.name = _Namer()
        self.bound_names: dict[tuple, str] = {}
        for t in module.tables:
            self.consts[self.name(t)] = list(t.data or ())

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def function(self, f: Function) -> None:
        params = ", ".join(self.name(p) for p in f.params)
        self.emit(0, f"def {self.fn_names[f.name]}({params}):")
        for m in f.locals:
            self.emit(1, f"{self.name(m)} = [0] * {m.length}")
        self.block(f.body, 1)
        self.emit(1, "return (" + "".join(self.name(v) + ", " for v in f.body.yields) + ")")
        self.emit(0, "")

    def block(self, block: Block, indent: int) -> None:
        for op in block.ops:
            self.op(op, indent)

    def op(self, op: Op, ind: int) -> None:
        n = self.name
        a = [n(x) for x in op.args]
        code = op.opcode
        if code == "call":
            lhs = "".join(n(v) + ", " for v in op.results)
            call = f"{self.fn_names[op.attrs['callee']]}({', '.join(a)})"
            self.emit(ind, f"{lhs}= {call}" if lhs else call)
        elif code == "for":
            body = op.regions[0]
            index, *params = body.params
            lo, hi, *inits = a
            for p, i in zip(params, inits):
                self.emit(ind, f"{n(p)} = {i}")
            self.emit(ind, f"for {n(index)} in range({lo}, {hi}):")
            self.block(body, ind + 1)
            self.yields(params, body.yields, ind + 1)
            self.emit(ind + 1, "pass")
            self.yields(op.results, params, ind)
        elif code == "if":
            self.emit(ind, f"if {a[0]}:")
            for region in op.regions:
                self.block(region, ind + 1)
                self.yields(op.results, region.yields, ind + 1)
                self.emit(ind + 1, "pass")
                if region is op.regions[0]:
                    self.emit(ind, "else:")
        elif code == "const":
            # evaluated here, once: the program holds the literal
            self.emit(ind, f"{n(op.results[0])} = {bind_op(op)()}")
        elif code in OPS:
            call = f"{self.bound(op)}({', '.join(a)})"
            if not op.results:
                self.emit(ind, call)
            elif OPS[code].results == 1:
                self.emit(ind, f"{n(op.results[0])} = {call}")
            else:
                self.emit(ind, f"{''.join(n(v) + ', ' for v in op.results)}= {call}")
        else:
            raise InterpError(f"the interpreter does not know op {code!r}")

    def bound(self, op: Op) -> str:
        """The program-level name of the op's function from the op table (ops.py), bound once
        per distinct (opcode, widths, attrs)."""
        key = (op.opcode, tuple(getattr(x, "width", 0) for x in op.args),
               tuple(r.width for r in op.results), repr(sorted(op.attrs.items())))
        name = self.bound_names.get(key)
        if name is None:
            name = self.bound_names[key] = f"F{len(self.bound_names)}"
            self.consts[name] = bind_op(op)
        return name

    def yields(self, targets, sources, ind: int) -> None:
        if targets:
            lhs = ", ".join(self.name(t) for t in targets)
            rhs = ", ".join(self.name(s) for s in sources)
            self.emit(ind, f"{lhs} = {rhs}")


class Program:
    """A module compiled for the interpreter; `call(name, args)` runs one function."""

    def __init__(self, module: Module):
        self.module = module
        gen = _Codegen(module)
        for f in module.functions:
            gen.function(f)
        self.source = "\n".join(gen.lines)
        namespace: dict = dict(RUNTIME)
        namespace.update(gen.consts)
        exec(compile(self.source, f"<ir {module.name}>", "exec"), namespace)
        self._functions: dict[str, Callable] = {name: namespace[py] for name, py in gen.fn_names.items()}

    def function(self, name: str) -> Callable:
        return self._functions[name]

    def call(self, name: str, args: list) -> tuple:
        """Run function `name`; scalars are ints, memories are lists (changed in place)."""
        f = self.module.function(name)
        checked = []
        for p, x in zip(f.params, args, strict=True):
            if isinstance(p, Memory):
                if not isinstance(x, list):
                    raise InterpError(f"{p.name} takes a list")
                if p.length is not None and len(x) != p.length:
                    raise InterpError(f"{p.name} takes {p.length} elements, got {len(x)}")
            elif not (isinstance(x, int) and 0 <= x < (1 << p.width)):
                raise InterpError(f"{p.name} takes a u{p.width}")
            checked.append(x)
        return self._functions[name](*checked)


def compile_module(module: Module) -> Program:
    return Program(module)
