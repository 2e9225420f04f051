"""The builtin functions of the spec language and how each lowers to IR ops: `cat`, `rev8`, `len`,
`min`/`max`, byte-buffer loads and stores (`load_be`/`load_le`/`store_be`/`store_le`) and the
accelerator pair `accel_start`/`accel_result`.

Each lowering takes the expression lowering `lw` (for `expr`, `const_int` and its builder `fb`),
the argument expressions and the call node."""
from __future__ import annotations

from ..ir.nodes import TOKEN, Memory, Op, Value
from .types import MAX_WIDTH, CInt
from .widths import as_value, need_value

# Accelerator operations the IR knows, with their result width: AES with a 128-, 192- or 256-bit
# key (the key is the first operand, the block the second).
ACCEL_OPS = {f"aes{bits}.{kind}": 128 for bits in (128, 192, 256) for kind in ("encrypt", "decrypt")}
# An operation named by its family: `accel_start("aes.encrypt", key, block)` is aes<key width>.encrypt.
ACCEL_FAMILIES = {"aes.encrypt", "aes.decrypt"}


def lower_cat(lw, args, node):
    if not args:
        raise lw.fb.error("cat needs at least one argument", node)
    values = []
    for a in args:
        v = lw.expr(a)
        if isinstance(v, CInt) and v.width is None:
            raise lw.fb.error("cat needs widths: give constants a type (e.g. `0 as u8`)", a)
        values.append(need_value(lw.fb, v, a))
    width = sum(v.width for v in values)
    if width > MAX_WIDTH:
        raise lw.fb.error("concatenation too wide", node)
    return lw.fb.emit("concat", width, values, node=node)


def lower_rev8(lw, args, node):
    fb = lw.fb
    if len(args) != 1:
        raise fb.error("rev8 takes one argument", node)
    v = need_value(fb, lw.expr(args[0]), args[0])
    if v.width % 8:
        raise fb.error(f"rev8 reverses bytes; u{v.width} is not a whole number of bytes", args[0])
    if v.width == 8:
        return v
    parts = [fb.emit("slice", 8, [v], {"lo": 8 * k}, node=node) for k in range(v.width // 8)]
    return fb.emit("concat", v.width, parts, node=node)


def lower_len(lw, args, node):
    if len(args) != 1:
        raise lw.fb.error("len takes one argument", node)
    m = lw.expr(args[0])
    if not isinstance(m, Memory):
        raise lw.fb.error("len takes an array or buffer", args[0])
    if m.length is not None:
        return CInt(m.length)
    return lw.fb.emit("len", 32, [m], node=node)


def byte_memory(lw, arg) -> Memory:
    m = lw.expr(arg)
    if not isinstance(m, Memory) or m.elem_width != 8:
        raise lw.fb.error("expected a byte buffer (bytes or u8[N])", arg)
    return m


def lower_load(lw, args, node, opcode):
    fb = lw.fb
    if len(args) not in (3, 4):
        raise fb.error(f"{opcode}(buffer, offset, nbytes[, count]) takes 3 or 4 arguments", node)
    mem = byte_memory(lw, args[0])
    offset = as_value(fb, lw.expr(args[1]), 32, args[1])
    nbytes = lw.const_int(args[2])
    if not 1 <= nbytes <= MAX_WIDTH // 8:
        raise fb.error(f"cannot load {nbytes} bytes as one word", args[2])
    operands = [mem, offset]
    if len(args) == 4:
        operands.append(as_value(fb, lw.expr(args[3]), 32, args[3]))
    return fb.emit(opcode, 8 * nbytes, operands, {"bytes": nbytes}, node=node)


def lower_store(lw, args, node, opcode):
    fb = lw.fb
    if len(args) not in (3, 4):
        raise fb.error(f"{opcode}(buffer, offset, value[, count]) takes 3 or 4 arguments", node)
    mem = byte_memory(lw, args[0])
    if mem.kind == "table":
        raise fb.error(f"table {mem.name} is read-only", args[0])
    offset = as_value(fb, lw.expr(args[1]), 32, args[1])
    v = lw.expr(args[2])
    if isinstance(v, CInt) and v.width is None:
        raise fb.error("give the stored constant a width (e.g. `0 as u32`)", args[2])
    value = need_value(fb, v, args[2])
    if value.width % 8:
        raise fb.error(f"{opcode} stores whole bytes; u{value.width} is not", args[2])
    operands = [mem, offset, value]
    if len(args) == 4:
        operands.append(as_value(fb, lw.expr(args[3]), 32, args[3]))
    fb.emit(opcode, None, operands, {"bytes": value.width // 8}, node=node)
    return None


def fold_min_max(spec, name: str, values: list, node) -> CInt:
    """min/max of compile-time integers; typed ones must agree, the result takes their width."""
    widths = {v.width for v in values if v.width is not None}
    if len(widths) > 1:
        raise spec.error(f"width mismatch in {name}: " + ", ".join(f"u{w}" for w in sorted(widths)), node)
    pick = min if name == "min" else max
    return CInt(pick(v.value for v in values), widths.pop() if widths else None)


def lower_min_max(lw, args, node, name):
    """min(a, b, ...) / max(a, b, ...) of unsigned words: an unsigned compare and a select per
    extra argument (constant time); folded when every argument is a compile-time integer."""
    fb = lw.fb
    if len(args) < 2:
        raise fb.error(f"{name} takes two or more arguments", node)
    values = [lw.expr(a) for a in args]
    if all(isinstance(v, CInt) for v in values):
        return fold_min_max(lw.spec, name, values, node)
    width = None
    for v, a in zip(values, args):
        if isinstance(v, (Value, CInt)) and v.width is not None:
            if width is not None and v.width != width:
                raise fb.error(f"width mismatch in {name}: u{width} and u{v.width} (convert with `as`)", a)
            width = v.width
        elif not isinstance(v, CInt):
            need_value(fb, v, a)                     # the error for an array, a tuple, a name
    x = as_value(fb, values[0], width, args[0])
    for v, a in zip(values[1:], args[1:]):
        y = as_value(fb, v, width, a)
        less = fb.emit("ult", 1, [x, y], node=node)
        x = fb.emit("select", width, [less, x, y] if name == "min" else [less, y, x], node=node)
    return x


def lower_accel_start(lw, args, node):
    if not args:
        raise lw.fb.error("accel_start(\"op\", operands...) needs the operation name", node)
    op = lw.expr(args[0])
    if not isinstance(op, str) or op not in ACCEL_OPS.keys() | ACCEL_FAMILIES:
        raise lw.fb.error(f"unknown accelerator operation; known: {', '.join(sorted(ACCEL_OPS.keys() | ACCEL_FAMILIES))}",
                          args[0])
    values = [need_value(lw.fb, lw.expr(a), a) for a in args[1:]]
    if op in ACCEL_FAMILIES:
        family, kind = op.split(".")
        op = f"{family}{values[0].width if values else 0}.{kind}"
        if op not in ACCEL_OPS:
            raise lw.fb.error(f"{family}.{kind}: the key must be 128, 192 or 256 bits wide", args[1] if len(args) > 1 else node)
    return lw.fb.emit("accel_start", TOKEN, values, {"op": op}, node=node, hint="tok")


def lower_accel_result(lw, args, node):
    if len(args) != 1:
        raise lw.fb.error("accel_result takes the token of an accel_start", node)
    tok = lw.expr(args[0])
    if not isinstance(tok, Value) or tok.width != TOKEN:
        raise lw.fb.error("accel_result takes the token of an accel_start", args[0])
    op = find_start(lw.fb, tok).attrs["op"]
    return lw.fb.emit("accel_result", ACCEL_OPS[op], [tok], {"op": op}, node=node)


def find_start(fb, tok: Value) -> Op:
    """The accel_start op that made `tok`, in the block being built or one enclosing it."""
    for block in reversed(fb.blocks):
        for op in block.ops:
            if op.results and op.results[0] is tok:
                return op
    raise fb.error("the token must come from accel_start in an enclosing block", None)


LOWERINGS = {
    "cat": lower_cat,
    "rev8": lower_rev8,
    "len": lower_len,
    "min": lambda lw, args, node: lower_min_max(lw, args, node, "min"),
    "max": lambda lw, args, node: lower_min_max(lw, args, node, "max"),
    "load_be": lambda lw, args, node: lower_load(lw, args, node, "load_be"),
    "load_le": lambda lw, args, node: lower_load(lw, args, node, "load_le"),
    "store_be": lambda lw, args, node: lower_store(lw, args, node, "store_be"),
    "store_le": lambda lw, args, node: lower_store(lw, args, node, "store_le"),
    "accel_start": lower_accel_start,
    "accel_result": lower_accel_result,
}
BUILTINS = tuple(LOWERINGS)  # names a spec cannot redefine
