"""The reference semantics: executes an IR module exactly, op by op.

For speed the module is translated once into Python source — one Python statement per IR op,
in IR order — and exec'd; walking the tree per op would be ~50x slower. Values are Python ints
masked to their width; memories are Python lists of ints (one per element).

    program = compile_module(module)
    outputs = program.call("encrypt_block", [round_keys_list, 0x0011...])

Semantics fixed here (the IR docs in nodes.py summarise them): arithmetic wraps mod 2^width;
`udiv` by zero gives 0 and `umod` by zero gives the dividend; shifts by >= width give 0;
`load_be`/`load_le` with a count read only that many bytes (the others are zero).
"""
from __future__ import annotations

from typing import Callable

from .nodes import Block, Function, Memory, Module, Op


class InterpError(Exception):
    """A run-time fault of the interpreted program (index out of range, bad length)."""


def _load_be(mem, off, nbytes, count=None):
    n = nbytes if count is None else min(count, nbytes)
    if off + n > len(mem):
        raise InterpError(f"load of {n} bytes at {off} beyond a buffer of {len(mem)}")
    v = 0
    for k in range(nbytes):
        v = (v << 8) | (mem[off + k] if k < n else 0)
    return v


def _load_le(mem, off, nbytes, count=None):
    n = nbytes if count is None else min(count, nbytes)
    if off + n > len(mem):
        raise InterpError(f"load of {n} bytes at {off} beyond a buffer of {len(mem)}")
    v = 0
    for k in range(n):
        v |= mem[off + k] << (8 * k)
    return v


def _store_be(mem, off, value, nbytes, count=None):
    n = nbytes if count is None else min(count, nbytes)
    if off + n > len(mem):
        raise InterpError(f"store of {n} bytes at {off} beyond a buffer of {len(mem)}")
    for k in range(n):
        mem[off + k] = (value >> (8 * (nbytes - 1 - k))) & 0xFF


def _store_le(mem, off, value, nbytes, count=None):
    n = nbytes if count is None else min(count, nbytes)
    if off + n > len(mem):
        raise InterpError(f"store of {n} bytes at {off} beyond a buffer of {len(mem)}")
    for k in range(n):
        mem[off + k] = (value >> (8 * k)) & 0xFF


def _perm(x, table):
    r = 0
    for i, dest in enumerate(table):
        r |= ((x >> i) & 1) << dest
    return r


def _udiv(x, y):
    return x // y if y else 0


def _umod(x, y):
    return x % y if y else x


# What the accelerator operations compute: installed by the layer that knows the specs
# (`aedsl.engines.accel_model.install()`: the software spec each accelerator replaces). The IR
# itself does not know what an accelerator computes.
ACCEL_MODEL: list = []


def install_accel_model(run) -> None:
    """Make `run(op_name, args) -> int` the semantics of `accel_start`/`accel_result`."""
    ACCEL_MODEL[:] = [run]


def _accel(token):
    """Run an accelerator operation through the installed model."""
    op, args = token
    if not ACCEL_MODEL:
        raise InterpError(f"accelerator operation {op!r}: no accelerator model is installed "
                          "(aedsl.engines.accel_model.install())")
    return ACCEL_MODEL[0](op, args)


def _join_words(words, counts, word_bits):
    """Legalized accelerator operands: each logical operand from its words (word 0 lowest)."""
    out, i = [], 0
    for n in counts:
        out.append(sum(x << (word_bits * k) for k, x in enumerate(words[i:i + n])))
        i += n
    return tuple(out)


def _split_words(value, widths, word_bits):
    return tuple((value >> (word_bits * k)) & ((1 << w) - 1) for k, w in enumerate(widths))


RUNTIME = {"_join_words": _join_words, "_split_words": _split_words, "_load_be": _load_be, "_load_le": _load_le, "_store_be": _store_be,
           "_store_le": _store_le, "_perm": _perm, "_udiv": _udiv, "_umod": _umod,
           "_accel": _accel, "InterpError": InterpError}


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
        r = n(op.results[0]) if op.results else None
        w = op.results[0].width if op.results else 0
        mask = (1 << w) - 1
        code = op.opcode
        simple = {
            "xor": "{0} ^ {1}", "and": "{0} & {1}", "or": "{0} | {1}",
            "add": "({0} + {1}) & M", "sub": "({0} - {1}) & M", "mul": "({0} * {1}) & M",
            "udiv": "_udiv({0}, {1})", "umod": "_umod({0}, {1})",
            "not": "{0} ^ M", "neg": "-{0} & M",
            "eq": "int({0} == {1})", "ne": "int({0} != {1})", "ult": "int({0} < {1})",
            "ule": "int({0} <= {1})", "ugt": "int({0} > {1})", "uge": "int({0} >= {1})",
            "select": "{1} if {0} else {2}", "zext": "{0}", "trunc": "{0} & M",
            "shr_var": "{0} >> {1}", "shl_var": "({0} << {1}) & M if {1} < W else 0",
            "len": "len({0})", "load": "{0}[{1}]",
            "umulh": "({0} * {1}) >> W",
        }
        if code in simple:
            expr = simple[code].format(*a).replace("M", str(mask)).replace("W", str(w))
            self.emit(ind, f"{r} = {expr}")
        elif code == "const":
            self.emit(ind, f"{r} = {op.attrs['value']}")
        elif code in ("shl", "shr", "rotl", "rotr"):
            k = op.attrs["by"]
            x = a[0]
            if code == "shl":
                expr = f"({x} << {k}) & {mask}"
            elif code == "shr":
                expr = f"{x} >> {k}"
            else:
                k = k % w
                if code == "rotr":
                    k = (w - k) % w
                expr = x if k == 0 else f"(({x} << {k}) | ({x} >> {w - k})) & {mask}"
            self.emit(ind, f"{r} = {expr}")
        elif code == "slice":
            lo = op.attrs["lo"]
            self.emit(ind, f"{r} = ({a[0]} >> {lo}) & {mask}")
        elif code == "concat":
            parts = []
            shift = w
            for x, v in zip(a, op.args):
                shift -= v.width
                parts.append(f"({x} << {shift})" if shift else x)
            self.emit(ind, f"{r} = {' | '.join(parts)}")
        elif code == "perm":
            key = f"P{len(self.consts)}"
            self.consts[key] = tuple(op.attrs["table"])
            self.emit(ind, f"{r} = _perm({a[0]}, {key})")
        elif code == "store":
            self.emit(ind, f"{a[0]}[{a[1]}] = {a[2]}")
        elif code in ("load_be", "load_le"):
            rest = ", " + a[2] if len(a) > 2 else ""
            self.emit(ind, f"{r} = _{code}({a[0]}, {a[1]}, {op.attrs['bytes']}{rest})")
        elif code in ("store_be", "store_le"):
            rest = ", " + a[3] if len(a) > 3 else ""
            self.emit(ind, f"_{code}({a[0]}, {a[1]}, {a[2]}, {op.attrs['bytes']}{rest})")
        elif code == "call":
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
        elif code == "accel_start" and "words" in op.attrs:
            # Legalized (passes/legalize.py): operands arrive as words, joined back here.
            self.emit(ind, f"{r} = ({op.attrs['op']!r}, _join_words(({''.join(x + ', ' for x in a)}), "
                           f"{tuple(op.attrs['words'])!r}, {op.attrs['word_bits']}))")
        elif code == "accel_start":
            self.emit(ind, f"{r} = ({op.attrs['op']!r}, ({''.join(x + ', ' for x in a)}))")
        elif code == "accel_result" and "word_bits" in op.attrs:
            widths = tuple(v.width for v in op.results)
            self.emit(ind, f"{''.join(n(v) + ', ' for v in op.results)}= "
                           f"_split_words(_accel({a[0]}), {widths!r}, {op.attrs['word_bits']})")
        elif code == "accel_result":
            self.emit(ind, f"{r} = _accel({a[0]})")
        elif code in ("addc", "subb"):
            # Word legalization's carry chains: (sum, carry out) / (difference, borrow out).
            c = n(op.results[1])
            if code == "addc":
                self.emit(ind, f"{c} = {a[0]} + {a[1]} + {a[2]}")
            else:
                self.emit(ind, f"{c} = {a[0]} - {a[1]} - {a[2]}")
            self.emit(ind, f"{r}, {c} = {c} & {mask}, {'int(' + c + ' >> ' + str(w) + ')' if code == 'addc' else 'int(' + c + ' < 0)'}")
        else:
            raise InterpError(f"the interpreter does not know op {code!r}")

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
