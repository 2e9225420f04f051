"""Run vectors through an engine and count: the one judge for every engine (reference libraries,
the IR interpreter, generated code in a simulator).

AEAD, per vector whose (key, nonce, tag) lengths the engine `supports` (others are skipped, and the
report says why and how often):
- valid: encrypt(key, nonce, ad, msg, len(tag)) must equal ct || tag, and decrypt(..., ct, tag) must
  return msg; a vector passes only if both hold.
- invalid (tampered tag, CAVP FAIL, Wycheproof invalid): decrypt must return None. Encryption is not
  compared (the stored ct/tag are the tampered ones).
Block ciphers: every block of pt must encrypt to ct and every block of ct decrypt to pt.
An engine that raises is a failure of that vector (with the exception text), never a crash."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .records import AeadVector, BlockVector, VectorKindError

KEEP_FAILURES = 10
MAX_REASONS = 8  # skip reasons printed; the counter keeps them all


@dataclass
class Failure:
    vector_id: str
    where: str
    what: str

    def __str__(self) -> str:
        return f"FAIL {self.vector_id} ({self.where}): {self.what}"


@dataclass
class Report:
    engine: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    skip_reasons: Counter = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)  # the first KEEP_FAILURES

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.skipped

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def _fail(self, vec, what: str, keep: int) -> None:
        self.failed += 1
        if len(self.failures) < keep:
            self.failures.append(Failure(vec.id, str(vec.origin or "?"), what))

    def _skip(self, reason: str) -> None:
        self.skipped += 1
        self.skip_reasons[reason] += 1

    def summary(self) -> str:
        line = f"{self.passed} passed, {self.failed} failed"
        return line + (f", {self.skipped} skipped" if self.skipped else "")

    def __str__(self) -> str:
        lines = [str(f) for f in self.failures]
        if self.failed > len(self.failures):
            lines.append(f"... and {self.failed - len(self.failures)} more failures")
        reasons = self.skip_reasons.most_common()
        lines += [f"skipped {n}: {reason}" for reason, n in reasons[:MAX_REASONS]]
        if len(reasons) > MAX_REASONS:
            rest = sum(n for _, n in reasons[MAX_REASONS:])
            lines.append(f"skipped {rest}: {len(reasons) - MAX_REASONS} other reasons")
        lines.append(self.summary())
        return "\n".join(lines)


def _hex(b: bytes | None, limit: int = 48) -> str:
    if b is None:
        return "None"
    if not b:
        return "(empty)"
    h = b.hex()
    return h if len(h) <= limit else h[:limit] + f"..({len(b)} bytes)"


def run_aead(engine, vectors: Iterable[AeadVector], keep: int = KEEP_FAILURES) -> Report:
    rep = Report(getattr(engine, "name", type(engine).__name__))
    for v in vectors:
        if not isinstance(v, AeadVector):
            raise VectorKindError(f"{rep.engine} is an AEAD engine; got {type(v).__name__} {v.id}")
        k, n, t = v.params
        if not engine.supports(k, n, t):
            rep._skip(f"key/nonce/tag = {k}/{n}/{t} bytes not supported by {rep.engine}")
            continue
        try:
            problems = []
            if v.valid:
                got = engine.encrypt(v.key, v.nonce, v.ad, v.msg, t)
                if got != v.ct + v.tag:
                    problems.append(f"encrypt gave {_hex(got)}, expected {_hex(v.ct + v.tag)}")
                dec = engine.decrypt(v.key, v.nonce, v.ad, v.ct, v.tag)
                if dec != v.msg:
                    problems.append(f"decrypt gave {_hex(dec)}, expected {_hex(v.msg)}")
            else:
                dec = engine.decrypt(v.key, v.nonce, v.ad, v.ct, v.tag)
                if dec is not None:
                    problems.append(f"invalid tag accepted (released {_hex(dec)})")
        except Exception as e:  # an engine bug is a failed vector, reported, not a crash
            problems = [f"raised {type(e).__name__}: {e}"]
        if problems:
            rep._fail(v, "; ".join(problems), keep)
        else:
            rep.passed += 1
    return rep


def run_block(engine, vectors: Iterable[BlockVector], keep: int = KEEP_FAILURES) -> Report:
    """`engine` may also be a sequence of block cipher engines of different block sizes (a cipher
    family such as SPECK); each vector then goes to the engine with its block size."""
    family = list(engine) if isinstance(engine, (list, tuple)) else [engine]
    by_size = {e.block_bytes: e for e in family}
    rep = Report("/".join(getattr(e, "name", type(e).__name__) for e in family))
    for v in vectors:
        if not isinstance(v, BlockVector):
            raise VectorKindError(f"{rep.engine} is a block cipher engine; got {type(v).__name__} {v.id}")
        eng = by_size.get(v.block_bytes) if v.block_bytes else family[0]
        bs = eng.block_bytes if eng else 0
        if eng is None or len(v.pt) % bs or len(v.pt) != len(v.ct) or not v.pt:
            sizes = "/".join(str(b) for b in sorted(by_size))
            rep._skip(f"{v.block_bytes or len(v.pt)}-byte block, {rep.engine} has {sizes}")
            continue
        if not eng.supports(len(v.key)):
            rep._skip(f"{len(v.key)}-byte key not supported by {eng.name}")
            continue
        try:
            problems = []
            for i in range(0, len(v.pt), bs):
                p, c = v.pt[i:i + bs], v.ct[i:i + bs]
                if (got := eng.encrypt_block(v.key, p)) != c:
                    problems.append(f"block {i // bs}: encrypt gave {_hex(got)}, expected {_hex(c)}")
                if (got := eng.decrypt_block(v.key, c)) != p:
                    problems.append(f"block {i // bs}: decrypt gave {_hex(got)}, expected {_hex(p)}")
        except Exception as e:
            problems = [f"raised {type(e).__name__}: {e}"]
        if problems:
            rep._fail(v, "; ".join(problems[:2]), keep)
        else:
            rep.passed += 1
    return rep


def run(engine, vectors: Iterable[AeadVector | BlockVector], keep: int = KEEP_FAILURES) -> Report:
    """Dispatch on the engine kind (a block cipher engine has `block_bytes`; a list is a family)."""
    if isinstance(engine, (list, tuple)) or hasattr(engine, "block_bytes"):
        return run_block(engine, vectors, keep)
    return run_aead(engine, vectors, keep)
