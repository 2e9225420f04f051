"""docs/NEW_CHIP.md, followed verbatim in a temporary directory: its `file:` blocks written there
(chip files outside the package), then every `aedsl` line of its `sh` blocks run in order, in
process, each expected to exit 0 -- no code change, only chip files."""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex

import pytest

from aedsl import cli
from aedsl.resources import specs_dir

from .conftest import ROOT

DOC = ROOT / "docs" / "NEW_CHIP.md"
SPECS_LINE = 'SPECS=$(python -c "from aedsl.resources import specs_dir; print(specs_dir())")'


def _blocks(text: str):
    """(kind, path or None, body) for each fenced block: ("file", path, toml) after a `file:`
    line, ("sh", None, commands) for the command blocks."""
    for m in re.finditer(r"(?:^file: (\S+)\n)?^```(\w+)\n(.*?)^```", text, re.M | re.S):
        path, lang, body = m.groups()
        if path:
            yield "file", path, body
        elif lang == "sh":
            yield "sh", None, body


def test_doc_has_both_walkthroughs():
    text = DOC.read_text()
    files = [p for k, p, _ in _blocks(text) if k == "file"]
    assert files == ["my-chips/msp430fr5994.toml", "my-chips/stm32l053c8.toml"]
    assert SPECS_LINE in text


@pytest.mark.needs("msp430")
@pytest.mark.needs("armv6m")
@pytest.mark.slow
def test_follow_new_chip_doc(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = {"SPECS": str(specs_dir())}
    ran = 0
    for kind, path, body in _blocks(DOC.read_text()):
        if kind == "file":
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(body)
            continue
        for line in body.splitlines():
            if line == SPECS_LINE or not line.strip():
                continue
            assert line.startswith("aedsl "), line
            argv = [os.path.expandvars(a) if "$" in a else a for a in shlex.split(line.replace("$SPECS", env["SPECS"]))]
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli.main(argv[1:])
            assert code == 0, f"{line}\n{out.getvalue()[-2000:]}\n{err.getvalue()}"
            if argv[1] == "chips":
                assert argv[2].split("/")[-1].removesuffix(".toml") in out.getvalue()
            if argv[1] == "kat":
                assert re.search(r"\b[1-9]\d* passed, 0 failed", out.getvalue()), out.getvalue()[-500:]
            ran += 1
    assert ran == 9
    assert (tmp_path / "out" / "ccm_aes-accel_aes_mix-bytes_body-split_key_bits-256.S").exists()
