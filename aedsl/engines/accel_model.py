"""What the accelerator operations compute, for the interpreter.

The CC430 AES module computes AES-128, so its model *is* the software spec
specs/primitives/aes.ae run by the interpreter: one definition of AES in the project.
"""
from __future__ import annotations

from functools import lru_cache

from aedsl.frontend.elaborate import load_module
from aedsl.ir import interp
from aedsl.resources import spec_path

AES_SPEC = spec_path("primitives/aes.ae")


@lru_cache(maxsize=1)
def _aes128():
    # the plain inverse cipher: the key state is just the 44 encryption round keys
    return interp.compile_module(load_module(AES_SPEC, {"key_bits": "128", "inv_cipher": "plain"}))


@lru_cache(maxsize=64)
def _round_keys(key: int) -> tuple[int, ...]:
    w = [0] * 44
    _aes128().call("key_schedule", [key, w])
    return tuple(w)


def run(op: str, args: tuple[int, ...]) -> int:
    key, block = args
    w = list(_round_keys(key))
    if op == "aes128.encrypt":
        return _aes128().call("encrypt_block", [w, block])[0]
    if op == "aes128.decrypt":
        return _aes128().call("decrypt_block", [w, block])[0]
    raise ValueError(f"unknown accelerator operation {op!r}")


def install() -> None:
    """Give the IR interpreter these semantics for its accelerator operations."""
    # looked up per call, so a test may wrap `run`
    interp.install_accel_model(lambda op, args: run(op, args))


install()
