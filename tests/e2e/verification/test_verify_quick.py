"""tools/verify_all.py: its --quick sample runs official vectors on generated code (MSP430, MSP430X
with the accelerator, ARMv6-M) and on the interpreter, and every row passes; the matrix holds the
rows issues 4 and 5 accept on."""
import importlib.util
import json
import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.needs("msp430", "armv6m")
SCRIPT = ROOT / "tools" / "verify_all.py"


def _module():
    if "verify_all" not in sys.modules:
        spec = importlib.util.spec_from_file_location("verify_all", SCRIPT)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["verify_all"] = mod              # dataclasses look their module up there
        spec.loader.exec_module(mod)
    return sys.modules["verify_all"]


def test_quick_sample_passes(tmp_path):
    out = tmp_path / "rows.json"
    p = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", "none", "--no-rerun", "--json", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rows = json.loads(out.read_text())
    ids = {r["row_id"] for r in rows}
    assert len(rows) == len(_module().QUICK_SAMPLE)
    assert any(i.startswith("sim/msp430f1611/speck") for i in ids)
    assert any(i.startswith("sim/stm32f030/") for i in ids)
    assert any("aes=accel" in i for i in ids)
    assert any(i.startswith("interp/") for i in ids)
    for r in rows:
        assert r["error"] == "", r
        assert r["failed"] == 0, r
        assert r["passed"] > 0, r
        assert r["command"].startswith("aedsl kat "), r


def test_only_filters_and_failure_exit_status(tmp_path):
    """--only selects by regex; a regex selecting nothing is a usage error (exit 2)."""
    p = subprocess.run([sys.executable, str(SCRIPT), "--only", "^no-such-row$", "--out", "none"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2


def test_matrix_covers_the_acceptance_lists():
    m = _module()
    ids = {r.id for r in m.matrix()}
    for bits in (128, 192, 256):
        for tables in m.AES_TABLES:
            for unroll in ("1", "full"):
                assert (f"sim/cc430f6137/aes[aes_tables={tables},key_bits={bits},unroll={unroll}]"
                        f"/cavp:aes:ECBMMT{bits}") in ids
    for mode, src in (("ccm", "cavp:ccm:VTT128"), ("gcm", "wycheproof:aes_gcm"), ("ocb3", "rfc7253"),
                      ("eax", "eax-paper"), ("ctr", "rfc3686:aes128")):
        for sched in ("delay_slot", "none"):
            assert f"sim/cc430f6137/{mode}[aes=accel,key_bits=128,schedule={sched}]/{src}" in ids
    assert sum(i.startswith("sim/msp430f1611/speck") and i.endswith("/speck-paper") for i in ids) == 10
    assert sum(i.startswith("sim/stm32f030/speck") and i.endswith("/speck-paper") for i in ids) == 10
    assert sum(i.startswith("sim/cc430f6137/ccm[aes=soft") and "cavp:ccm" in i and "opt=size" not in i
               for i in ids) == 15
    # issue 13: size mode on the same vector sets (AES-128 modes, the ARM schemes, AES alone)
    for mode, src in (("ccm", "cavp:ccm:VTT128"), ("gcm", "wycheproof:aes_gcm"), ("ocb3", "rfc7253"),
                      ("eax", "eax-paper"), ("ctr", "rfc3686:aes128")):
        for aes in ("accel", "soft"):
            assert f"sim/cc430f6137/{mode}[aes={aes},key_bits=128,opt=size]/{src}" in ids
        assert f"sim/stm32f030/{mode}[key_bits=128,opt=size]/{src}" in ids
    assert "sim/stm32f030/chacha20_poly1305[opt=size]/rfc8439" in ids


def test_matrix_has_every_lwc_scheme_on_every_chip():
    """Issue 10: each LWC scheme on the three chips and the interpreter against its KAT file; a
    variant that does not fit is a row too (its build error reported as such, not as a failure)."""
    m = _module()
    rows = {r.id: r for r in m.matrix()}
    for stem, source in m.LWC.items():
        for where in ("sim/msp430f1611", "sim/cc430f6137", "sim/stm32f030", "interp/-"):
            row = rows[f"{where}/{stem}[]/{source}"]
            assert row.may_not_fit == ((stem, row.chip) in m.LWC_UNFIT)
            assert (row.every is not None) == ((stem, row.chip) in m.LWC_SAMPLED)
    assert "sim/stm32f030/skinny128_384plus[rounds=40]/skinny:128-384plus" in rows
    assert rows["sim/cc430f6137/elephant_dumbo[]/lwc:elephant-dumbo"].command().endswith("--every 33")


def test_a_stated_unfit_row_is_not_a_failure():
    m = _module()
    unfit = m.Result("r", unfit="does not fit: region `FLASH' overflowed by 1 bytes", date="now")
    assert unfit.status() == "does not fit" and not unfit.ok and not unfit.bad
    assert m.Result("r", error="does not fit: x", date="now").bad
    err = RuntimeError("ld: /tmp/x/u.tmp section `.text' will not fit in region `FLASH'")
    assert m._why(err) == "does not fit: section `.text' will not fit in region `FLASH'"
