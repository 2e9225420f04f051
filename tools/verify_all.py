#!/usr/bin/env python3
"""Run the official vector sets on generated code in the simulators (issues 4 and 5 acceptance
matrix) and on the IR interpreter (issue 3's list), and write docs/VERIFICATION.md.

    .venv/bin/python tools/verify_all.py                  # the whole matrix, 2 processes (minutes)
    .venv/bin/python tools/verify_all.py --only 'stm32f030/ccm'   # rows whose id matches a regex
    .venv/bin/python tools/verify_all.py --quick --out none        # QUICK_SAMPLE only, no doc written
    .venv/bin/python tools/verify_all.py --list           # print the row ids and exit

A row = (engine, chip, spec, knobs, vector source). Each row is checked by the same judge as
`aedsl kat` (aedsl.vectors.runner: encryption, decryption, rejection of tampered tags); the doc
prints the `aedsl kat` command that reproduces it. Rows sharing a build (engine, chip, spec,
knobs) run in one worker so each variant is compiled once (sim_engine also caches ELFs on disk).
Rows whose key/block size has no vector in a source are left out (listed at the end of the doc).
Every sim build is also checked by `aedsl ct` (aedsl/ct: taint analysis of the IR and the machine
code, and the simulator on random secrets; --no-ct skips it): the doc's `ct` column, and a row
whose build is not constant time fails.
A failing row is re-run once in a fresh process at the end (backends change under us); the doc
says whether it passed then. Results are kept in $AEDSL_CACHE/verify_results.json, so a run with
--only/--quick updates its rows and the doc still shows every row (each with the date it ran). Exit status 1 if any row failed (failures, build errors, or no vector
ran), else 0.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from aedsl.backends.msp430.backend import BACKEND_KNOBS  # noqa: E402

AES, SPECK = "specs/primitives/aes.ae", "specs/primitives/speck.ae"
CTR, CCM, GCM, OCB3, EAX = (f"specs/schemes/{n}.ae" for n in ("ctr", "ccm", "gcm", "ocb3", "eax"))
CHACHA = "specs/schemes/chacha20_poly1305.ae"
KEY_SIZES = (128, 192, 256)
AES_TABLES = BACKEND_KNOBS["aes_tables"]                   # the MSP430 backend's strategies
AES_UNROLLS = ("looped", "1", "full")                        # specs/primitives/aes.ae
SPECK_SETS = ((32, 64), (48, 72), (48, 96), (64, 96), (64, 128), (96, 96), (96, 144),
              (128, 128), (128, 192), (128, 256))
ECB_KINDS = ("GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT")
CCM_KINDS = ("DVPT", "VADT", "VNT", "VPT", "VTT")
GCM_PER_SECTION = 1            # CAVP GCM sample: the first case of every section (documented)
# RFC 3686's AES-CTR vectors (aedsl.vectors.rfc3686; tag length 0: CTR is a scheme with an empty tag)
RFC3686 = "rfc3686:aes{bits}"
# issue 10: the lightweight AEADs, each on its official LWC-format KAT file (NORX: the 256 vectors
# derived from the designers' kat.h), on the three chips and the interpreter
LWC = {"ascon128": "lwc:ascon128", "ascon_aead128": "lwc:ascon-aead128-sp800-232",
       "norx32_4_1": "lwc:norx32-4-1", "isap_a_128a": "lwc:isap-a-128a",
       "photon_beetle_aead128": "lwc:photon-beetle-aead128", "romulus_n": "lwc:romulus-n",
       "grain128aeadv2": "lwc:grain-128aeadv2", "elephant_dumbo": "lwc:elephant-dumbo"}
LWC_CHIPS = ("msp430f1611", "cc430f6137", "stm32f030")
# Full files everywhere but where one full run costs over a minute (Elephant's Spongent-pi[160]
# on the MSP430 chips and in the interpreter): there every 33rd vector and the last (34 of 1089:
# every AD length 0..32 at varying message lengths), the sample tests/e2e/lwc uses (documented).
LWC_EVERY = 33
LWC_SAMPLED = {("elephant_dumbo", "msp430f1611"), ("elephant_dumbo", "cc430f6137"), ("elephant_dumbo", "-")}
# Variants whose code does not fit the chip's flash yet: a row each, showing the linker's reason
# (run like any row: once one fits, it runs its vectors and passes or fails as usual).
LWC_UNFIT: set[tuple[str, str]] = set()    # (Grain-128AEADv2 on cc430f6137 and stm32f030 until 2026-11-24)
SKINNY = "specs/primitives/skinny128_384plus.ae"
SKINNY_SOURCES = ((40, "skinny:128-384plus"), (56, "skinny:128-384"))

# --quick: one small row per kind of engine/target, documented in VERIFICATION.md; < 60 s cold
QUICK_SAMPLE = (
    r"^sim/msp430f1611/speck\[block_bits=64,key_bits=128\]/speck-paper$",
    r"^sim/cc430f6137/aes\[aes_tables=t16x4,key_bits=128,unroll=1\]/fips197$",
    r"^sim/cc430f6137/ccm\[aes=accel,key_bits=128,schedule=delay_slot\]/cavp:ccm:DVPT128$",
    r"^sim/stm32f030/chacha20_poly1305\[\]/rfc8439$",
    r"^interp/-/eax\[key_bits=128\]/eax-paper$",
)


@dataclass
class Row:
    engine: str                 # sim | interp
    chip: str                   # "-" for interp
    spec: str                   # repo-relative path
    knobs: dict
    source: str
    per_section: int | None = None
    every: int | None = None        # a sample: vectors 0, N, 2N, .. and the last (vectors.load)
    may_not_fit: bool = False       # a build that overflows the chip is reported, not failed

    @property
    def stem(self) -> str:
        return Path(self.spec).stem

    @property
    def id(self) -> str:
        k = ",".join(f"{a}={b}" for a, b in sorted(self.knobs.items()))
        return f"{self.engine}/{self.chip}/{self.stem}[{k}]/{self.source}"

    @property
    def build(self) -> tuple:
        return (self.engine, self.chip, self.spec, tuple(sorted(self.knobs.items())))

    def command(self) -> str:
        k = "".join(f" -k {a}={b}" for a, b in self.knobs.items())
        chip = f" --chip {self.chip}" if self.engine == "sim" else ""
        ps = f" --per-section {self.per_section}" if self.per_section else ""
        ps += f" --every {self.every}" if self.every else ""
        return f"aedsl kat {self.spec}{k} --engine {self.engine}{chip} --vectors {self.source}{ps}"


@dataclass
class Result:
    row_id: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    error: str = ""             # build/compile/engine construction error
    failures: list = field(default_factory=list)
    seconds: float = 0.0
    rerun: str = ""             # "" | "passed on re-run" | "failed again"
    date: str = ""              # UTC time the row ran
    unfit: str = ""             # a may_not_fit row whose build overflowed the chip: the linker's reason
    ct: str = ""                # `aedsl ct` of the row's build: "" (not run), "yes[; ...]", "NO: ...", "ERROR: ..."

    @property
    def ct_ok(self) -> bool:
        return not self.ct.startswith(("NO", "ERROR"))

    @property
    def ok(self) -> bool:
        return not self.error and self.failed == 0 and self.passed > 0 and self.ct_ok

    @property
    def bad(self) -> bool:
        """Failed, errored or ran nothing; a stated does-not-fit row is not bad."""
        return not self.ok and not self.unfit

    def status(self) -> str:
        if not self.date:
            return "not run"
        if self.unfit:
            return "does not fit"
        if self.error:
            return "ERROR"
        if self.failed:
            return "FAIL"
        if not self.ct_ok:
            return "NOT CONSTANT TIME"
        return "pass" if self.passed else "NONE RAN"


# --- the matrix ----------------------------------------------------------------------------------

def _aes_sources(bits: int) -> list[str]:
    return ["fips197"] + [f"cavp:aes:ECB{k}{bits}" for k in ECB_KINDS]


def _mode_rows(chip: str, spec: str, knobs: dict, bits: int) -> list[Row]:
    """The official sources of one mode at one key size."""
    name = Path(spec).stem
    srcs: list[tuple[str, int | None]] = {
        "ctr": [(RFC3686.format(bits=bits), None)],
        "ccm": [("wycheproof:aes_ccm", None)] + [(f"cavp:ccm:{k}{bits}", None) for k in CCM_KINDS],
        "gcm": [("wycheproof:aes_gcm", None)] + [(f"cavp:gcm:{d}{bits}", GCM_PER_SECTION)
                                                 for d in ("encrypt", "decrypt")],
        "ocb3": [("rfc7253", None)] + [(f"ocb3:nonce{n}", None) for n in (104, 112, 120)],
        "eax": [("eax-paper", None), ("wycheproof:aes_eax", None)],
    }[name]
    return [Row("sim" if chip != "-" else "interp", chip, spec, dict(knobs), s, ps) for s, ps in srcs]


def matrix() -> list[Row]:
    rows: list[Row] = []
    # issue 4, cc430f6137: AES every aes_tables x unroll, every key size
    for bits in KEY_SIZES:
        for tables in AES_TABLES:
            for unroll in AES_UNROLLS:
                knobs = {"key_bits": bits, "aes_tables": tables, "unroll": unroll}
                rows += [Row("sim", "cc430f6137", AES, knobs, s) for s in _aes_sources(bits)]
    # the modes: soft at every key size, accel (AES-128 module) with and without delay-slot scheduling
    for spec in (CTR, CCM, GCM, OCB3, EAX):
        for bits in KEY_SIZES:
            rows += _mode_rows("cc430f6137", spec, {"aes": "soft", "key_bits": bits}, bits)
        for sched in ("delay_slot", "none"):
            rows += _mode_rows("cc430f6137", spec, {"aes": "accel", "key_bits": 128, "schedule": sched}, 128)
    # issue 4, msp430f1611 (original CPU): SPECK all sets, AES every key size
    for chip in ("msp430f1611",):
        for b, k in SPECK_SETS:
            rows += [Row("sim", chip, SPECK, {"block_bits": b, "key_bits": k}, s)
                     for s in ("speck-paper", "cryptopp:speck")]
        for bits in KEY_SIZES:
            rows += [Row("sim", chip, AES, {"key_bits": bits}, s) for s in _aes_sources(bits)]
        for tables in AES_TABLES:                 # every strategy and shape too, AES-128
            for unroll in AES_UNROLLS:
                knobs = {"key_bits": 128, "aes_tables": tables, "unroll": unroll}
                rows += [Row("sim", chip, AES, knobs, s) for s in _aes_sources(128)]
    # issue 5, stm32f030; issue 12, the same rows on the Cortex-M0+ samd21g18
    for arm in ("stm32f030", "samd21g18"):
        for bits in (128, 256):
            rows += [Row("sim", arm, AES, {"key_bits": bits}, s) for s in _aes_sources(bits)]
            for spec in (CCM, EAX, GCM):
                rows += _mode_rows(arm, spec, {"key_bits": bits}, bits)
        rows += [Row("sim", arm, CHACHA, {}, s)
                 for s in ("rfc8439", "cryptopp:chacha20poly1305", "wycheproof:chacha20_poly1305")]
        for b, k in SPECK_SETS:
            rows += [Row("sim", arm, SPECK, {"block_bits": b, "key_bits": k}, s) for s in ("speck-paper", "cryptopp:speck")]
        rows += _mode_rows(arm, CTR, {"key_bits": 128}, 128) + _mode_rows(arm, OCB3, {"key_bits": 128}, 128)
    # issue 12: the M0+ GCM variant measured against mbedtls (docs/BENCHMARKS.md, m0plus section)
    rows += _mode_rows("samd21g18", GCM, {"key_bits": 128, "placement": "ram", "ghash_word": 32,
                                          "ghash_unroll": "full", "aes_unroll": "full"}, 128)
    # issue 12, msp430fr5969: the AES256 module with 128-, 192- and 256-bit keys in every AES mode,
    # with the AESAXDIN chaining (the default) and without it (aes_chain=software)
    for spec in (CTR, CCM, GCM, OCB3, EAX):
        for bits in KEY_SIZES:
            rows += _mode_rows("msp430fr5969", spec, {"aes": "accel", "key_bits": bits}, bits)
        if spec in (CCM, EAX):
            rows += _mode_rows("msp430fr5969", spec, {"aes": "accel", "key_bits": 128, "aes_chain": "software"}, 128)
    # issue 13: size mode (opt=size) on the same vector sets as the speed rows above: the AES modes
    # on cc430f6137 (software AES-128 and the accelerator), the ARM schemes, AES alone
    size = {"opt": "size"}
    for spec in (CTR, CCM, GCM, OCB3, EAX):
        rows += _mode_rows("cc430f6137", spec, {"aes": "soft", "key_bits": 128, **size}, 128)
        rows += _mode_rows("cc430f6137", spec, {"aes": "accel", "key_bits": 128, **size}, 128)
        rows += _mode_rows("stm32f030", spec, {"key_bits": 128, **size}, 128)
        # the AES256 module with a 256-bit key: size mode writes the key's 16 words by a loop
        rows += _mode_rows("msp430fr5969", spec, {"aes": "accel", "key_bits": 256, **size}, 256)
    # GCM in size mode with the 16-bit T-tables (the size-mode row of docs/BENCHMARKS.md that meets
    # seed 000's software cycles)
    rows += _mode_rows("cc430f6137", GCM, {"aes": "soft", "key_bits": 128, "aes_tables": "t16x4", **size}, 128)
    rows += [Row("sim", "stm32f030", CHACHA, dict(size), s)
             for s in ("rfc8439", "cryptopp:chacha20poly1305", "wycheproof:chacha20_poly1305")]
    for chip in ("cc430f6137", "stm32f030"):
        rows += [Row("sim", chip, AES, {"key_bits": 128, **size}, s) for s in _aes_sources(128)]
    # issue 3's list on the IR interpreter (the reference semantics)
    for bits in KEY_SIZES:
        rows += [Row("interp", "-", AES, {"key_bits": bits}, "fips197")]
        rows += [Row("interp", "-", GCM, {"key_bits": bits}, "wycheproof:aes_gcm")]
        rows += [Row("interp", "-", GCM, {"key_bits": bits}, f"cavp:gcm:{d}{bits}", GCM_PER_SECTION)
                 for d in ("encrypt", "decrypt")]
        rows += [Row("interp", "-", CCM, {"key_bits": bits}, s)
                 for s in ["wycheproof:aes_ccm"] + [f"cavp:ccm:{k}{bits}" for k in CCM_KINDS]]
        rows += [Row("interp", "-", EAX, {"key_bits": bits}, "wycheproof:aes_eax")]
    rows += [Row("interp", "-", EAX, {"key_bits": 128}, "eax-paper"),
             Row("interp", "-", OCB3, {"key_bits": 128}, "rfc7253")]
    rows += [Row("interp", "-", CHACHA, {}, s) for s in ("rfc8439", "wycheproof:chacha20_poly1305")]
    rows += [Row("interp", "-", CHACHA, {"unroll": "looped", "body": "shared"}, s)      # opt=size's variant
             for s in ("rfc8439", "wycheproof:chacha20_poly1305")]
    rows += [Row("interp", "-", SPECK, {"block_bits": b, "key_bits": k}, "speck-paper") for b, k in SPECK_SETS]
    # issue 10: the lightweight AEADs and SKINNY-128-384(+), the one primitive with its own vectors
    for chip in LWC_CHIPS + ("-",):
        engine = "sim" if chip != "-" else "interp"
        for stem, source in LWC.items():
            rows.append(Row(engine, chip, f"specs/schemes/{stem}.ae", {}, source,
                            every=LWC_EVERY if (stem, chip) in LWC_SAMPLED else None,
                            may_not_fit=(stem, chip) in LWC_UNFIT))
        rows += [Row(engine, chip, SKINNY, {"rounds": r}, s) for r, s in SKINNY_SOURCES]
    # Grain-128AEADv2 with its AUGen as a loop (seed 002 Table 2's variant; opt=size takes it)
    for chip in LWC_CHIPS:
        rows.append(Row("sim", chip, "specs/schemes/grain128aeadv2.ae", {"unroll": 1}, LWC["grain128aeadv2"]))
    # PHOTON-Beetle with PHOTON256's round as one table look-up per cell (seed 002's way, its
    # Table 2 and 3 rows), in both modes
    for chip in LWC_CHIPS:
        for knobs in ({"mix": "table"}, {"mix": "table", **size}):
            rows.append(Row("sim", chip, "specs/schemes/photon_beetle_aead128.ae", knobs,
                            LWC["photon_beetle_aead128"]))
    rows.append(Row("interp", "-", "specs/schemes/photon_beetle_aead128.ae", {"mix": "table"},
                    LWC["photon_beetle_aead128"]))
    return rows


# --- vectors ---------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def load_vectors(source: str, per_section: int | None, every: int | None = None) -> tuple:
    from aedsl import vectors
    opts = {"per_section": per_section} if per_section else {}
    return tuple(vectors.load(source, every=every, **opts))


def in_domain(row: Row) -> int:
    """How many vectors of the row's source have its key (and block) size."""
    defaults = {"chacha20_poly1305": 256, "skinny128_384plus": 384}
    kb = int(row.knobs.get("key_bits", defaults.get(row.stem, 128))) // 8
    bb = int(row.knobs["block_bits"]) // 8 if "block_bits" in row.knobs else None
    n = 0
    for v in load_vectors(row.source, row.per_section, row.every):
        if len(v.key) != kb:
            continue
        if bb is not None and getattr(v, "block_bytes", None) not in (None, bb):
            continue
        n += 1
    return n


# --- running ---------------------------------------------------------------------------------------

LENGTHS = ("msg_len", "ad_len", "nonce_len", "tag_len")


def constant_time(row: Row) -> str:
    """`aedsl ct` of a sim row's build, as the doc's `ct` column: "yes", plus the public inputs
    other than lengths the cycles follow and the number of secret-dependent table indices
    (allowed: no data cache); "NO: ..." with the first reason otherwise."""
    from aedsl.ct.check import check
    rep = check(ROOT / row.spec, row.chip, dict(row.knobs))
    if rep.ok:
        follows = sorted({f for t in rep.dynamic.ops for f in t.follows if f not in LENGTHS})
        idx = len({(f.loc, f.memory) for f in rep.indices() if f.level == "machine"})
        extra = ([f"cycles follow {', '.join(follows)}"] if follows else []) + ([f"secret indices at {idx} places"] if idx else [])
        return "; ".join(["yes"] + extra)
    refused = rep.refused()
    if refused:
        f = refused[0]
        return f"NO: {f.kind} at {f.where.rsplit('/', 1)[-1]} ({len(refused)} findings)"
    vary = [t.op for t in rep.dynamic.ops if not t.constant]
    return f"NO: cycles vary with the secrets in {', '.join(vary)}"


def run_build(rows: list[Row], with_ct: bool = True) -> list[Result]:
    """One worker task: build the engine once, run each row's vectors through the kat judge;
    then `aedsl ct` on the build (sim rows)."""
    from aedsl.commands.kat import make_engine
    from aedsl.vectors import runner
    first = rows[0]
    t0 = time.monotonic()
    try:
        engine = make_engine(first.engine, str(ROOT / first.spec), dict(first.knobs),
                             first.chip if first.engine == "sim" else None)
        err = ""
    except Exception as e:                          # a variant that does not compile/link: every row errs
        engine, err = None, _why(e)
    out = []
    for r in rows:
        res = Result(r.id, date=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M"))
        if engine is None and r.may_not_fit and err.startswith("does not fit"):
            res.unfit = err
        elif engine is None:
            res.error = err
        else:
            try:
                rep = runner.run(engine, load_vectors(r.source, r.per_section, r.every), keep=3)
                res.passed, res.failed, res.skipped = rep.passed, rep.failed, rep.skipped
                res.failures = [str(f)[:300] for f in rep.failures]
            except Exception as e:
                res.error = _why(e)
        res.seconds = time.monotonic() - t0
        t0 = time.monotonic()
        out.append(res)
    if with_ct and first.engine == "sim" and engine is not None:
        try:
            ct = constant_time(first)
        except Exception as e:
            ct = f"ERROR: {_why(e)}"
        for res in out:
            res.ct = ct
        out[-1].seconds += time.monotonic() - t0
    return out


def _why(e: Exception) -> str:
    text = str(e)
    for ln in text.splitlines():
        if "overflowed by" in ln:
            return "does not fit: " + ln.split(": ")[-1].strip()
    for ln in text.splitlines():                 # the MSP430 linker names the section instead
        if "will not fit in region" in ln:
            return "does not fit: " + ln.split(".tmp ")[-1].split(": ")[-1].strip()
    first = text.splitlines()[0][:160] if text else ""
    return f"{type(e).__name__}: {first}".replace("|", "/")


def run_rows(rows: list[Row], jobs: int, label: str = "", with_ct: bool = True) -> dict[str, Result]:
    groups: dict[tuple, list[Row]] = {}
    for r in rows:
        groups.setdefault(r.build, []).append(r)
    # largest groups first so the two workers finish together
    tasks = sorted(groups.values(), key=lambda g: -sum(len(load_vectors(r.source, r.per_section, r.every)) for r in g))
    results: dict[str, Result] = {}
    done, total = 0, len(rows)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futs = [pool.submit(run_build, g, with_ct) for g in tasks]
        for f in as_completed(futs):
            for res in f.result():
                done += 1
                results[res.row_id] = res
                extra = f" ({res.error or res.unfit})" if res.error or res.unfit else f" (ct: {res.ct})" if res.ct else ""
                print(f"[{done:>3}/{total}]{label} {res.status():8} {res.passed:>5} passed {res.failed:>4} failed "
                      f"{res.skipped:>5} skipped  {res.seconds:5.1f}s  {res.row_id}{extra}", flush=True)
    return results


# --- the document -----------------------------------------------------------------------------------

def _knobs_text(k: dict) -> str:
    return " ".join(f"{a}={b}" for a, b in k.items()) or "(defaults)"


SECTIONS = [("MSP430X, CC430F6137 (issue 4)", lambda r: r.chip == "cc430f6137"),
            ("MSP430, MSP430F1611 — original CPU, no MSP430X instructions (issue 4)", lambda r: r.chip == "msp430f1611"),
            ("ARMv6-M, STM32F030 (issue 5)", lambda r: r.chip == "stm32f030"),
            ("ARMv6-M Cortex-M0+, SAMD21G18 (issue 12)", lambda r: r.chip == "samd21g18"),
            ("MSP430X with the AES256 module, MSP430FR5969 (issue 12)", lambda r: r.chip == "msp430fr5969"),
            ("IR interpreter (issue 3's list)", lambda r: r.engine == "interp")]


def write_doc(path: Path, rows: list[Row], results: dict[str, Result], left_out: list[Row],
              seconds: float) -> None:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    ok = sum(results[r.id].ok for r in rows)
    out = ["# Verification matrix", "",
           f"*Generated by `tools/verify_all.py` on {now}" + (f" (this run: {seconds / 60:.1f} min)" if seconds else "")
           + " — "
           "do not edit; rerun it after compiler changes.*", "",
           "Every row runs an official vector set through the judge of `aedsl kat` (`aedsl/vectors/runner.py`): "
           "AEAD vectors are encrypted and compared (ciphertext ‖ tag), decrypted and compared, and tampered "
           "ones must be rejected; block-cipher vectors are encrypted *and* decrypted block by block. "
           "`sim` = the generated assembly, linked (with the C runtime for AEAD schemes) and run in the chip's "
           "cycle-accurate simulator; `interp` = the IR interpreter (the reference semantics, issue 3). "
           "*skipped* = vectors of the file outside the variant's domain (other key sizes, nonce or tag "
           "lengths the spec does not declare), as `aedsl kat` reports them.", "",
           "Samples and gaps, stated: CAVP GCM files run with `--per-section 1` (the first case of each of the "
           "file's sections: 525 of 7875 cases per file, every key/IV/AD/PT/tag length combination). "
           "CTR: RFC 3686's AES-128/192/256 vectors (the `cryptography_vectors` copy, "
           "`ciphers/AES/CTR/aes-*-ctr.txt`, sources `rfc3686:aes128/192/256`). `aes=accel` rows are AES-128 only on cc430f6137 (its AES128 "
           "module); msp430fr5969's AES256 module runs them at 128, 192 and 256 bits. OCB3 and the EAX paper "
           "have AES-128 vectors only; OCB3 with 192/256-bit keys therefore has no official vector source here "
           "(left out, listed below; RFC 7253 Appendix A's iterated check covers them in "
           "tests/e2e/aes_modes/test_accel_fr5969.py). "
           "Lightweight AEADs (issue 10): every scheme on its full NIST LWC KAT file (1089 vectors; NORX32-4-1 "
           "the 256 vectors derived from the designers' `kat.h`), except Elephant-Dumbo on the two MSP430 chips "
           f"and in the interpreter, which run `--every {LWC_EVERY}` (vectors 0, 33, .. and the last: 34 of 1089, "
           "every AD length 0..32 at varying message lengths; the full file costs 1.5-2.5 min per row there). "
           "SKINNY-128-384+ (Romulus-N's primitive) also runs alone on its two single-block vectors (40 rounds, "
           "and the SKINNY paper's 56-round SKINNY-128-384 with `rounds=56`); the other LWC primitives "
           "(Ascon-p, Spongent-π[160], PHOTON256, NORX's F) have no vectors of their own in the shared set and "
           "are covered through their schemes.", "",
           f"**{ok} of {len(rows)} rows pass** ({sum(not results[r.id].date for r in rows)} not run yet"
           + (f"; {nfit} do not fit their chip, stated" if (nfit := sum(bool(results[r.id].unfit) for r in rows)) else "")
           + "). Status: pass = every in-domain vector passed; FAIL = some "
           "failed; ERROR = the variant did not build (reason shown); NONE RAN = every vector skipped; "
           "does not fit = a variant known not to fit the chip yet (the linker's reason shown: code + tables "
           "exceed the flash, i.e. ROM), not counted as a failure; NOT CONSTANT TIME = `aedsl ct` refused the build.", "",
           "Column `ct`: `aedsl ct SPEC --chip CHIP -k ...` on the row's build (docs/CONSTANT_TIME.md): *yes* = no "
           "secret-dependent branch, loop or variable-time instruction in the IR or the machine code, and one cycle "
           "count per entry point on 3 random secrets at fixed public inputs; then the public inputs other than "
           "lengths the cycles follow, and at how many places (spec line and table) the machine code indexes "
           "memory with a secret (table lookups: allowed on these cacheless chips, refused by `--strict`). `-` = the interpreter has no "
           "generated code.", ""]
    out += ["| part | rows passing | vectors passed | vectors failed | rows with a build error |", "|---|---|---|---|---|"]
    for title, pred in SECTIONS:
        sel = [results[r.id] for r in rows if pred(r)]
        out.append(f"| {title} | {sum(x.ok for x in sel)} / {len(sel)} | {sum(x.passed for x in sel)} | "
                   f"{sum(x.failed for x in sel)} | {sum(bool(x.error) for x in sel)} |")
    out.append("")
    out += ["`--quick` runs this documented sample (one row per engine/target kind, < 60 s): "
            + ", ".join(f"`{p}`" for p in QUICK_SAMPLE), ""]
    for title, pred in SECTIONS:
        sel = [r for r in rows if pred(r)]
        if not sel:
            continue
        out += [f"## {title}", "",
                "| spec | knobs | chip | vectors | passed | failed | skipped | status | ct | run (UTC) | command |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in sel:
            res = results[r.id]
            status = res.status() + (f" ({res.rerun})" if res.rerun else "")
            if res.error or res.unfit:
                status += f": {res.error or res.unfit} (ROM)" if res.unfit else f": {res.error}"
            src = r.source + (f" (per-section {r.per_section})" if r.per_section else "")
            src += f" (every {r.every}th)" if r.every else ""
            ct = res.ct or ("-" if r.engine == "interp" else "not run")
            out.append(f"| {r.stem} | {_knobs_text(r.knobs)} | {r.chip} | {src} | {res.passed} | {res.failed} | "
                       f"{res.skipped} | {status} | {ct} | {res.date} | `{r.command()}` |")
        out.append("")
    bad = [results[r.id] for r in rows if results[r.id].bad and results[r.id].date]
    if bad:
        out += ["## Failures (first cases of each failing row)", ""]
        for res in bad:
            out.append(f"- `{res.row_id}`: {res.status()} {res.error}".rstrip())
            out += [f"  - {f}" for f in res.failures]
        out.append("")
    if left_out:
        out += ["## Left out: no vector of the variant's key/block size in the source", ""]
        out += [", ".join(f"`{r.id}`" for r in left_out), ""]
    path.write_text("\n".join(out) + "\n")


def state_path() -> Path:
    from aedsl.resources import cache_root
    return cache_root() / "verify_results.json"


def load_state() -> dict[str, Result]:
    try:
        return {d["row_id"]: Result(**{k: v for k, v in d.items() if k in Result.__dataclass_fields__})
                for d in json.loads(state_path().read_text())}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def write_state_doc(path: Path, all_rows: list[Row], state: dict, counts: dict, seconds: float) -> None:
    ids = {r.id: r for r in all_rows}
    n = {i: counts[i] if i in counts else in_domain(r) for i, r in ids.items()}
    doc_rows = [r for r in all_rows if n[r.id] > 0]
    left_out = [r for r in all_rows if n[r.id] == 0]
    write_doc(path, doc_rows, {r.id: state.get(r.id, Result(r.id)) for r in doc_rows}, left_out, seconds)
    print(f"wrote {path}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", metavar="REGEX", help="run the rows whose id matches (re.search)")
    ap.add_argument("--quick", action="store_true", help="run the documented QUICK_SAMPLE rows only")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes (2)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "VERIFICATION.md"),
                    help="document to write ('none': neither the doc nor the kept results are written)")
    ap.add_argument("--json", metavar="FILE", help="also write this run's per-row results as JSON")
    ap.add_argument("--no-rerun", action="store_true", help="do not re-run failing rows")
    ap.add_argument("--list", action="store_true", help="print the row ids and exit")
    ap.add_argument("--no-ct", action="store_true", help="do not run `aedsl ct` on the sim builds")
    ap.add_argument("--doc-only", action="store_true", help="rewrite the doc from the kept results; run nothing")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    all_rows = matrix()
    if a.doc_only:
        write_state_doc(Path(a.out), all_rows, load_state(), {}, 0.0)
        return 0
    rows = all_rows
    if a.quick:
        rows = [r for r in rows if any(re.search(p, r.id) for p in QUICK_SAMPLE)]
    if a.only:
        rows = [r for r in rows if re.search(a.only, r.id)]
    counts = {r.id: in_domain(r) for r in rows}
    rows = [r for r in rows if counts[r.id] > 0]
    if a.list:
        print("\n".join(f"{r.id}   ({counts[r.id]} vectors)" for r in rows))
        return 0
    if not rows:
        print("no rows selected", file=sys.stderr)
        return 2
    print(f"{len(rows)} rows in {len({r.build for r in rows})} builds, {a.jobs} workers", flush=True)
    results = run_rows(rows, a.jobs, with_ct=not a.no_ct)
    failing = [r for r in rows if results[r.id].bad]
    if failing and not a.no_rerun:
        print(f"re-running {len(failing)} failing rows once, in fresh processes", flush=True)
        again = run_rows(failing, a.jobs, label=" re-run", with_ct=not a.no_ct)
        for r in failing:
            new = again[r.id]
            new.rerun = "passed on re-run" if new.ok else "failed again"
            results[r.id] = new
    seconds = time.monotonic() - t0
    if a.out != "none":
        state = load_state()
        state.update(results)
        state_path().parent.mkdir(parents=True, exist_ok=True)
        state_path().write_text(json.dumps([asdict(v) for v in state.values()], indent=0))
        write_state_doc(Path(a.out), all_rows, state, counts, seconds)
    if a.json:
        Path(a.json).write_text(json.dumps([{**asdict(results[r.id]), "command": r.command(), "ok": results[r.id].ok}
                                            for r in rows], indent=1))
    nbad = sum(results[r.id].bad for r in rows)
    nfit = sum(bool(results[r.id].unfit) for r in rows)
    print(f"{len(rows) - nbad - nfit} rows passed, {nbad} rows failed"
          + (f", {nfit} do not fit their chip (stated)" if nfit else "") + f" ({seconds:.0f} s)")
    shown = set()
    for r in rows:                      # one line per failing build when the build itself failed
        res = results[r.id]
        if not res.bad or (res.error and r.build in shown):
            continue
        shown.add(r.build)
        more = sum(1 for x in rows if x.build == r.build and results[x.id].bad) - 1 if res.error else 0
        print(f"  FAILED {r.id}{f' (+{more} rows of this build)' if more else ''}: {res.status()} "
              f"{res.error or (res.ct if not res.ct_ok else f'{res.failed} failed')}\n    reproduce: {r.command()}")
    return 1 if nbad else 0


if __name__ == "__main__":
    sys.exit(main())
