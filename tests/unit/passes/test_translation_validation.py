"""Translation validation of every IR pass on every spec of the library: the interpreter runs each
function before and after the pass (and after the whole pipeline at W=16 and W=32) on the same
seeded random inputs, and the results and written memories must agree."""
from __future__ import annotations


import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.nodes import walk_ops
from aedsl.ir.passes import legalize

from tests.paths import ROOT
from .tv import check_equivalent

SPECS = sorted((ROOT / "specs" / "primitives").glob("*.ae")) + sorted((ROOT / "specs" / "schemes").glob("*.ae"))

SPECK_SETS = [(32, 64), (48, 72), (48, 96), (64, 96), (64, 128), (96, 96), (96, 144),
              (128, 128), (128, 192), (128, 256)]
# Knob settings per spec (by stem); specs not listed run at their defaults.
VARIANTS = {
    "speck": [{"block_bits": str(b), "key_bits": str(k), "unroll": u}
              for (b, k), u in zip(SPECK_SETS, ["1", "2", "4", "full", "1", "2", "4", "full", "1", "full"])],
    # AES fully unrolled is validated in test_table_fusion.py (encrypt_block, W=16): at ~20k ops
    # it would dominate this file's runtime.
    "aes": [{"key_bits": "128"}, {"key_bits": "192"}, {"key_bits": "256"}, {"key_bits": "128", "mix": "words"}],
    "ccm": [{}, {"aes": "accel"}, {"body": "shared"}],
    "gcm": [{}, {"aes": "accel"}, {"body": "shared"}],
    "ocb3": [{}, {"body": "shared"}],
    "eax": [{}, {"body": "shared"}],
}


# The fast tier validates these (every pass acts on some of them); the others are marked slow.
FAST = {"speck[block_bits=32,key_bits=64,unroll=1]", "ccm", "ctr", "cmac", "chacha20", "ascon_p", "norx_f",
        "spongent_pi160"}


def _cases():
    for path in SPECS:
        for knobs in VARIANTS.get(path.stem, [{}]):
            label = path.stem + ("[" + ",".join(f"{k}={v}" for k, v in knobs.items()) + "]" if knobs else "")
            yield pytest.param(path, knobs, id=label, marks=() if label in FAST else pytest.mark.slow)


def _load(path, knobs):
    """Every spec in the library must elaborate: one that stops doing so fails here."""
    return load_module(path, knobs)


def _check_legal(out, W):
    # Structural fact: after legalize no value is wider than the word (tokens have width 0),
    # except a whole-block byte access: a load_be/le result read only by slices to words, a
    # concat of words only stored by store_be/le; and a wide bit permutation: a concat of words
    # read only by a perm, whose result is read only by slices to words.
    wide = []
    for f in out.functions:
        uses = {}
        for op in walk_ops(f.body):
            for a in op.args:
                uses.setdefault(id(a), []).append(op.opcode)
        for op in walk_ops(f.body):
            for r in op.results:
                if r.width <= W:
                    continue
                u = uses.get(id(r), [])
                if op.opcode in ("load_be", "load_le") and all(c == "slice" for c in u):
                    continue
                if op.opcode == "concat" and u and all(c in ("store_be", "store_le", "perm") for c in u):
                    continue
                if op.opcode == "perm" and u and all(c == "slice" for c in u):
                    continue
                wide.append((f.name, op.opcode, r.width))
    assert wide == []
    params = [(f.name, p.name) for f in out.functions for p in f.params
              if getattr(p, "width", 0) > W or getattr(p, "elem_width", 0) > W]
    assert params == []


def _trials(path):
    return 1 if path.parent.name == "schemes" else 2   # schemes run several blocks per call


@pytest.mark.parametrize("path,knobs", list(_cases()))
def test_each_pass_preserves_behaviour(path, knobs):
    """Each pass, applied in pipeline order at W=16 (so legalize acts), against its own input;
    then the whole pipeline's output against the elaborated spec."""
    original = module = _load(path, knobs)
    pass_knobs = {"word_bits": "16", "word_align": "2", "align_versioning": "on"}
    programs = {}                        # each pass's output compiled once for the interpreter
    for p in pipeline.passes():
        after = p.run(module, pass_knobs)
        if after is module:              # a step that does not apply under these knobs
            continue
        iface = legalize.Interface(module, 16) if p.NAME == "legalize" else None
        assert check_equivalent(module, after, trials=_trials(path), seed=7, interface=iface,
                                programs=programs) > 0, p.NAME
        module = after
    assert check_equivalent(original, module, trials=_trials(path), seed=16,
                            interface=legalize.Interface(original, 16), programs=programs) > 0
    _check_legal(module, 16)


@pytest.mark.parametrize("path,knobs", list(_cases()))
def test_whole_pipeline_at_32_bits_preserves_behaviour(path, knobs):
    module = _load(path, knobs)
    out = pipeline.run(module, {"word_bits": "32", "word_align": "4"})
    assert check_equivalent(module, out, trials=_trials(path), seed=32,
                            interface=legalize.Interface(module, 32)) > 0
    _check_legal(out, 32)


@pytest.mark.parametrize("spec,knobs", [
    # (the equivalent inverse cipher keeps its once-per-key InvMixColumns loops of the round keys)
    ("primitives/aes.ae", {"unroll": "full", "inv_cipher": "plain"}),
    ("primitives/speck.ae", {"block_bits": "64", "key_bits": "96", "unroll": "full"}),
])
def test_full_unroll_leaves_no_loop(spec, knobs):
    module = pipeline.run(_load(ROOT / "specs" / spec, knobs), {}, until="unroll")
    assert [op.opcode for f in module.functions for op in walk_ops(f.body) if op.opcode == "for"] == []
    rolled = pipeline.run(_load(ROOT / "specs" / spec, dict(knobs, unroll="1")), {}, until="unroll")
    assert sum(op.opcode == "for" for f in rolled.functions for op in walk_ops(f.body)) >= 3


def test_unroll_by_k_keeps_a_loop_with_k_copies_and_a_remainder():
    # SPECK-32/64 encrypts in 22 rounds: by 4 -> a loop of 5 trips holding 4 rounds, then 2 rounds.
    module = _load(ROOT / "specs/primitives/speck.ae", {"block_bits": "32", "key_bits": "64", "unroll": "4"})
    out = pipeline.run(module, {}, until="unroll")
    enc = out.function("encrypt_block")
    loops = [op for op in walk_ops(enc.body) if op.opcode == "for"]
    assert len(loops) == 1
    adds_in_body = sum(op.opcode == "add" and op.results[0].width == 16 and op.args[0].width == 16
                       for op in walk_ops(loops[0].regions[0]))
    assert adds_in_body >= 4
    consts = {id(op.results[0]): op.attrs["value"] for op in walk_ops(enc.body) if op.opcode == "const"}
    assert consts[id(loops[0].args[1])] - consts[id(loops[0].args[0])] == 5


def test_validation_catches_a_wrong_transformation():
    """The harness must fail when a pass changes meaning (here: one xor turned into an or)."""
    module = _load(ROOT / "specs/primitives/speck.ae", {"block_bits": "32", "key_bits": "64"})
    broken = module.clone()
    op = next(op for op in walk_ops(broken.function("encrypt_block").body) if op.opcode == "xor")
    op.opcode = "or"
    with pytest.raises(AssertionError):
        check_equivalent(module, broken, trials=3, functions=["encrypt_block"])


def test_constfold_and_cse_make_unrolled_indices_constant():
    module = _load(ROOT / "specs/primitives/speck.ae", {"block_bits": "64", "key_bits": "128", "unroll": "full"})
    unrolled = pipeline.run(module, {}, until="unroll")
    folded = pipeline.run(module, {}, until="cse_dce")
    count = lambda m: sum(1 for f in m.functions for _ in walk_ops(f.body))  # noqa: E731
    assert count(folded) < count(unrolled) * 3 // 4
    consts = {id(op.results[0]) for f in folded.functions for op in walk_ops(f.body) if op.opcode == "const"}
    indices = [op.args[1] for f in folded.functions for op in walk_ops(f.body) if op.opcode in ("load", "store")]
    assert len(indices) > 50 and all(id(i) in consts for i in indices)
