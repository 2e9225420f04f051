"""The pass pipeline (aedsl/ir/pipeline.py) is the one place passes are composed: its steps,
stages, `until` and `skip`, and that no pass module imports or runs another pass."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from aedsl.frontend.elaborate import load_module
from aedsl.ir import pipeline
from aedsl.ir.printer import print_module

from tests.paths import ROOT
PASSES_DIR = ROOT / "aedsl" / "ir" / "passes"
SPECK = ROOT / "specs" / "primitives" / "speck.ae"
SPECK_KNOBS = {"block_bits": "64", "key_bits": "128"}


def test_steps_and_stages():
    assert [s.label for s in pipeline.STEPS] == [
        "inline", "unroll_moves", "unroll", "constfold", "divconst", "cse_dce", "identity_arms",
        "saturating_shifts", "affine_tables", "legalize", "legalize.constfold",
        "legalize.cse_dce", "recurrence_tables", "recurrence_tables.constfold", "recurrence_tables.cse_dce",
        "table_fusion", "table_fusion.constfold", "table_fusion.cse_dce", "sbox_fusion", "clmul_tables",
        "clmul_tables.constfold", "clmul_tables.cse_dce", "subtables",
        "subtables.constfold", "subtables.cse_dce", "concat_ops", "concat_ops.constfold", "concat_ops.cse_dce",
        "store_forwarding", "align_versioning", "xor_chains", "schedule"]
    assert pipeline.STAGES == ["inline", "unroll_moves", "unroll", "constfold", "divconst", "cse_dce",
                               "identity_arms", "saturating_shifts", "affine_tables", "legalize",
                               "recurrence_tables", "table_fusion", "sbox_fusion", "clmul_tables", "subtables", "concat_ops",
                               "store_forwarding", "align_versioning", "xor_chains", "schedule"]
    for step in pipeline.STEPS:
        assert step.module.NAME == step.NAME


def test_clean_up_runs_only_when_the_pass_acts():
    cleanups = [s for s in pipeline.STEPS if s.NAME != s.stage]
    assert all(s.applies({"word_bits": "16"}) for s in cleanups if s.stage not in ("subtables", "clmul_tables"))
    # subtables and clmul_tables act in size mode only (or when asked)
    for stage in ("subtables", "clmul_tables"):
        steps = [s for s in cleanups if s.stage == stage]
        assert steps and all(s.applies({"opt": "size"}) for s in steps)
        assert not any(s.applies({}) or s.applies({"opt": "size", stage: "off"}) for s in steps)
    assert not any(s.applies({"word_bits": "16", "table_fusion": "none"})
                   for s in cleanups if s.stage == "table_fusion")
    assert not any(s.applies({}) for s in cleanups if s.stage == "legalize")


def _ir(knobs, **kw):
    return print_module(pipeline.run(load_module(SPECK, SPECK_KNOBS), knobs, **kw))


def test_until_a_stage_includes_its_clean_up():
    knobs = {"word_bits": "16"}
    module = load_module(SPECK, SPECK_KNOBS)
    by_hand = [module]
    last = [s.label for s in pipeline.STEPS].index("legalize.cse_dce") + 1
    for step in pipeline.STEPS[:last]:       # through legalize.cse_dce
        by_hand.append(step.run(by_hand[-1], knobs))
    assert _ir(knobs, until="legalize") == print_module(by_hand[last])
    assert _ir(knobs, until="legalize.cse_dce") == print_module(by_hand[last])
    assert _ir(knobs, until="legalize.constfold") == print_module(by_hand[last - 1])
    # the bare legalize step leaves work for the clean-up
    assert print_module(by_hand[last - 2]) != print_module(by_hand[last - 1])


def test_the_input_module_is_not_changed():
    module = load_module(SPECK, SPECK_KNOBS)
    before = print_module(module)
    pipeline.run(module, {"word_bits": "16"})
    assert print_module(module) == before


def test_unknown_stage():
    with pytest.raises(KeyError, match="no pass named 'fold'"):
        pipeline.run(load_module(SPECK, SPECK_KNOBS), {}, until="fold")


def test_run_passes_skips_whole_stages():
    knobs = {"word_bits": "16"}
    assert pipeline.SKIP_PASSES == frozenset({"table_fusion"})
    skipped = print_module(pipeline.run_passes(load_module(SPECK, SPECK_KNOBS), knobs))
    assert skipped == _ir(knobs, until="legalize")
    assert print_module(pipeline.run_passes(load_module(SPECK, SPECK_KNOBS), knobs, skip=frozenset())) \
        == _ir(knobs)


def test_pure_step_run_equals_the_pipeline_in_place_runs():
    """The pipeline runs later clean-up steps in place; the result is the same as pure runs."""
    knobs = {"word_bits": "32"}
    module = load_module(ROOT / "specs" / "primitives" / "aes.ae", {"key_bits": "128"})
    by_hand = module
    for step in pipeline.STEPS:
        by_hand = step.run(by_hand, knobs)
    assert print_module(pipeline.run(module, knobs)) == print_module(by_hand)


def _imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(level, module, names) of every import in the file, at any depth (function level too)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or "", [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((0, a.name, []) for a in node.names)
    return out


def test_passes_do_not_import_passes():
    """Only pipeline.py composes passes: a pass module imports helpers (common, call_policy),
    never another pass."""
    pass_names = {s.NAME for s in pipeline.STEPS}
    allowed = {"common", "call_policy"}
    for path in sorted(PASSES_DIR.rglob("*.py")):
        # the import level that names a module of aedsl/ir/passes itself
        passes_level = len(path.relative_to(PASSES_DIR).parts)
        own = path.relative_to(PASSES_DIR).parts[0].removesuffix(".py")
        for level, module, names in _imports(path):
            if level == 0 and module.startswith("aedsl.ir.passes."):
                targets = [module.split(".")[3]]
            elif level == passes_level:
                targets = [module.split(".")[0]] if module else names
            else:
                targets = []
            for t in targets:
                assert t == own or t in allowed or t not in pass_names, f"{path} imports the pass {t}"
            assert module != "importlib", f"{path} imports modules dynamically"
