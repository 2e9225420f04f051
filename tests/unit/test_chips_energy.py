"""Chip files by name and by path, the `[power]` table every package chip file carries, `aedsl
chips`, and the energy model (aedsl/energy.py) with its place in `aedsl bench`."""
from __future__ import annotations

import contextlib
import io
import json

import pytest

from aedsl import chips, cli, energy


def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def test_every_package_chip_has_power_with_its_source():
    assert {"msp430fr5969", "samd21g18"} <= set(chips.names())
    for name in chips.names():
        p = chips.load(name).power
        assert p is not None, name
        assert 1.0 <= p.voltage <= 3.6 and 10 <= p.ua_per_mhz <= 1000, name
        assert p.source and len(p.source) > 20, name


def test_power_figures_are_the_cited_rows_or_marked_estimates():
    """Each [power] table holds the datasheet row its source names; a figure that was not found in
    its datasheet says ESTIMATE in its source (printed wherever the source is)."""
    p = {n: chips.load(n).power for n in chips.names()}
    assert (p["msp430f5528"].ua_per_mhz, p["msp430f5528"].ram_ua_per_mhz, p["msp430f5528"].voltage) == (290, 150, 3.0)
    assert (p["msp430f1611"].ua_per_mhz, p["msp430f1611"].ram_ua_per_mhz, p["msp430f1611"].voltage) == (500, None, 3.0)
    assert p["samd21g18"].ua_per_mhz == pytest.approx(3370 / 48, abs=0.05) and p["samd21g18"].voltage == 3.3
    assert p["msp430fr5969"].ua_per_mhz == 100
    assert (p["cc430f6137"].ua_per_mhz, p["cc430f6137"].ram_ua_per_mhz, p["cc430f6137"].voltage) == (227.5, 155, 3.0)
    assert (p["stm32f030"].ua_per_mhz, p["stm32f030"].voltage) == (375, 3.3)
    assert p["stm32f030"].ram_ua_per_mhz == pytest.approx(375 * 4.0 / 4.4, abs=0.05)
    for name in ("msp430f5528", "msp430f1611", "samd21g18", "msp430fr5969", "cc430f6137", "stm32f030"):
        assert not p[name].source.startswith("ESTIMATE"), name


def test_load_by_path_and_errors(tmp_path):
    f = tmp_path / "x.toml"
    f.write_text(chips.path_of("stm32f030").read_text().replace('name = "stm32f030"', 'name = "xchip"'))
    c = chips.load(str(f))
    assert c.name == "xchip" and c.cpu == "cortex-m0" and c.path == str(f)
    with pytest.raises(chips.UnknownChipError, match="no such file"):
        chips.load(str(tmp_path / "missing.toml"))
    f.write_text('name = "broken"\nisa = "armv6m"\n')
    with pytest.raises(chips.UnknownChipError, match="missing 'memory'"):
        chips.load(str(f))
    f.write_text(chips.path_of("stm32f030").read_text().replace("voltage = 3.3\n", ""))
    with pytest.raises(chips.UnknownChipError, match=r"\[power\] needs voltage"):
        chips.load(str(f))


def test_chips_command_lists_isa_core_memories_multiplier_accelerator():
    code, out, _ = _cli(["chips", "--json"])
    assert code == 0
    rows = {r["name"]: r for r in json.loads(out)}
    assert rows["msp430fr5969"]["accelerator"] == "aes256 (128/192/256-bit keys, XOR-in)"
    assert rows["cc430f6137"]["accelerator"] == "aes128 (128-bit keys)"
    assert rows["samd21g18"]["core"] == "cortex-m0plus" and "1 WS" in rows["samd21g18"]["flash"]
    assert rows["msp430f1611"]["multiplier"] == "mpy16" and rows["stm32f030"]["isa"] == "armv6m"
    code, out, _ = _cli(["chips"])
    assert code == 0 and out.splitlines()[0].split()[:3] == ["name", "isa", "core"]


def test_chip_path_in_every_verb_and_one_line_errors(tmp_path, capsys):
    code, _, err = _cli(["compile", "specs/primitives/speck.ae", "--chip", str(tmp_path / "nope.toml"), "-o", str(tmp_path)])
    assert code == 2 and "no such file" in err and err.count("\n") == 1
    code, _, err = _cli(["bench", "specs/primitives/speck.ae", "--chip", "nochip"])
    assert code == 2 and "unknown chip 'nochip'" in err and err.count("\n") == 1
    code, out, _ = _cli(["compile", "specs/primitives/speck.ae", "--chip", str(chips.path_of("msp430fr5969")),
                         "-k", "block_bits=64", "-k", "key_bits=128", "-o", str(tmp_path)])
    assert code == 0 and "wrote" in out


def test_energy_model_arithmetic():
    c = chips.load("msp430f5528")          # 290 uA/MHz at 3.0 V: 870 pJ per cycle
    assert energy.pj_per_cycle(c) == pytest.approx(870.0)
    e = energy.energy(c, 2000, 16)
    assert e.uj == pytest.approx(1.74) and e.uj_per_block == pytest.approx(1.74)
    assert e.nj_per_byte == pytest.approx(108.75)
    assert energy.pj_per_cycle(c, "ram") == pytest.approx(450.0)
    with pytest.raises(ValueError):
        energy.pj_per_cycle(chips.load("msp430f1611"), "ram")    # SLAS368 gives no RAM figure here
    assert energy.energy(chips.load("samd21g18"), 1000).nj_per_byte is None


@pytest.mark.needs("msp430")
def test_bench_prints_modelled_energy_beside_seed003():
    code, out, _ = _cli(["bench", "specs/primitives/speck.ae", "--chip", "msp430f5528",
                         "-k", "block_bits=128", "-k", "key_bits=128"])
    assert code == 0
    head, *rows = out.splitlines()
    assert head.split()[-2:] == ["uJ", "nJ/B"]
    enc = next(r for r in rows if " encrypt_block " in r)
    cycles, uj = float(enc.split()[6]), float(enc.split()[11])
    assert uj == pytest.approx(cycles * 870e-6, rel=1e-3)
    assert "seed 003 measured" in out and "not our model" in out and "not measured" in out
