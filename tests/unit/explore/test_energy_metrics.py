"""The modelled-energy columns of `aedsl explore` (aedsl/explore/task.py `_metrics`), on records
made by hand and given their energy the way `aedsl bench` gives it (aedsl.bench._with_energy): the
columns follow the cycle columns, carry the chip's pJ per cycle, and are absent for a chip file
without a [power] table. No toolchain needed."""
import csv
import io
from dataclasses import replace

import pytest

from aedsl import chips
from aedsl.bench import Record, _with_energy
from aedsl.explore import report
from aedsl.explore.task import Outcome, _metrics


def _rec(op, msg_len, cycles, cpb):
    return Record(spec="x.ae", chip="c", knobs={}, op=op, ad_len=0, msg_len=msg_len, cycles=cycles,
                  cycles_per_byte=cpb, rom_bytes=1000, ram_bytes=0, stack_bytes=20)


def _block_recs():
    return [_rec("key_schedule", 0, 500, None), _rec("encrypt_block", 16, 1600, 100.0),
            _rec("decrypt_block", 16, 1760, 110.0)]


def _aead_recs():
    return [_rec("encrypt", 0, 900, None), _rec("decrypt", 0, 950, None),
            _rec("encrypt", 16, 2400, 150.0), _rec("decrypt", 16, 2560, 160.0), _rec("key_setup", 0, 300, None)]


def test_block_cipher_energy_columns():
    chip = chips.load("msp430f5528")                      # 290 uA/MHz at 3.0 V: 870 pJ per cycle
    m = _metrics(_with_energy(_block_recs(), chip), ("16",))
    assert list(m) == ["enc_cpb", "dec_cpb", "key_schedule_cycles", "enc_nj_per_block", "enc_nj_per_byte"]
    assert m["enc_nj_per_block"] == pytest.approx(1600 * 0.87)
    assert m["enc_nj_per_byte"] == pytest.approx(100 * 0.87)


def test_aead_energy_columns_per_size():
    chip = chips.load("samd21g18")                        # 70.2 uA/MHz at 3.3 V: 231.66 pJ per cycle
    m = _metrics(_with_energy(_aead_recs(), chip), ("0", "16"))
    assert list(m) == ["enc_cpb_0", "dec_cpb_0", "enc_cpb_16", "dec_cpb_16", "key_setup_cycles",
                       "enc_nj_0", "enc_nj_per_byte_0", "enc_nj_16", "enc_nj_per_byte_16"]
    pj = 70.2 * 3.3
    assert m["enc_nj_0"] == pytest.approx(900 * pj / 1e3) and m["enc_nj_per_byte_0"] is None
    assert m["enc_nj_16"] == pytest.approx(2400 * pj / 1e3) and m["enc_nj_per_byte_16"] == pytest.approx(150 * pj / 1e3)


def test_no_energy_columns_without_power_data():
    chip = replace(chips.load("msp430f5528"), power=None)
    assert list(_metrics(_with_energy(_block_recs(), chip), ("16",))) == ["enc_cpb", "dec_cpb", "key_schedule_cycles"]
    assert "enc_nj_16" not in _metrics(_with_energy(_aead_recs(), chip), ("0", "16"))


def test_csv_has_the_energy_columns():
    chip = chips.load("msp430f5528")
    o = Outcome(knobs={"unroll": "1"}, ok=True, verified="x: 1 passed", rom_bytes=1000, ram_bytes=0, stack_bytes=20,
                metrics=_metrics(_with_energy(_block_recs(), chip), ("16",)))
    text = report.to_csv("x.ae", "msp430f5528", ["unroll"], [o], "enc_cpb")
    (row,) = csv.DictReader(io.StringIO(text))
    assert list(row)[-4:] == ["enc_nj_per_block", "enc_nj_per_byte", "pareto", "reason"]
    assert row["enc_nj_per_block"] == "1392.0" and row["enc_nj_per_byte"] == "87.0"
