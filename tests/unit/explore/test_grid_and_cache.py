"""`aedsl explore`'s sweep grid and its cache key: what counts as a different variant."""
import pytest

from aedsl import chips
from aedsl.explore import cache, grid
from aedsl.explore.task import Task
from aedsl.frontend.elaborate import spec_files
from aedsl.knobs import KnobError

from tests.paths import SPECS


def test_parse_sweep_and_combinations():
    sweep = grid.parse_sweep(["aes_tables=sbox,t16x4", " unroll = 1, full "])
    assert sweep == [("aes_tables", ("sbox", "t16x4")), ("unroll", ("1", "full"))]
    combos = grid.combinations(sweep, {"key_bits": "128"})
    assert combos[0] == {"aes_tables": "sbox", "unroll": "1", "key_bits": "128"}
    assert [(c["aes_tables"], c["unroll"]) for c in combos] == [("sbox", "1"), ("sbox", "full"),
                                                                ("t16x4", "1"), ("t16x4", "full")]


@pytest.mark.parametrize("items, fixed, message", [
    (["unroll"], {}, "write KNOB=V1,V2"),
    (["unroll=1,"], {}, "write KNOB=V1,V2"),
    (["unroll=1", "unroll=full"], {}, "swept twice"),
    (["unroll=1,1"], {}, "given twice"),
    (["unroll=1"], {"unroll": "full"}, "both swept and fixed"),
])
def test_bad_sweeps(items, fixed, message):
    with pytest.raises(KnobError, match=message):
        grid.combinations(grid.parse_sweep(items), fixed)


def test_check_refuses_unknown_knobs_and_values():
    chip = chips.load("msp430f5528")
    aes = SPECS / "primitives/aes.ae"
    grid.check(aes, chip, [("aes_tables", ("sbox", "t32x1")), ("unroll", ("looped", "full"))], {"key_bits": "256"})
    with pytest.raises(KnobError, match="unknown knob 'tables'"):
        grid.check(aes, chip, [("tables", ("sbox",))], {})
    with pytest.raises(KnobError, match="t64"):
        grid.check(aes, chip, [("aes_tables", ("sbox", "t64"))], {})


def test_spec_files_follow_use():
    assert [p.name for p in spec_files(SPECS / "schemes/eax.ae")] == ["eax.ae", "cmac.ae", "tags.ae", "accel_aes128.ae",
                                                                   "accel_aes256.ae", "aes.ae"]


def _task(spec, **kw):
    base = dict(spec=str(spec), chip="msp430f5528", knobs=(("unroll", "1"),), sizes=("16",), ad_len=0,
                key_setup="exclude", sample=8)
    return Task(**{**base, **kw})


def test_cache_key_covers_every_input(tmp_path, monkeypatch):
    lib = tmp_path / "schemes"
    lib.mkdir()
    (tmp_path / "primitives").mkdir()
    for rel in ("schemes/ccm.ae", "primitives/aes.ae", "primitives/accel_aes128.ae"):
        (tmp_path / rel).write_text((SPECS / rel).read_text())
    ccm = lib / "ccm.ae"
    key = cache.task_key(_task(ccm))
    assert key == cache.task_key(_task(ccm))
    variants = [_task(ccm, knobs=(("unroll", "full"),)), _task(ccm, chip="cc430f6137"), _task(ccm, sizes=("ipi",)),
                _task(ccm, ad_len=1), _task(ccm, key_setup="include"), _task(ccm, sample=2)]
    assert len({key, *(cache.task_key(t) for t in variants)}) == 1 + len(variants)
    # an edit of a spec the scheme uses is an edit of the scheme
    aes = tmp_path / "primitives/aes.ae"
    aes.write_text(aes.read_text() + "\n// edited\n")
    assert cache.task_key(_task(ccm)) != key
    # so is a change of the compiler
    key = cache.task_key(_task(ccm))
    monkeypatch.setattr(cache, "compiler_hash", lambda: "another compiler")
    assert cache.task_key(_task(ccm)) != key


def test_cache_round_trip(tmp_path):
    c = cache.Cache(tmp_path)
    assert c.get("ab" * 32) is None
    c.put("ab" * 32, {"knobs": {"a": "1"}, "metrics": {"z": 1.0, "a": 2.0}})
    assert list(c.get("ab" * 32)["metrics"]) == ["z", "a"]       # column order kept
