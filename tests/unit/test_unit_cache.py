"""The unit cache (aedsl/unit_cache.py): a variant compiled once is read back byte-identical
without compiling; any change to the spec, a spec it uses, the knobs or the chip compiles again;
one compile serves both forms (plain and `keep=True`); a variant named two ways (a default named
or left out) is compiled once; a compile waits for the same compile in progress; the cache can be
turned off, survives damage and is trimmed."""
import pytest

from aedsl import driver, unit_cache
from tests.paths import SPECS

SPECK = SPECS / "primitives" / "speck.ae"
KNOBS = {"block_bits": 64, "key_bits": 128}

USER = """spec user
use P = helper()
fn f(x: u16) -> u16 {
    return P.g(x) ^ 3
}
"""
HELPER = """spec helper
fn g(x: u16) -> u16 {
    return x >>> %d
}
"""


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("AEDSL_CACHE", str(tmp_path))
    calls = []                  # the target's half of each compile that ran (the costly part)
    real = driver._generate

    def counted(*args):
        calls.append(args[1].name)
        return real(*args)
    monkeypatch.setattr(driver, "_generate", counted)
    monkeypatch.setenv("AEDSL_UNIT_CACHE", "on")     # a patch turns it off (tests/conftest.py)
    return calls


def _entries(tmp_path):
    """The plain forms (each entry also has its full form, `<key>.keep.pickle`)."""
    plain = sorted(p for p in (tmp_path / "units").glob("*.pickle") if not p.name.endswith(".keep.pickle"))
    assert {p.name.split(".")[0] for p in (tmp_path / "units").glob("*.keep.pickle")} == {p.stem for p in plain}
    return plain


def test_second_compile_is_read_back_identical(cache, tmp_path):
    a = driver.compile_spec(SPECK, "cc430f6137", KNOBS)
    b = driver.compile_spec(SPECK, "cc430f6137", KNOBS)
    assert len(cache) == 1 and len(_entries(tmp_path)) == 1
    assert b is not a and (b.asm, b.header, b.stem, b.entries) == (a.asm, a.header, a.stem, a.entries)
    driver.compile_spec(SPECK, "cc430f6137", {**KNOBS, "key_bits": 96})    # other knobs
    driver.compile_spec(SPECK, "msp430f1611", KNOBS)                        # other chip
    driver.compile_spec(SPECK, "cc430f6137", KNOBS, entry="encrypt_block")   # other options
    assert len(cache) == 4 and len(_entries(tmp_path)) == 4


def test_a_changed_spec_or_used_spec_compiles_again(cache, tmp_path):
    d = tmp_path / "specs"
    d.mkdir()
    (d / "user.ae").write_text(USER)
    (d / "helper.ae").write_text(HELPER % 3)
    first = driver.compile_spec(d / "user.ae", "stm32f030")
    assert driver.compile_spec(d / "user.ae", "stm32f030").asm == first.asm and len(cache) == 1
    (d / "helper.ae").write_text(HELPER % 5)
    assert driver.compile_spec(d / "user.ae", "stm32f030").asm != first.asm and len(cache) == 2
    (d / "user.ae").write_text(USER.replace("^ 3", "^ 7"))
    driver.compile_spec(d / "user.ae", "stm32f030")
    (d / "user.ae").write_text(USER.replace("^ 3", "^ 7") + "\n")      # any byte counts
    driver.compile_spec(d / "user.ae", "stm32f030")
    assert len(cache) == 4


def test_one_compile_serves_both_forms(cache, tmp_path, monkeypatch):
    plain = driver.compile_spec(SPECK, "stm32f030", KNOBS)
    kept = driver.compile_spec(SPECK, "stm32f030", KNOBS, keep=True)
    assert len(cache) == 1 and plain.mir == [] and plain.module is None
    assert kept.module is not None and kept.mir and all(k.machine is not None for k in kept.mir)
    monkeypatch.setenv("AEDSL_UNIT_CACHE", "off")
    fresh = driver.compile_spec(SPECK, "stm32f030", KNOBS, keep=True)
    assert len(cache) == 2 and fresh.asm == kept.asm == plain.asm
    assert [(k.name, k.machine.name, k.machine.allocatable, list(map(repr, k.mf.insts))) for k in kept.mir] == \
        [(k.name, k.machine.name, k.machine.allocatable, list(map(repr, k.mf.insts))) for k in fresh.mir]


@pytest.mark.parametrize("chip", ["cc430f6137", "stm32f030"])
def test_the_constant_time_analyses_read_the_same_from_the_cache(cache, chip, monkeypatch):
    from aedsl.ct import check
    from aedsl.ct.report import render
    def report():
        check._compiled.cache_clear()
        return render(check.check(SPECK, chip, KNOBS, run_dynamic=False))
    first, again = report(), report()
    assert len(cache) == 1 and first == again
    monkeypatch.setenv("AEDSL_UNIT_CACHE", "off")
    assert report() == first and len(cache) == 2


def test_off_damaged_and_trimmed(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("AEDSL_UNIT_CACHE", "off")
    driver.compile_spec(SPECK, "cc430f6137", KNOBS)
    driver.compile_spec(SPECK, "cc430f6137", KNOBS)
    assert len(cache) == 2 and not (tmp_path / "units").exists()
    monkeypatch.setenv("AEDSL_UNIT_CACHE", "on")
    good = driver.compile_spec(SPECK, "cc430f6137", KNOBS)
    (entry,) = _entries(tmp_path)
    entry.write_bytes(entry.read_bytes()[:100])
    assert driver.compile_spec(SPECK, "cc430f6137", KNOBS).asm == good.asm and len(cache) == 4
    monkeypatch.setattr(unit_cache, "KEEP", 2)
    monkeypatch.setenv("AEDSL_UNIT_CACHE", "on")
    driver.compile_spec(SPECK, "msp430f1611", {**KNOBS, "key_bits": 96})
    assert len(_entries(tmp_path)) == 2
    driver.compile_spec(SPECK, "msp430f1611", KNOBS)
    # three entries > KEEP: trimmed to the most recently used, 3/4 of KEEP (both forms of each)
    from aedsl import chips
    newest = unit_cache.key(SPECK, chips.load("msp430f1611"), KNOBS, None, None)
    older = unit_cache.key(SPECK, chips.load("msp430f1611"), {**KNOBS, "key_bits": 96}, None, None)
    assert len(_entries(tmp_path)) == 1 and unit_cache.load(newest) is not None and unit_cache.load(older) is None


def test_a_variant_named_two_ways_compiles_once(cache, tmp_path):
    # speck.ae's `unroll` defaults to 1: the second request names the same variant
    a = driver.compile_spec(SPECK, "cc430f6137", KNOBS)
    b = driver.compile_spec(SPECK, "cc430f6137", {**KNOBS, "unroll": 1})
    assert len(cache) == 1 and len(_entries(tmp_path)) == 1 and b.asm == a.asm
    assert len(list((tmp_path / "units").glob("*.alias"))) == 2
    kept = driver.compile_spec(SPECK, "cc430f6137", {**KNOBS, "unroll": 1}, keep=True)
    assert len(cache) == 1 and kept.asm == a.asm and kept.mir and kept.mir[0].machine is not None
    driver.compile_spec(SPECK, "cc430f6137", {**KNOBS, "unroll": 2})          # another variant
    assert len(cache) == 2 and len(_entries(tmp_path)) == 2


def test_a_spec_named_by_its_absolute_path_or_from_the_working_directory_compiles_once(cache, monkeypatch):
    monkeypatch.chdir(SPECS.parent)
    a = driver.compile_spec(SPECK, "cc430f6137", KNOBS)
    b = driver.compile_spec("specs/primitives/speck.ae", "cc430f6137", KNOBS)
    c = driver.compile_spec("./specs/primitives/../primitives/speck.ae", "cc430f6137", KNOBS)
    assert len(cache) == 2 and b.asm == a.asm == c.asm     # `..` is a name of its own
    assert a.spec == b.spec == "specs/primitives/speck.ae"


@pytest.mark.parametrize("chip,knob,default,other", [("cc430f6137", "schedule", "delay_slot", "none"),
                                                      ("stm32f030", "placement", "flash", "ram")])
def test_a_target_knob_named_at_its_default_compiles_once(cache, chip, knob, default, other):
    a = driver.compile_spec(SPECK, chip, KNOBS)
    b = driver.compile_spec(SPECK, chip, {**KNOBS, knob: default})
    assert len(cache) == 1 and b.asm == a.asm and b.stem == a.stem and knob not in b.knobs
    c = driver.compile_spec(SPECK, chip, {**KNOBS, knob: other})           # another variant
    assert len(cache) == 2 and c.knobs[knob] == other


def test_a_name_valued_knob_named_at_its_default_compiles_once(cache, tmp_path):
    # the module the target compiles is hashed pickled, and pickle shares an object it meets
    # twice: the knob's value is the declaration's own string however the request names it
    spec = tmp_path / "named.ae"
    spec.write_text("spec named\nknob mode: {plain, twisted} = plain\n"
                    "fn f(x: u16) -> u16 {\n    return if mode == twisted then x <<< 3 else x ^ 5\n}\n")
    a = driver.compile_spec(spec, "cc430f6137", {})
    b = driver.compile_spec(spec, "cc430f6137", {"mode": "plain"})
    assert len(cache) == 1 and b.asm == a.asm
    driver.compile_spec(spec, "cc430f6137", {"mode": "twisted"})             # another variant
    assert len(cache) == 2


def test_a_compile_waits_for_the_same_compile_in_progress(cache, monkeypatch):
    import threading
    from contextlib import contextmanager
    from aedsl import chips
    chip = chips.load("cc430f6137")
    name = unit_cache.key(SPECK, chip, KNOBS, None, None)
    real_lock, asking = unit_cache.lock, threading.Event()

    @contextmanager
    def lock(n):
        if threading.current_thread() is not threading.main_thread():
            asking.set()                    # the other compile missed the cache: it asks for the lock
        with real_lock(n):
            yield
    monkeypatch.setattr(unit_cache, "lock", lock)
    monkeypatch.setenv("AEDSL_UNIT_CACHE", "on")
    got = []
    with real_lock(name):                   # this "process" is compiling the variant
        other = threading.Thread(target=lambda: got.append(driver.compile_spec(SPECK, chip, KNOBS)))
        other.start()
        assert asking.wait(60)
        unit = driver._compile(SPECK, chip, KNOBS, None, None, True)
        unit_cache.store(name, unit)
    other.join(60)
    assert len(cache) == 1 and got[0].asm == unit.asm      # the other read it instead of compiling


def test_unreadable_spec_is_reported_by_the_compile(cache, tmp_path):
    from aedsl.frontend.diagnostics import SpecError
    with pytest.raises((SpecError, OSError)):
        driver.compile_spec(tmp_path / "missing.ae", "cc430f6137")
    assert not (tmp_path / "units").exists()


def test_a_patch_turns_the_cache_off(monkeypatch):
    monkeypatch.setenv("AEDSL_UNIT_CACHE", "on")
    assert unit_cache.enabled()
    monkeypatch.setattr(unit_cache, "KEEP", 5)          # any patch: the compiler may be patched
    assert not unit_cache.enabled()


def test_outside_a_patch_the_cache_is_as_the_run_started():
    # pytest's own set-up patches with MonkeyPatch too: that must not turn the cache off
    from tests.conftest import UNIT_CACHE_AT_START
    import os
    assert os.environ.get("AEDSL_UNIT_CACHE", "on") == UNIT_CACHE_AT_START
