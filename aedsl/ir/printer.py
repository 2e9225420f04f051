"""IR -> text. Deterministic: the output depends only on the module, never on dict/set order.

    table @sbox: u8[256] = {0x63, 0x7c, ...}
    func @encrypt_block(@rk: u64[32], %b: u128) -> (u128) {
      local @l: u64[33]
      %y: u64 = slice %b [lo=64]
      %x.2: u64, %y.2: u64 = for %i: u16 = %t.0 to %t.1 iter(%x.1: u64 = %x, %y.1: u64 = %y) [unroll=1] {
        ...
        yield %x.3, %y.3
      }
      return %r
    }
"""
from __future__ import annotations

from .nodes import Block, Function, Memory, Module, Op, Value


def operand(x) -> str:
    return f"@{x.name}" if isinstance(x, Memory) else f"%{x.name}"


def typed(v: Value) -> str:
    return f"%{v.name}: {'token' if v.width == 0 else f'u{v.width}'}"


def attr_text(value, hexadecimal: bool = False) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(str(x) for x in value) + "]"
    if isinstance(value, str):
        return f'"{value}"'
    if hexadecimal and value > 9:
        return hex(value)
    return str(value)


def attrs_text(attrs: dict, skip=()) -> str:
    items = [f"{k}={attr_text(attrs[k])}" for k in sorted(attrs) if k not in skip]
    return f" [{', '.join(items)}]" if items else ""


def print_op(op: Op, indent: str, out: list[str]) -> None:
    lhs = ", ".join(typed(r) for r in op.results)
    prefix = f"{indent}{lhs} = " if lhs else indent
    if op.opcode == "for":
        lo, hi, *inits = op.args
        body = op.regions[0]
        index, *carried = body.params
        iters = ", ".join(f"{typed(p)} = {operand(i)}" for p, i in zip(carried, inits))
        out.append(f"{prefix}for {typed(index)} = {operand(lo)} to {operand(hi)} iter({iters})"
                   f"{attrs_text(op.attrs)} {{")
        print_block(body, indent + "  ", out, "yield")
        out.append(f"{indent}}}")
        return
    if op.opcode == "if":
        out.append(f"{prefix}if {operand(op.args[0])}{attrs_text(op.attrs)} {{")
        print_block(op.regions[0], indent + "  ", out, "yield")
        out.append(f"{indent}}} else {{")
        print_block(op.regions[1], indent + "  ", out, "yield")
        out.append(f"{indent}}}")
        return
    if op.opcode == "call":
        args = ", ".join(operand(a) for a in op.args)
        out.append(f"{prefix}call @{op.attrs['callee']}({args}){attrs_text(op.attrs, ('callee',))}")
        return
    if op.opcode == "const":
        out.append(f"{prefix}const {attr_text(op.attrs['value'], hexadecimal=True)}")
        return
    args = ", ".join(operand(a) for a in op.args)
    out.append(f"{prefix}{op.opcode} {args}{attrs_text(op.attrs)}".rstrip())


def print_block(block: Block, indent: str, out: list[str], terminator: str) -> None:
    for op in block.ops:
        print_op(op, indent, out)
    if block.yields or terminator == "yield":
        out.append(f"{indent}{terminator} {', '.join(operand(v) for v in block.yields)}".rstrip())


def print_function(f: Function, out: list[str]) -> None:
    params = ", ".join(f"@{p.name}: {p.type_str()}" if isinstance(p, Memory) else typed(p)
                       for p in f.params)
    rets = ", ".join(f"u{w}" for w in f.result_widths)
    out.append(f"func @{f.name}({params}) -> ({rets}) {{")
    for m in f.locals:
        out.append(f"  local @{m.name}: {m.type_str()}")
    print_block(f.body, "  ", out, "return")
    if not f.body.yields:
        out.append("  return")
    out.append("}")


def domain_text(values) -> str:
    if isinstance(values, range):
        return f"{values.start}..{values.stop}"
    return "{" + ",".join(str(v) for v in values) + "}"


def print_module(m: Module) -> str:
    out = [f"// module {m.name}" + ("  knobs: " + " ".join(f"{k}={v}" for k, v in m.knobs.items())
                                    if m.knobs else "")]
    # consts and domains are what an engine reads besides the functions (block_bits, key_len ...);
    # printed so that aedsl/ir/parser.py gives back a module that runs as a spec.
    if m.consts:
        out.append("// consts: " + " ".join(f"{k}={v}" for k, v in m.consts.items()))
    if m.domains:
        out.append("// domains: " + " ".join(f"{k}={domain_text(v)}" for k, v in m.domains.items()))
    for t in m.tables:
        data = ", ".join(f"{x:#x}" for x in t.data or ())
        out.append(f"table @{t.name}: {t.type_str()} = {{{data}}}")
    for f in m.functions:
        out.append("")
        print_function(f, out)
    return "\n".join(out) + "\n"
