"""Shared test set-up: which targets' external tools are installed, whether the shared vector
files are there, the rule for a missing one, and the seeded `rng` fixture.

A test that assembles, links or compiles C for a target declares it with the marker
`@pytest.mark.needs("msp430")` (target names, or chip names, which stand for their target), or
calls the `require_tools` fixture with a chip or target name when the chip is a parameter. A test
that reads the vector files kept beside the repository (../shared/vectors, see
aedsl.resources.shared_vectors_dir) uses the `shared_vectors` fixture (or
`@pytest.mark.usefixtures("shared_vectors")`). When a declared
target's tools (its binutils and its C compiler, from the target's `ToolchainSpec`) or the shared
vectors are missing, the test FAILS if the environment variable `CI` is set (CI must never skip
silently) and is skipped with what is missing named otherwise.

Compiled units come from the unit cache (aedsl/unit_cache.py) whose key cannot see a patched
compiler: a test that patches anything with `monkeypatch` (setattr, setitem, delattr, delitem)
turns the cache off until the patch is undone, so its compiles are real.
"""
from __future__ import annotations

import os
import random
from functools import lru_cache
from pathlib import Path

import pytest

from aedsl import chips
from aedsl.backends.registry import TARGETS, by_name, target_for
from aedsl.resources import shared_vectors_dir
from aedsl.toolchain import BOOTSTRAP_HINT, ToolchainError, find_tool

# the run's setting, recorded by the first process (xdist workers inherit it)
UNIT_CACHE_AT_START = os.environ.setdefault("AEDSL_TESTS_UNIT_CACHE_AT_START",
                                            os.environ.get("AEDSL_UNIT_CACHE", "on"))
_PATCHING = ("setattr", "setitem", "delattr", "delitem")
_ORIGINAL = {name: getattr(pytest.MonkeyPatch, name) for name in _PATCHING}


def _compiles_for_real(method):
    def patched(self, target, *args, **kwargs):
        # within a test (pytest's own set-up patches too); setenv and delenv patch os.environ
        if "PYTEST_CURRENT_TEST" in os.environ and target is not os.environ:
            _ORIGINAL["setitem"](self, os.environ, "AEDSL_UNIT_CACHE", "off")
        return method(self, target, *args, **kwargs)
    return patched


for _name in _PATCHING:
    setattr(pytest.MonkeyPatch, _name, _compiles_for_real(_ORIGINAL[_name]))

TARGET_NAMES = tuple(t.name for t in TARGETS)
BINUTILS = ("as", "ld", "nm", "objcopy", "objdump")


def target_name(name: str) -> str:
    """A target's name, given the target's or a chip's name."""
    return name if name in TARGET_NAMES else target_for(chips.load(name)).name


def tools_of(target: str) -> tuple[str, ...]:
    """The executables a target's tests run: its prefixed binutils and its C compiler."""
    spec = by_name(target).toolchain
    cc = "clang" if spec.cc == "clang" else spec.prefix + spec.cc
    return tuple(spec.prefix + t for t in BINUTILS) + (cc,)


@lru_cache(maxsize=None)
def missing_tools(target: str) -> tuple[str, ...]:
    missing = []
    for tool in tools_of(target):
        try:
            find_tool(tool)
        except ToolchainError:
            missing.append(tool)
    return tuple(missing)


def unavailable(reason: str) -> None:
    """The one rule for a missing tool or data file: a failure under CI, a skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must not skip: {reason}", pytrace=False)
    pytest.skip(reason)


def require(*names: str) -> None:
    """Fail (under CI) or skip (elsewhere) unless the tools of every named target or chip are
    installed."""
    for name in names:
        target = target_name(name)
        missing = missing_tools(target)
        if missing:
            unavailable(f"{target} tools not installed: {', '.join(missing)} ({BOOTSTRAP_HINT})")




def pytest_runtest_setup(item):
    for mark in item.iter_markers(name="needs"):
        if not mark.args:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.needs takes target or chip names")
        require(*mark.args)


@pytest.fixture(scope="session")
def require_tools():
    """`require_tools(chip_or_target, ...)`: the marker's rule, for a chip known only at run time."""
    return require


@pytest.fixture
def rng(request):
    """A random.Random seeded with the test module's RNG_SEED (a module using it must set one)."""
    seed = getattr(request.module, "RNG_SEED", None)
    if seed is None:
        raise pytest.UsageError(f"{request.module.__name__} uses the rng fixture without RNG_SEED")
    return random.Random(seed)


@pytest.fixture
def shared_vectors() -> Path:
    """The shared vector directory (../shared/vectors), under the missing-tool rule."""
    d = shared_vectors_dir()
    if not d.is_dir():
        unavailable(f"shared vectors not present at {d} (set AEDSL_SHARED_VECTORS)")
    return d
