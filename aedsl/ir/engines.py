"""Engines that run a spec in the interpreter (the reference semantics), for `aedsl kat`.

    engine = interp_engine("specs/primitives/aes.ae", {"key_bits": "256"})
    engine.encrypt_block(key, block)

The spec's entry points decide the kind (docs/LANGUAGE.md, "Entry-point conventions"):
`key_schedule`/`encrypt_block`/`decrypt_block` -> BlockCipherEngine;
`encrypt`/`decrypt` -> AeadEngine.
"""
from __future__ import annotations

from pathlib import Path

from ..engine import AeadEngine, BlockCipherEngine
from ..frontend.diagnostics import SpecError
from ..frontend.elaborate import load_module
from .interp import compile_module
from .nodes import Memory, Module


def _label(module: Module) -> str:
    knobs = ",".join(f"{k}={v}" for k, v in module.knobs.items())
    return f"interp:{module.name}" + (f"[{knobs}]" if knobs else "")


class InterpBlockCipher:
    def __init__(self, module: Module):
        self.module = module
        self.program = compile_module(module)
        self.name = _label(module)
        self.block_bits = module.consts["block_bits"]
        self.key_bits = module.consts["key_bits"]
        self.block_bytes = self.block_bits // 8
        ks = module.function("key_schedule").params[1]
        self._ks_length = ks.length
        self._cached: tuple[bytes, list] | None = None

    def supports(self, key_len: int) -> bool:
        return key_len * 8 == self.key_bits

    def _schedule(self, key: bytes) -> list:
        if self._cached is None or self._cached[0] != key:
            if len(key) * 8 != self.key_bits:
                raise ValueError(f"{self.name} takes a {self.key_bits // 8}-byte key")
            ks = [0] * self._ks_length
            self.program.call("key_schedule", [int.from_bytes(key, "big"), ks])
            self._cached = (bytes(key), ks)
        return self._cached[1]

    def _run(self, fn: str, key: bytes, block: bytes) -> bytes:
        if len(block) != self.block_bytes:
            raise ValueError(f"{self.name} takes {self.block_bytes}-byte blocks")
        ks = list(self._schedule(key))
        out = self.program.call(fn, [ks, int.from_bytes(block, "big")])[0]
        return out.to_bytes(self.block_bytes, "big")

    def encrypt_block(self, key: bytes, block: bytes) -> bytes:
        return self._run("encrypt_block", key, block)

    def decrypt_block(self, key: bytes, block: bytes) -> bytes:
        return self._run("decrypt_block", key, block)


class InterpAead:
    def __init__(self, module: Module):
        self.module = module
        self.program = compile_module(module)
        self.name = _label(module)
        self._enc = module.function("encrypt")
        self._dec = module.function("decrypt")

    def supports(self, key_len: int, nonce_len: int, tag_len: int) -> bool:
        d = self.module.domains
        for name, n in (("key_len", key_len), ("nonce_len", nonce_len), ("tag_len", tag_len)):
            if name in d and n not in d[name]:
                return False
        fixed = {p.name: p.length for p in self._enc.params if isinstance(p, Memory)}
        for name, n in (("key", key_len), ("nonce", nonce_len), ("tag", tag_len)):
            if fixed.get(name) is not None and fixed[name] != n:
                return False
        return True

    def encrypt(self, key: bytes, nonce: bytes, ad: bytes, msg: bytes, tag_len: int) -> bytes:
        ct = [0] * len(msg)
        tag = [0] * tag_len
        self.program.call("encrypt", [list(key), list(nonce), list(ad), list(msg), ct, tag])
        return bytes(ct) + bytes(tag)

    def decrypt(self, key: bytes, nonce: bytes, ad: bytes, ct: bytes, tag: bytes) -> bytes | None:
        msg = [0] * len(ct)
        ok = self.program.call("decrypt", [list(key), list(nonce), list(ad), list(ct), list(tag), msg])[0]
        return bytes(msg) if ok == 1 else None


def interp_engine(spec_path: str | Path, knobs: dict[str, str] | None = None) -> AeadEngine | BlockCipherEngine:
    """Elaborate the spec with `knobs` and wrap its entry points; raises SpecError if it has none."""
    module = load_module(spec_path, {k: str(v) for k, v in (knobs or {}).items()})
    if all(module.has_function(f) for f in ("key_schedule", "encrypt_block", "decrypt_block")):
        return InterpBlockCipher(module)
    if module.has_function("encrypt") and module.has_function("decrypt"):
        return InterpAead(module)
    raise SpecError("the spec defines neither encrypt/decrypt (a scheme) nor "
                    "key_schedule/encrypt_block/decrypt_block (a block cipher)", str(spec_path))
