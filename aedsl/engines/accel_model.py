"""What the accelerator operations compute, for the interpreter.

The AES modules (the CC430's AES128, the FR5969's AES256) compute AES, so their model *is* the
software spec specs/primitives/aes.ae run by the interpreter, at the key length the operation
names (`aes128.encrypt`, `aes256.decrypt`, ...): one definition of AES in the project.
"""
from __future__ import annotations

from functools import lru_cache

from aedsl.frontend.elaborate import load_module
from aedsl.ir import interp
from aedsl.resources import spec_path

AES_SPEC = spec_path("primitives/aes.ae")
KEY_BITS = (128, 192, 256)


@lru_cache(maxsize=3)
def _aes(key_bits: int):
    # the plain inverse cipher: the key state is just the encryption round keys
    return interp.compile_module(load_module(AES_SPEC, {"key_bits": str(key_bits), "inv_cipher": "plain"}))


@lru_cache(maxsize=64)
def _round_keys(key_bits: int, key: int) -> tuple[int, ...]:
    w = [0] * (4 * (key_bits // 32 + 7))
    _aes(key_bits).call("key_schedule", [key, w])
    return tuple(w)


def run(op: str, args: tuple[int, ...]) -> int:
    key, block = args
    family, _, kind = op.partition(".")
    bits = int(family[3:]) if family.startswith("aes") and family[3:].isdigit() else None
    if bits not in KEY_BITS or kind not in ("encrypt", "decrypt"):
        raise ValueError(f"unknown accelerator operation {op!r}")
    w = list(_round_keys(bits, key))
    return _aes(bits).call(f"{kind}_block", [w, block])[0]


def install() -> None:
    """Give the IR interpreter these semantics for its accelerator operations."""
    # looked up per call, so a test may wrap `run`
    interp.install_accel_model(lambda op, args: run(op, args))


install()
