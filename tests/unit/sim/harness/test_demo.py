"""The SPECK samples, `python -m aedsl.demo` and the throughput workload."""
from __future__ import annotations

import pytest

from aedsl import chips, demo, samples
from aedsl import throughput
from aedsl.sim.harness import Program
from aedsl.backends.registry import target_for

from .conftest import ALL_CHIPS

pytestmark = pytest.mark.needs("msp430", "armv6m")


def test_vector_file_parsing():
    v = samples.speck_vector()
    assert v["KeyBytes"].hex() == "0001020308090a0b1011121318191a1b"
    assert v["PTBytes"].hex() == "2d4375747465723b"
    assert v["CTBytes"].hex() == "8b024e4548a56f8c"
    assert len(samples.speck_vector("Speck32/64")["KeyBytes"]) == 8


@pytest.mark.parametrize("name", ALL_CHIPS)
def test_speck_sample(name, build_dir):
    chip = chips.load(name)
    v = samples.speck_vector()
    p = Program(samples.build_speck(chip, build_dir / "speck"), chip)
    r = p.call("speck64_128_encrypt", [v["KeyBytes"], v["PTBytes"], bytes(8)])
    assert r.buffers[2] == v["CTBytes"]
    # MSP430: 7 pushes + a 116-byte l[] frame; ARM: push of 5 registers + a 120-byte frame
    assert r.stack_bytes == (140 if target_for(chip).name == "armv6m" else 130)
    in_place = p.call("speck64_128_encrypt_n", [v["KeyBytes"], v["PTBytes"], 1])
    assert in_place.buffers[1] == v["CTBytes"]


@pytest.mark.slow      # the whole demo with its paper runs; test_demo_reports_a_wrong_result runs its loop fast
def test_demo_main(capsys):
    assert demo.main([]) == 0
    out = capsys.readouterr().out
    for name in demo.DEMO_CHIPS:
        assert f"{name} " in out
    assert out.count(" ok") == len(demo.DEMO_CHIPS) and "WRONG" not in out
    # beside the papers: every run meets at least one of its paper's figures, each printed once
    papers = out[out.index("Beside the papers"):].splitlines()[2:-2]
    assert {ln.split()[1] for ln in papers} == {chip for _, chip, _, _ in demo.PAPER_RUNS}
    assert {ln.split()[0] for ln in papers} == {"000", "001", "003"} and "ERROR" not in out
    assert any("CCM (accel AES)" in ln and " ipi " in ln and " 38 " in ln for ln in papers)
    assert any("AES-128-GCM" in ln and " 1279 " in ln for ln in papers)      # 327313 cycles / 256 B


def test_demo_reports_a_wrong_result(monkeypatch, capsys):
    good = samples.speck_vector()
    monkeypatch.setattr(demo, "speck_vector", lambda *a, **k: {**good, "CTBytes": bytes(8)})
    monkeypatch.setattr(demo, "PAPER_RUNS", ())
    assert demo.main([]) == 1
    assert "WRONG" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["cc430f6137", "stm32f030"])
def test_throughput_workload(name, tmp_path):
    m = throughput.measure(name, 300_000, tmp_path)
    assert m["cycles"] >= 300_000
    assert m["instructions"] < m["cycles"]          # every instruction costs at least one cycle, most more
    assert m["cycles"] < 300_000 + 3 * m["cycles_per_block"]
