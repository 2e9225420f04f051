"""The dynamic half of `aedsl ct`: the generated code run in the chip's simulator.

1. At fixed public inputs, every entry point is timed on `secrets` random secrets (keys,
   messages, blocks); all cycle counts of one entry point must be equal.
2. Each public input is then varied on its own (nonce contents, nonce length, AD contents, AD
   length, message length, tag length, and for decryption a valid or a rejected tag: the verdict)
   and the report names the public inputs each entry point's cycles follow.

An AEAD scheme is run as the engines run it (aedsl/engines/sim_aead.py: the key-setup stage and
the per-message function separately when the scheme has them), a block cipher through its key
schedule and block functions. Every decryption is checked to give the plaintext back. The random
inputs come from a generator seeded with the variant's name, so a report is reproducible.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from aedsl.engines.sim import SimBlockCipher, build_elf
from aedsl.engines.sim_aead import SimAead

BASE_MSG, BASE_AD = 24, 5                # a whole block and a partial one; a partial AD block


class WrongResult(Exception):
    """A decryption in the timing runs did not give the plaintext back."""


@dataclass
class OpTiming:
    op: str
    cycles: list[int]                           # one per secret at the base public inputs
    follows: list[str] = field(default_factory=list)   # public inputs its cycles change with

    @property
    def constant(self) -> bool:
        return len(set(self.cycles)) == 1

    def as_dict(self) -> dict:
        return {"op": self.op, "cycles": self.cycles, "constant": self.constant, "follows": self.follows}


@dataclass
class DynamicResult:
    ops: list[OpTiming]
    base: dict                                  # the fixed public inputs (lengths)
    varied: list[str]                           # the public inputs that were varied

    @property
    def ok(self) -> bool:
        return all(t.constant for t in self.ops)

    def as_dict(self) -> dict:
        return {"ok": self.ok, "base": self.base, "varied": self.varied, "ops": [t.as_dict() for t in self.ops]}


class NothingToRun(ValueError):
    """The unit has no entry point the simulator runs can call (a primitive's spec)."""


def run(unit, chip, secrets: int = 3, seed: str = "") -> DynamicResult:
    """Time `unit` (a Compiled block cipher or AEAD scheme) on `chip`."""
    if unit.kind not in ("block", "aead"):
        raise NothingToRun(f"{unit.stem}: neither a block cipher nor an AEAD scheme, so there is nothing "
                           "to run in the simulator (use --static-only)")
    rng = random.Random(seed or unit.stem)
    elf = build_elf(unit, chip)
    if unit.kind == "block":
        return _block(SimBlockCipher(unit, chip, elf), rng, secrets)
    return _aead(SimAead(unit, chip, elf), rng, secrets)


def _bytes(rng: random.Random, n: int) -> bytes:
    return bytes(rng.getrandbits(8) for _ in range(n))


# --- block ciphers --------------------------------------------------------------------------------

def _block(eng: SimBlockCipher, rng: random.Random, secrets: int) -> DynamicResult:
    times: dict[str, list[int]] = {"key_schedule": [], "encrypt_block": [], "decrypt_block": []}
    for _ in range(secrets):
        key, block = _bytes(rng, eng.key_bits // 8), _bytes(rng, eng.block_bytes)
        ct = eng.encrypt_block(key, block)
        times["key_schedule"].append(eng.last_key_schedule.cycles)
        times["encrypt_block"].append(eng.last.cycles)
        if eng.decrypt_block(key, ct) != block:
            raise WrongResult(f"{eng.name}: decrypt_block(encrypt_block(x)) != x")
        times["decrypt_block"].append(eng.last.cycles)
    return DynamicResult([OpTiming(op, c) for op, c in times.items()],
                         {"block_bytes": eng.block_bytes, "key_bytes": eng.key_bits // 8}, [])


# --- AEAD schemes ---------------------------------------------------------------------------------

def _choose(values, preferred: int) -> int:
    return preferred if preferred in values else values[len(values) // 2]


def _domain(eng: SimAead, name: str, fixed: int | None, default: int):
    """The allowed lengths, ascending: a `range` stays one (GCM's nonce lengths reach 2^61)."""
    d = (eng.domains or {}).get(name)
    if d:
        return d if isinstance(d, range) and d.step > 0 else sorted(d)
    return [fixed] if fixed is not None else [default]


def _aead(eng: SimAead, rng: random.Random, secrets: int) -> DynamicResult:
    key_p = (eng.setup or eng.enc).params[0]
    fixed = {p.name: p.count for p in eng.enc.params[-5:] if p.kind == "mem"}
    key_lens = _domain(eng, "key_len", key_p.count if key_p.kind == "mem" else None, 16)
    nonce_lens = _domain(eng, "nonce_len", fixed.get("nonce"), 12)
    tag_lens = _domain(eng, "tag_len", fixed.get("tag"), 16)
    key_len = key_lens[-1]
    base = {"nonce_len": _choose(nonce_lens, 12), "tag_len": _choose(tag_lens, 16),
            "ad_len": BASE_AD, "msg_len": BASE_MSG}
    nonce, ad = _bytes(rng, base["nonce_len"]), _bytes(rng, BASE_AD)
    ops = ["key_setup", "encrypt_with", "decrypt_with"] if eng.staged else ["encrypt", "decrypt"]

    def timed(key, nonce, ad, msg, tag_len, reject=False) -> dict[str, int]:
        out = eng.encrypt(key, nonce, ad, msg, tag_len)
        t = {}
        if eng.staged:
            t["key_setup"], t["encrypt_with"] = eng.last_key_setup.cycles, eng.last_with.cycles
        else:
            t["encrypt"] = eng.last.cycles
        ct, tag = out[:len(msg)], out[len(msg):]
        if reject:
            tag = bytes([tag[0] ^ 1]) + tag[1:]
        pt = eng.decrypt(key, nonce, ad, ct, tag)
        if pt != (None if reject else msg):
            raise WrongResult(f"{eng.name}: decryption of a {'tampered' if reject else 'valid'} message "
                              f"gave {'a plaintext' if reject else 'something else'}")
        t["decrypt_with" if eng.staged else "decrypt"] = (eng.last_with if eng.staged else eng.last).cycles
        return t

    draws = [(_bytes(rng, key_len), _bytes(rng, BASE_MSG)) for _ in range(secrets)]
    runs = [timed(k, nonce, ad, m, base["tag_len"]) for k, m in draws]
    result = [OpTiming(op, [r[op] for r in runs]) for op in ops]
    key0, msg0 = draws[0]
    variations: list[tuple[str, dict]] = [
        # random contents and the two extremes (a nonce's low bits may pick a shift amount: OCB3)
        ("nonce", {"nonce": _bytes(rng, base["nonce_len"])}),
        ("nonce", {"nonce": bytes(base["nonce_len"])}),
        ("nonce", {"nonce": b"\xff" * base["nonce_len"]}),
        ("ad", {"ad": _bytes(rng, BASE_AD)}),
        ("ad", {"ad": bytes(BASE_AD)}),
        ("ad_len", {"ad": b""}),
        ("ad_len", {"ad": _bytes(rng, BASE_AD + 19)}),
        ("msg_len", {"msg": _bytes(rng, 7)}),
        ("msg_len", {"msg": _bytes(rng, BASE_MSG + 29)}),
    ]
    if base["tag_len"]:
        variations.append(("verdict", {"reject": True}))       # CTR has no tag to tamper with
    # the domain's ends (a long nonce no further than a few blocks: GCM hashes any length)
    variations += [("nonce_len", {"nonce": _bytes(rng, n)}) for n in (nonce_lens[0], min(nonce_lens[-1], 40))
                   if n != base["nonce_len"]]
    variations += [("tag_len", {"tag_len": n}) for n in (tag_lens[0], tag_lens[-1]) if n != base["tag_len"]]
    for name, change in variations:
        args = {"key": key0, "nonce": nonce, "ad": ad, "msg": msg0, "tag_len": base["tag_len"], **change}
        t = timed(**args)
        for timing in result:
            if t[timing.op] != timing.cycles[0] and name not in timing.follows:
                timing.follows.append(name)
    return DynamicResult(result, base, sorted({n for n, _ in variations}))
