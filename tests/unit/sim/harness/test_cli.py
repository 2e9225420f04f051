"""`aedsl sim` run in-process."""
from __future__ import annotations

import json

from aedsl import cli
from aedsl.sim.harness import Program


def test_json_output(harness_elf, capsys):
    elf = str(harness_elf("stm32f030"))
    code = cli.main(["sim", elf, "--chip", "stm32f030", "--entry", "xor_into",
                     "--arg", "hex:0102030405", "--arg", "hex:ffffffffff", "--arg", "5", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    expect = Program(elf, "stm32f030").call("xor_into", [bytes([1, 2, 3, 4, 5]), b"\xff" * 5, 5])
    assert out["cycles"] == expect.cycles > 0
    assert out["instructions"] == expect.instructions
    assert out["stack_bytes"] == 8
    assert out["buffers"][0] == "fefdfcfbfa"
    assert out["registers"]["r0"] == out["return_value"] == expect.return_value
    assert set(out["registers"]) == {f"r{i}" for i in range(16)}
    assert out["ram"] == 20 and out["bench"] == 1024 and out["rom"] > 24


def test_text_output_and_stats(harness_elf, capsys):
    code = cli.main(["sim", str(harness_elf("cc430f6137")), "--chip", "cc430f6137", "--entry", "sum6",
                     "--arg", "1", "--arg", "2", "--arg", "3", "--arg", "4", "--arg", "0x10", "--arg", "0",
                     "--stats"])
    text = capsys.readouterr().out
    assert code == 0
    assert "cycles        13" in text and "return value  0x1a" in text and "instruction mix" in text


def test_unknown_symbol_exits_2(harness_elf, capsys):
    code = cli.main(["sim", str(harness_elf("stm32f030")), "--chip", "stm32f030", "--entry", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and "no symbol 'nope'" in err and "Traceback" not in err


def test_bad_argument_exits_2(harness_elf, capsys):
    elf = str(harness_elf("cc430f6137"))
    assert cli.main(["sim", elf, "--chip", "cc430f6137", "--entry", "sum6", "--arg", "0x12345"]) == 2
    assert "does not fit a 16-bit word" in capsys.readouterr().err
    assert cli.main(["sim", elf, "--chip", "cc430f6137", "--entry", "sum6", "--arg", "foo"]) == 2
    assert "bad --arg 'foo'" in capsys.readouterr().err


def test_unknown_chip_exits_2(harness_elf, capsys):
    code = cli.main(["sim", str(harness_elf("stm32f030")), "--chip", "z80", "--entry", "sum6"])
    assert code == 2 and "unknown chip 'z80'" in capsys.readouterr().err


def test_runaway_and_fault_exit_1(harness_elf, capsys):
    elf = str(harness_elf("stm32f030"))
    assert cli.main(["sim", elf, "--chip", "stm32f030", "--entry", "spin", "--max-steps", "100"]) == 1
    assert "did not return within 100 instructions" in capsys.readouterr().err
    # xor_into with dst = 1 (not RAM): the byte load from flash works, the store faults.
    assert cli.main(["sim", elf, "--chip", "stm32f030", "--entry", "xor_into", "--arg", "1", "--arg", "1",
                     "--arg", "1"]) == 1
    err = capsys.readouterr().err
    assert "xor_into" in err and "pc=" in err.lower()
