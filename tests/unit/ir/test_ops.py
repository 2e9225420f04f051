"""The op table (aedsl/ir/ops.py): every opcode is listed, computes what the IR defines (hand
examples), and the interpreter, constant evaluation and the selectors' folding all agree with it
(property tests on random widths and values)."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aedsl.codegen.select_base import fold
from aedsl.ir import ops
from aedsl.ir.interp import InterpError, compile_module
from aedsl.ir.nodes import Block, Function, Memory, Module, Op, Value
from aedsl.ir.ops import OPS, bind, evaluate
from aedsl.ir.passes.common import evaluate as passes_evaluate
from aedsl.ir.passes.common import has_effect, is_pure

# The opcodes nodes.py documents.
OPCODES = {
    "const", "not", "neg", "xor", "and", "or", "add", "sub", "mul", "udiv", "umod", "shl", "shr",
    "rotl", "rotr", "shl_var", "shr_var", "eq", "ne", "ult", "ule", "ugt", "uge", "select", "zext",
    "trunc", "slice", "concat", "perm", "len", "addr_low", "load", "store", "load_be", "load_le", "store_be",
    "store_le", "call", "for", "if", "accel_start", "accel_result", "addc", "subb", "umulh",
}
STRUCTURE = {"call", "for", "if"}


def test_every_documented_opcode_is_in_the_table():
    assert set(OPS) == OPCODES
    for name, spec in OPS.items():
        assert spec.name == name
        assert spec.kind in ("pure", "read", "effect", "control")
        assert (spec.bind is None) == (name in STRUCTURE)


def test_kinds_and_arities():
    pure = {n for n, s in OPS.items() if s.pure}
    assert pure == OPCODES - {"len", "addr_low", "load", "store", "load_be", "load_le", "store_be", "store_le",
                              "call", "for", "if", "accel_start", "accel_result"}
    assert {n for n, s in OPS.items() if s.has_effect} == {
        "store", "store_be", "store_le", "call", "accel_start", "accel_result"}
    assert {n for n, s in OPS.items() if s.kind == "control"} == {"for", "if"}
    assert {n for n, s in OPS.items() if s.variadic} == {"concat", "call", "for", "accel_start"}
    assert OPS["select"].arity == (3, 3) and OPS["load_be"].arity == (2, 3)
    assert OPS["store_le"].arity == (3, 4) and OPS["const"].arity == (0, 0)
    assert OPS["addc"].results == 2 and OPS["store"].results == 0 and OPS["call"].results is None


def _op(opcode, args, results, attrs=None, regions=None):
    return Op(opcode, results, args, attrs or {}, regions or [])


def test_passes_purity_comes_from_the_table():
    x, y = Value("x", 8), Value("y", 8)
    table = Memory("t", 8, 4, "table", (1, 2, 3, 4))
    buf = Memory("b", 8, 4, "param")
    assert is_pure(_op("xor", [x, y], [Value("r", 8)]))
    assert is_pure(_op("load", [table, x], [Value("r", 8)]))          # a read-only table
    assert not is_pure(_op("load", [buf, x], [Value("r", 8)]))
    assert not is_pure(_op("len", [buf], [Value("r", 32)]))
    assert has_effect(_op("store", [buf, x, y], []))
    assert not has_effect(_op("load", [buf, x], [Value("r", 8)]))
    loop = _op("for", [x, y], [], regions=[Block([Value("i", 8)], [_op("store", [buf, x, y], [])], [])])
    assert has_effect(loop)


# (opcode, operand values, operand widths, result width, attrs, expected results): worked by hand
# from the definitions in nodes.py.
EXAMPLES = [
    ("const", [], [], 8, {"value": 0x1FF}, [0xFF]),
    ("not", [0b1010], [4], 4, {}, [0b0101]),
    ("neg", [1], [8], 8, {}, [0xFF]),
    ("xor", [0b1100, 0b1010], [4, 4], 4, {}, [0b0110]),
    ("and", [0b1100, 0b1010], [4, 4], 4, {}, [0b1000]),
    ("or", [0b1100, 0b1010], [4, 4], 4, {}, [0b1110]),
    ("add", [0xFF, 2], [8, 8], 8, {}, [1]),
    ("sub", [1, 2], [8, 8], 8, {}, [0xFF]),
    ("mul", [0x10, 0x11], [8, 8], 8, {}, [0x10]),
    ("umulh", [0x10, 0x11], [8, 8], 8, {}, [0x01]),
    ("umulh", [0xFFFF, 0xFFFF], [16, 16], 16, {}, [0xFFFE]),
    ("udiv", [7, 2], [8, 8], 8, {}, [3]),
    ("udiv", [7, 0], [8, 8], 8, {}, [0]),
    ("umod", [7, 2], [8, 8], 8, {}, [1]),
    ("umod", [7, 0], [8, 8], 8, {}, [7]),
    ("addc", [0xFF, 0x01, 0], [8, 8, 1], 8, {}, [0x00, 1]),
    ("addc", [0x10, 0x01, 1], [8, 8, 1], 8, {}, [0x12, 0]),
    ("subb", [0x00, 0x01, 0], [8, 8, 1], 8, {}, [0xFF, 1]),
    ("subb", [0x05, 0x01, 1], [8, 8, 1], 8, {}, [0x03, 0]),
    ("shl", [0x81], [8], 8, {"by": 1}, [0x02]),
    ("shl", [0x81], [8], 8, {"by": 9}, [0]),
    ("shr", [0x81], [8], 8, {"by": 7}, [1]),
    ("rotl", [0x81], [8], 8, {"by": 1}, [0x03]),
    ("rotl", [0x81], [8], 8, {"by": 9}, [0x03]),
    ("rotr", [0x81], [8], 8, {"by": 1}, [0xC0]),
    ("rotr", [0x81], [8], 8, {"by": 0}, [0x81]),
    ("shl_var", [0x81, 3], [8, 4], 8, {}, [0x08]),
    ("shl_var", [0x81, 8], [8, 4], 8, {}, [0]),
    ("shr_var", [0x81, 7], [8, 4], 8, {}, [1]),
    ("shr_var", [0x81, 9], [8, 4], 8, {}, [0]),
    ("eq", [3, 3], [8, 8], 1, {}, [1]),
    ("ne", [3, 3], [8, 8], 1, {}, [0]),
    ("ult", [2, 3], [8, 8], 1, {}, [1]),
    ("ule", [3, 3], [8, 8], 1, {}, [1]),
    ("ugt", [3, 3], [8, 8], 1, {}, [0]),
    ("uge", [2, 3], [8, 8], 1, {}, [0]),
    ("select", [1, 5, 6], [1, 8, 8], 8, {}, [5]),
    ("select", [0, 5, 6], [1, 8, 8], 8, {}, [6]),
    ("zext", [0xAB], [8], 16, {}, [0xAB]),
    ("trunc", [0xABCD], [16], 8, {}, [0xCD]),
    ("slice", [0xABCD], [16], 8, {"lo": 4}, [0xBC]),
    ("concat", [0xA, 0xBC], [4, 8], 12, {}, [0xABC]),
    ("concat", [1, 0, 1], [1, 1, 1], 3, {}, [0b101]),
    ("perm", [0b0001], [4], 4, {"table": (2, 0, 3, 1)}, [0b0100]),
    ("perm", [0b1000], [4], 4, {"table": (2, 0, 3, 1)}, [0b0010]),
]


@pytest.mark.parametrize("opcode,args,widths,w,attrs,expected", EXAMPLES,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(EXAMPLES)])
def test_pure_op_examples(opcode, args, widths, w, attrs, expected):
    assert evaluate(opcode, args, widths, w, attrs) == expected
    if OPS[opcode].results == 1:
        assert fold(opcode, args, widths, w, attrs) == expected[0]
    else:
        assert fold(opcode, args, widths, w, attrs) is None   # the selectors fold one result only


def test_every_pure_opcode_has_an_example():
    assert {e[0] for e in EXAMPLES} == {n for n, s in OPS.items() if s.pure}


def test_memory_ops():
    buf = [0x01, 0x02, 0x03, 0x04]
    assert bind("len", [0], [32], {})(buf) == 4
    assert bind("load", [0, 8], [8], {})(buf, 2) == 0x03
    bind("store", [0, 8, 8], [], {})(buf, 2, 0x33)
    assert buf == [0x01, 0x02, 0x33, 0x04]
    assert bind("load_be", [0, 8], [24], {"bytes": 3})(buf, 1) == 0x023304
    assert bind("load_le", [0, 8], [24], {"bytes": 3})(buf, 1) == 0x043302
    # with a count: only that many bytes are read, the rest are zero (BE: the top bytes)
    assert bind("load_be", [0, 8, 8], [24], {"bytes": 3})(buf, 2, 2) == 0x330400
    assert bind("load_le", [0, 8, 8], [24], {"bytes": 3})(buf, 2, 2) == 0x000433
    bind("store_be", [0, 8, 16], [], {"bytes": 2})(buf, 0, 0xAABB)
    assert buf == [0xAA, 0xBB, 0x33, 0x04]
    bind("store_le", [0, 8, 24, 8], [], {"bytes": 3})(buf, 2, 0xCCDDEE, 1)
    assert buf == [0xAA, 0xBB, 0xEE, 0x04]
    with pytest.raises(InterpError, match="beyond a buffer"):
        bind("load_be", [0, 8], [32], {"bytes": 4})(buf, 1)
    with pytest.raises(InterpError, match="beyond a buffer"):
        bind("store_le", [0, 8, 16], [], {"bytes": 2})(buf, 3, 0)
    with pytest.raises(IndexError):
        bind("load", [0, 8], [8], {})(buf, 4)
    with pytest.raises(ValueError):
        evaluate("load", [buf, 0], [0, 8], 8, {})      # not pure: no constant evaluation


@pytest.fixture
def accel_model():
    saved = list(ops.ACCEL_MODEL)
    calls = []

    def model(op, args):
        calls.append((op, args))
        return sum(args) + 0x1_0000_0000
    ops.install_accel_model(model)
    yield calls
    ops.ACCEL_MODEL[:] = saved


def test_accelerator_ops(accel_model):
    token = bind("accel_start", [16, 16], [0], {"op": "t.op"})(3, 4)
    assert token == ("t.op", (3, 4))
    assert bind("accel_result", [0], [40], {"op": "t.op"})(token) == (0x1_0000_0007,)
    # legalized: operands as words (word 0 lowest), the result split into words
    token = bind("accel_start", [16, 16, 16], [0], {"op": "t.op", "words": (2, 1), "word_bits": 16})(1, 2, 5)
    assert token == ("t.op", (0x2_0001, 5))
    words = bind("accel_result", [0], [16, 16, 8], {"op": "t.op", "word_bits": 16})(token)
    assert words == (0x0006, 0x0002, 0x01)
    assert accel_model == [("t.op", (3, 4)), ("t.op", (0x2_0001, 5))]


def test_accelerator_without_model():
    saved = list(ops.ACCEL_MODEL)
    ops.ACCEL_MODEL[:] = []
    try:
        with pytest.raises(InterpError, match="no accelerator model"):
            bind("accel_result", [0], [8], {"op": "x"})(("x", ()))
    finally:
        ops.ACCEL_MODEL[:] = saved


def test_structure_ops_in_the_interpreter():
    """call, for and if have no function in the table: the interpreter runs their regions."""
    x = Value("x", 8)
    # callee: double(x) = x + x
    cx = Value("cx", 8)
    cr = Value("cr", 8)
    double = Function("double", [cx], [8], Block([], [_op("add", [cx, cx], [cr])], [cr]))
    # main(x): s = 0; for i in 0..4 { s = s + double(x) }; if s == 0 then 1 else s
    lo, hi, zero, s, s1, d, i = (Value(n, 8) for n in ("lo", "hi", "zero", "s", "s1", "d", "i"))
    acc = Value("acc", 8)
    body = Block([i, acc], [_op("call", [x], [d], {"callee": "double"}), _op("add", [acc, d], [s1])], [s1])
    is0, one, r = Value("is0", 1), Value("one", 8), Value("r", 8)
    ops_ = [_op("const", [], [lo], {"value": 0}), _op("const", [], [hi], {"value": 4}),
            _op("const", [], [zero], {"value": 0}),
            _op("for", [lo, hi, zero], [s], {"unroll": 1}, [body]),
            _op("eq", [s, zero], [is0]),
            _op("if", [is0], [r], {}, [Block([], [_op("const", [], [one], {"value": 1})], [one]),
                                      Block([], [], [s])])]
    main = Function("main", [x], [8], Block([], ops_, [r]))
    program = compile_module(Module("m", {}, functions=[main, double]))
    assert program.call("main", [3]) == (24,)
    assert program.call("main", [0]) == (1,)
    assert program.call("main", [32]) == (1,)      # 8 * 32 = 256 wraps to 0


# --- property tests: the interpreter, constant evaluation and folding agree with the table ---------

def _one_op_module(opcode, arg_widths, result_widths, attrs, mem=None):
    """A function `f` of one op: scalar operands are parameters (a memory operand first)."""
    params = [Value(f"a{i}", w) for i, w in enumerate(arg_widths)]
    args = ([mem] if mem is not None else []) + params
    results = [Value(f"r{i}", w) for i, w in enumerate(result_widths)]
    fn = Function("f", ([mem] if mem is not None else []) + params, list(result_widths),
                  Block([], [Op(opcode, results, args, dict(attrs))], results))
    return Module("m", {}, functions=[fn])


@st.composite
def pure_cases(draw):
    """(opcode, operand values, operand widths, result widths, attrs) of a random pure op."""
    opcode = draw(st.sampled_from(sorted(n for n, s in OPS.items() if s.pure)))
    W = draw(st.integers(1, 130))
    val = lambda w: draw(st.integers(0, (1 << w) - 1))  # noqa: E731
    attrs: dict = {}
    if opcode == "const":
        widths, rw = [], [W]
        attrs["value"] = val(W)
    elif opcode in ("not", "neg"):
        widths, rw = [W], [W]
    elif opcode in ("shl", "shr", "rotl", "rotr"):
        widths, rw = [W], [W]
        attrs["by"] = draw(st.integers(0, 2 * W + 1))
    elif opcode in ("shl_var", "shr_var"):
        widths, rw = [W, draw(st.integers(1, 9))], [W]
    elif opcode in ("eq", "ne", "ult", "ule", "ugt", "uge"):
        widths, rw = [W, W], [1]
    elif opcode in ("addc", "subb"):
        widths, rw = [W, W, 1], [W, 1]
    elif opcode == "select":
        widths, rw = [1, W, W], [W]
    elif opcode == "zext":
        widths, rw = [W], [draw(st.integers(W, W + 70))]
    elif opcode == "trunc":
        widths, rw = [W], [draw(st.integers(1, W))]
    elif opcode == "slice":
        lo = draw(st.integers(0, W - 1))
        widths, rw = [W], [draw(st.integers(1, W - lo))]
        attrs["lo"] = lo
    elif opcode == "concat":
        widths = draw(st.lists(st.integers(1, 40), min_size=1, max_size=5))
        rw = [sum(widths)]
    elif opcode == "perm":
        W = min(W, 40)
        widths, rw = [W], [W]
        attrs["table"] = tuple(draw(st.permutations(range(W))))
    else:   # two operands of the result's width
        widths, rw = [W, W], [W]
    args = [val(w) for w in widths]
    if opcode in ("udiv", "umod") and draw(st.booleans()):
        args[1] = 0
    return opcode, args, widths, rw, attrs


@settings(max_examples=400, deadline=None)
@given(pure_cases())
def test_interpreter_evaluate_and_fold_agree_with_the_table(case):
    opcode, args, widths, rw, attrs = case
    expected = bind(opcode, widths, rw, attrs)(*args)
    expected = list(expected) if isinstance(expected, tuple) else [expected]
    assert len(expected) == len(rw)
    assert all(0 <= v < (1 << w) for v, w in zip(expected, rw))
    program = compile_module(_one_op_module(opcode, widths, rw, attrs))
    assert list(program.call("f", args)) == expected
    op = Op(opcode, [Value(f"r{i}", w) for i, w in enumerate(rw)],
            [Value(f"a{i}", w) for i, w in enumerate(widths)], attrs)
    assert passes_evaluate(op, args) == expected
    assert evaluate(opcode, args, widths, rw[0], attrs) == expected
    folded = fold(opcode, args, widths, rw[0], attrs)
    assert folded == (expected[0] if len(rw) == 1 else None)


@st.composite
def memory_cases(draw):
    """(opcode, buffer, scalar operand values, their widths, result widths, attrs)."""
    opcode = draw(st.sampled_from(["len", "load", "store", "load_be", "load_le", "store_be", "store_le"]))
    buf = draw(st.lists(st.integers(0, 255), min_size=1, max_size=24))
    attrs: dict = {}
    if opcode == "len":
        return opcode, buf, [], [], [32], attrs
    if opcode in ("load", "store"):
        idx = draw(st.integers(0, len(buf) - 1))
        if opcode == "load":
            return opcode, buf, [idx], [8], [8], attrs
        return opcode, buf, [idx, draw(st.integers(0, 255))], [8, 8], [], attrs
    nbytes = draw(st.integers(1, 12))
    attrs["bytes"] = nbytes
    off = draw(st.integers(0, len(buf) + 2))          # may run past the end: both must fault
    scalars, widths = [off], [16]
    if opcode.startswith("store"):
        scalars.append(draw(st.integers(0, (1 << (8 * nbytes)) - 1)))
        widths.append(8 * nbytes)
    if draw(st.booleans()):
        scalars.append(draw(st.integers(0, nbytes + 2)))
        widths.append(8)
    return opcode, buf, scalars, widths, ([8 * nbytes] if opcode.startswith("load") else []), attrs


def _outcome(f, *args):
    try:
        return "ok", f(*args)
    except (InterpError, IndexError) as e:
        return "fault", type(e).__name__


@settings(max_examples=300, deadline=None)
@given(memory_cases())
def test_interpreter_memory_ops_agree_with_the_table(case):
    opcode, buf, scalars, widths, rw, attrs = case
    mem = Memory("buf", 8, None, "param")
    direct = list(buf)
    f = bind(opcode, [0] + widths, rw, attrs)
    want = _outcome(f, direct, *scalars)
    if want[0] == "ok" and rw:
        want = ("ok", (want[1],))
    elif want[0] == "ok":
        want = ("ok", ())
    program = compile_module(_one_op_module(opcode, widths, rw, attrs, mem))
    interpreted = list(buf)
    assert _outcome(program.call, "f", [interpreted, *scalars]) == want
    assert interpreted == direct


@pytest.mark.parametrize("width", [1, 7, 8, 13, 64, 160, 257])
def test_perm_a_byte_at_a_time_is_the_bit_permutation(width):
    """`perm` looks its input up a byte at a time: the same as moving bit i to bit table[i], for
    widths that are and are not whole bytes."""
    rng = random.Random(width)
    table = list(range(width))
    rng.shuffle(table)
    f = OPS["perm"].bind((width,), width, {"table": tuple(table)})
    for x in [0, (1 << width) - 1, *(rng.getrandbits(width) for _ in range(50))]:
        assert f(x) == sum(((x >> i) & 1) << d for i, d in enumerate(table))
