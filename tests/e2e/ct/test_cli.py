"""`aedsl ct` on the command line: exit 0 for a constant-time variant, 1 with the offending spec
line for a leaky one, 2 for a usage error; `--strict` refuses secret-dependent table indices,
which the default allows and lists with their tables; `--json` gives the same report."""
import json

import pytest

from aedsl.cli import main
from tests.paths import ROOT, SPECS

LEAKY = ROOT / "tests" / "e2e" / "ct" / "leaky"
SPECK = [str(SPECS / "primitives" / "speck.ae"), "--chip", "msp430f1611", "-k", "block_bits=64", "-k", "key_bits=128"]
AES = [str(SPECS / "primitives" / "aes.ae"), "--chip", "stm32f030", "--static-only"]


@pytest.mark.needs("msp430")
def test_a_constant_time_variant_exits_0(capsys):
    assert main(["ct", *SPECK]) == 0
    out = capsys.readouterr().out
    assert "static: pass" in out and "dynamic: pass" in out and out.rstrip().endswith("constant time: yes")


def test_a_leaky_spec_exits_1_naming_its_line(capsys):
    assert main(["ct", str(LEAKY / "secret_branch.ae"), "--chip", "cc430f6137", "--static-only"]) == 1
    out = capsys.readouterr().out
    assert "secret_branch.ae:15: branch:" in out and "if (ks[0] & 1) != 0 {" in out
    assert out.rstrip().endswith("constant time: NO")


def test_strict_refuses_the_table_lookups_the_default_lists(capsys):
    assert main(["ct", *AES]) == 0
    out = capsys.readouterr().out
    assert "secret-dependent memory indices (allowed" in out and "table aes_sbox" in out
    assert main(["ct", *AES, "--strict"]) == 1
    out = capsys.readouterr().out
    assert "index: load at a secret-dependent address from table aes_sbox" in out


def test_json_report(capsys):
    assert main(["ct", *AES, "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ok"] and rep["refused"] == [] and rep["dynamic"] is None
    assert {i["memory"] for i in rep["indices"]} >= {"sbox", "table aes_sbox"}


def test_usage_errors_exit_2(capsys):
    assert main(["ct", *AES, "--secrets", "0"]) == 2
    assert main(["ct", str(SPECS / "primitives" / "aes.ae"), "--chip", "nochip"]) == 2
    assert main(["ct", *AES, "-k", "nosuch=1"]) == 2
    capsys.readouterr()


def test_a_primitive_has_nothing_to_run_one_line_exit_2(capsys):
    """A permutation's spec has no block-cipher or AEAD entry for the simulator runs: one line
    naming --static-only, exit 2 (was a traceback); the static analysis alone still runs."""
    spec = str(SPECS / "primitives" / "spongent_pi160.ae")
    assert main(["ct", spec, "--chip", "stm32f030"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing to run in the simulator (use --static-only)" in err
    assert main(["ct", spec, "--chip", "stm32f030", "--static-only"]) == 0
