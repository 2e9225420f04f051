"""aedsl installed with pip into a fresh virtualenv outside the checkout (not editable) works on
its own: it finds its grammar, chips, simulator sources, spec library and C runtime as package
data, compiles a spec given by path from another directory, and runs official vectors on the
generated code in the simulator."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from aedsl.resources import shared_vectors_dir

from tests.paths import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.needs("msp430")]


def _run(cmd, cwd, env=None):
    res = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(map(str, cmd))}\n{res.stdout}\n{res.stderr}"
    return res.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("installed")
    src = base / "src"                      # a copy of the tracked files: no build residue in the checkout
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        if rel.startswith(("generated/", "tests/", "docs/")):
            continue
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=base)
    _run([venv / "bin" / "pip", "install", "-q", src], cwd=base)
    shutil.rmtree(src)                      # the installed package must not lean on its source tree
    return venv


def test_installed_aedsl_compiles_and_runs_vectors_from_another_directory(installed, tmp_path):
    work = tmp_path / "elsewhere"
    work.mkdir()
    spec = work / "my_ascon.ae"
    shutil.copy(ROOT / "specs" / "schemes" / "ascon128.ae", spec)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["AEDSL_SHARED_VECTORS"] = str(shared_vectors_dir())
    aedsl = installed / "bin" / "aedsl"
    where = _run([installed / "bin" / "python", "-c", "import aedsl, aedsl.resources as r; "
                  "print(aedsl.__file__); print(r.specs_dir()); print(r.runtime_dir())"], cwd=work, env=env)
    site = str(installed)
    assert all(line.startswith(site) for line in where.split()), where
    out = _run([aedsl, "compile", spec, "--chip", "msp430f1611", "-o", work / "out"], cwd=work, env=env)
    assert "wrote" in out and list((work / "out").glob("*.S"))
    # a scheme: the generated code linked with the packaged C runtime, all official LWC KATs
    out = _run([aedsl, "kat", spec, "--chip", "stm32f030", "--engine", "sim", "--vectors", "lwc:ascon128"],
               cwd=work, env=env)
    assert out.strip().splitlines()[-1].startswith("1089 passed, 0 failed"), out
    # a block cipher given by a path into the checkout, run in the MSP430X simulator
    out = _run([aedsl, "kat", ROOT / "specs" / "primitives" / "speck.ae", "--chip", "cc430f6137",
                "--engine", "sim", "--vectors", "speck-paper", "-k", "block_bits=64", "-k", "key_bits=128"],
               cwd=work, env=env)
    assert out.strip().splitlines()[-1].startswith("1 passed, 0 failed"), out
