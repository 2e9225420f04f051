"""ROM as the papers count it (aedsl/rom.py) and `aedsl bench --rom-detail`: every counted byte
is the unit's code or tables, the runtime API or a support routine a caller of crypto_aead_*
links; benchmark wrappers, start-up code and the staged API are listed but not counted; the bench
records' ROM is the counted sum."""
import json

import pytest

from aedsl import aead_runtime as rt
from aedsl import bench, chips, cli, rom
from aedsl.engines.sim import compiled

from aedsl.sim.elf import read_elf as ElfImage_of
from tests.paths import ROOT

CTR = str(ROOT / "specs/schemes/ctr.ae")
CCM = str(ROOT / "specs/schemes/ccm.ae")
AES = str(ROOT / "specs/primitives/aes.ae")


def _by_name(items):
    return {i.name: i for i in items}


@pytest.mark.needs("msp430")
def test_ctr_breakdown_counts_code_and_api_not_bench(capsys):
    code = cli.main(["bench", CTR, "--chip", "cc430f6137", "-k", "aes=accel", "--sizes", "16", "--json",
                     "--rom-detail"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    items = {i["name"]: i for i in out["rom_detail"]}
    unit, _ = compiled(CTR, "cc430f6137", {"aes": "accel"})
    for name in ("key_setup", "encrypt_with", "decrypt_with"):
        assert items[unit.entries[name].symbol]["kind"] == "code"
        assert items[unit.entries[name].symbol]["bytes"] == unit.entries[name].code_bytes
    for name in rt.NIST_API:
        assert items[name]["kind"] == "api" and items[name]["counted"]
    for name in rt.STAGED_API:     # the staged API: linked only by its users
        assert items[name]["kind"] == "unused" and not items[name]["counted"]
    bench_names = [n for n in items if n.startswith("aedsl_bench_")]
    assert bench_names and all(items[n]["kind"] == "bench" and not items[n]["counted"] for n in bench_names)
    counted = sum(i["bytes"] for i in items.values() if i["counted"])
    assert {r["rom_bytes"] for r in out["records"]} == {counted}
    assert 0 <= out["unattributed"] < 64


@pytest.mark.needs("msp430")
def test_text_breakdown_lists_kinds_and_total(capsys):
    code = cli.main(["bench", AES, "--chip", "msp430f5528", "--rom-detail"])
    text = capsys.readouterr().out
    assert code == 0
    detail = text.split("\n\n", 1)[1]
    items, extra = bench.rom_detail(AES, "msp430f5528", {})
    assert f"ROM (code + constants + api + library): {rom.rom_bytes(items)} B" in detail
    kinds = {i.kind for i in items}
    assert kinds == {"code", "constants"}            # a block cipher alone: no API, no wrappers
    assert _by_name(items)["aes_sbox"].kind == "constants" and _by_name(items)["aes_sbox"].bytes == 256
    rows = text.splitlines()[1:4]                     # key_schedule, encrypt_block, decrypt_block
    assert all(row.split()[-5] == str(rom.rom_bytes(items)) for row in rows)


@pytest.mark.needs("armv6m")
def test_arm_startup_code_is_not_counted():
    chip = chips.load("stm32f030")
    unit, _ = compiled(CCM, "stm32f030", {})
    b = bench.AeadBench(unit, chip)
    items = _by_name(b.rom_items)
    assert items["aedsl_vectors"].kind == "startup" and not items["aedsl_vectors"].counted
    assert items["aedsl_reset_handler"].kind == "startup"
    whole = sum(s["rom"] for n, s in b.program.elf.symbol_sizes().items() if not n.startswith("aedsl_bench_"))
    startup = sum(i.bytes for i in b.rom_items if i.kind == "startup")
    unused = sum(i.bytes for i in b.rom_items if i.kind == "unused")
    assert startup >= 64 and b.rom_bytes == whole - startup - unused
    # the T-tables and the S-box are the unit's constants
    assert sum(i.bytes for i in b.rom_items if i.kind == "constants") >= 256


def test_rom_detail_refuses_function_mode(capsys):
    code = cli.main(["bench", AES, "--chip", "msp430f5528", "--function", "key_schedule", "--rom-detail"])
    assert code == 2


@pytest.mark.parametrize("chip_name,knobs", [("cc430f6137", {"aes": "accel", "opt": "size"}),
                                             ("msp430f1611", {}), ("stm32f030", {"opt": "size"})])
def test_counted_is_what_a_caller_of_the_api_links(chip_name, knobs, require_tools):
    """The counted symbols are exactly those of a link from crypto_aead_encrypt/_decrypt alone
    (unused sections dropped), each the size it has in the benchmark ELF; the staged API and the
    benchmark wrappers are not in that link, and crypto_aead_* do not go through the staged API."""
    require_tools(chip_name)
    chip = chips.load(chip_name)
    unit, _ = compiled(CCM, chip_name, knobs)
    b = bench.AeadBench(unit, chip)
    api = rt.api_elf(b.elf_path)
    linked = rom.linked_symbols(api)
    assert set(rt.NIST_API) <= linked and not linked & set(rt.STAGED_API)
    in_rom = {n: s["rom"] for n, s in ElfImage_of(api, chip).symbol_sizes().items() if s["rom"]}
    assert {i.name: i.bytes for i in b.rom_items if i.counted} == in_rom
