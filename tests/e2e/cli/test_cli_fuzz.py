"""Property: whatever bytes a user gives any verb (a spec, an ELF, a vector file, random or a
mutation of a real one), `aedsl` answers with exit code 0, 1 or 2 and never a traceback.

A few hundred examples run in the fast tier; the `slow` tests run many more and also put
mutated specs through `bench`."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aedsl.vectors import sources

from .conftest import SPECS, run

CHIP = "cc430f6137"
_BASE = settings(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])


def fuzz(examples: int):
    return settings(_BASE, max_examples=examples)

SPEC_SOURCES = [SPECS / "primitives" / "speck.ae", SPECS / "primitives" / "accel_aes128.ae",
                SPECS / "primitives" / "ascon_p.ae", SPECS / "primitives" / "chacha20.ae"]
SPEC_TOKENS = [b"{", b"}", b"(", b")", b"fn ", b"knob ", b"const ", b"use ", b"forall ", b"u16", b"u0",
               b"u99999", b"0xffffffffffffffff", b"-", b"..", b"[", b"]", b"=", b"\n", b"\xff", b"\x00",
               b"if ", b"return ", b"<<< ", b"/* ", b"//"]


def mutate(draw, data: bytes, tokens=(), focus: int | None = None) -> bytes:
    """`data` after 1..4 random edits: overwrite, delete, insert (random bytes or a token),
    duplicate or truncate. `focus`: half the edits land in the first `focus` bytes (headers)."""
    b = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        if not b:
            b += draw(st.binary(min_size=1, max_size=8))
            continue
        hi = len(b) - 1
        if focus and draw(st.booleans()):
            hi = min(hi, focus - 1)
        i = draw(st.integers(0, hi))
        kind = draw(st.sampled_from(["set", "set", "delete", "insert", "dup", "truncate"]))
        if kind == "set":
            n = draw(st.integers(1, 4))
            b[i:i + n] = draw(st.binary(min_size=n, max_size=n))
        elif kind == "delete":
            del b[i:i + draw(st.integers(1, 32))]
        elif kind == "insert":
            b[i:i] = draw(st.sampled_from(tokens)) if tokens and draw(st.booleans()) else \
                draw(st.binary(min_size=1, max_size=8))
        elif kind == "dup":
            b[i:i] = b[i:i + draw(st.integers(1, 64))]
        else:
            del b[i:]
    return bytes(b)


def check_answer(argv) -> int:
    rc, out, err = run(*argv)
    assert rc in (0, 1, 2), (argv, rc, err)
    assert "Traceback" not in err
    if rc == 2:
        assert err.strip(), argv           # a refusal says why
    if rc == 1:
        assert (out + err).strip(), argv   # failed vectors are reported on stdout
    return rc


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def spec_argvs(path, out, verbs):
    table = {
        "check": ["check", path],
        "ir": ["ir", path, "--after", "legalize", "--word-bits", "16"],
        "compile": ["compile", path, "--chip", CHIP, "-o", out],
        "kat": ["kat", path, "--engine", "interp", "--vectors", "speck-paper"],
        "bench": ["bench", path, "--chip", CHIP, "--sizes", "16", "--no-seed001"],
    }
    return [table[v] for v in verbs]


def _spec_case(data, work, verbs):
    source = data.draw(st.sampled_from(SPEC_SOURCES))
    if data.draw(st.integers(0, 4)) == 0:
        text = data.draw(st.binary(max_size=200))
    else:
        text = mutate(data.draw, source.read_bytes(), SPEC_TOKENS)
    path = work / "primitives" / source.name     # beside nothing: `use` finds the spec library
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(text)
    for argv in spec_argvs(path, work / "out", verbs):
        check_answer(argv)


@fuzz(150)
@given(data=st.data())
def test_specs_check_and_ir(data, work):
    _spec_case(data, work, ["check", "ir"])


@fuzz(40)
@given(data=st.data())
def test_specs_compile_and_kat(data, work):
    _spec_case(data, work, ["compile", "kat"])


@pytest.mark.slow
@fuzz(300)
@given(data=st.data())
def test_specs_every_verb_slow(data, work):
    _spec_case(data, work, ["check", "ir", "compile", "kat", "bench"])


# --- ELFs --------------------------------------------------------------------------------

def _elf_case(data, work, elf):
    if data.draw(st.integers(0, 5)) == 0:
        blob = data.draw(st.binary(max_size=300))
    else:
        blob = mutate(data.draw, elf.read_bytes(), focus=0x80)
    path = work / "fuzz.elf"
    path.write_bytes(blob)
    args = data.draw(st.lists(st.sampled_from(["1", "0xffff", "hex:00112233", "zeros:8"]), max_size=6))
    check_answer(["sim", path, "--chip", CHIP, "--entry", "add3", "--max-steps", "5000",
                  *[x for a in args for x in ("--arg", a)]])


@fuzz(150)
@given(data=st.data())
def test_elfs_sim(data, work, plain_elf):
    _elf_case(data, work, plain_elf)


@pytest.mark.slow
@fuzz(1000)
@given(data=st.data())
def test_elfs_sim_slow(data, work, plain_elf):
    _elf_case(data, work, plain_elf)


# --- vector files ------------------------------------------------------------------------

def _small_vector_files(work):
    """Real vector files cut to a few cases, with the reference engine that judges them."""
    out = []
    gcm = json.loads(sources.get("wycheproof:aes_gcm").path.read_text())
    gcm["testGroups"] = [dict(g, tests=g["tests"][:2]) for g in gcm["testGroups"][:2]]
    p = work / "gcm.json"
    p.write_text(json.dumps(gcm, indent=1))
    out.append((p, "ref:aes-gcm"))
    text = sources.get("cavp:ccm:DVPT128").path.read_text().splitlines()
    p = work / "DVPT128.rsp"
    p.write_text("\n".join(text[:60]) + "\n")
    out.append((p, "ref:aes-ccm"))
    p = work / "rfc7253.txt"
    p.write_bytes(sources.get("rfc7253").path.read_bytes()[:2000])
    out.append((p, "ref:aes-ocb3"))
    return out


def _vector_case(data, work, files):
    path, engine = data.draw(st.sampled_from(files))
    if data.draw(st.integers(0, 5)) == 0:
        blob = data.draw(st.binary(max_size=300))
    else:
        blob = mutate(data.draw, path.read_bytes(), [b'"', b"{", b"}", b"[", b"]", b":", b",", b" = ", b"\n",
                                                      b"null", b"12", b"zz"])
    fuzzed = work / ("fuzzed" + path.suffix)
    fuzzed.write_bytes(blob)
    check_answer(["kat", "--engine", engine, "--vectors", fuzzed])


@pytest.fixture(scope="module")
def vector_files(work):
    return _small_vector_files(work)


@fuzz(150)
@given(data=st.data())
def test_vector_files_kat(data, work, vector_files):
    _vector_case(data, work, vector_files)


@pytest.mark.slow
@fuzz(1000)
@given(data=st.data())
def test_vector_files_kat_slow(data, work, vector_files):
    _vector_case(data, work, vector_files)
