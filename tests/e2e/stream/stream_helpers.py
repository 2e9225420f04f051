"""Shared helpers for the stream/EAX spec tests: spec paths, a direct call into a primitive's
functions through the interpreter, and the AEAD differential loop used by every scheme test."""
from __future__ import annotations

import random
from functools import lru_cache

from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import compile_module

from tests.paths import SPECS


@lru_cache(maxsize=None)
def program(relpath: str, **knobs):
    """The interpreter program of a spec (for primitives without the engine interface)."""
    return compile_module(load_module(SPECS / relpath, {k: str(v) for k, v in knobs.items()}))


def differential(engine, ref, rng: random.Random, count: int, key_len: int, nonce_lens, tag_lens,
                 max_len: int = 600) -> int:
    """`count` random cases (key, nonce, AD and message lengths 0..max_len) through `engine` and
    `ref`: same ct||tag, decrypt returns the message, a one-bit-forged tag is rejected. Returns the
    number of cases whose lengths were not a multiple of 16 (the partial-block coverage)."""
    partial = 0
    for _ in range(count):
        key = rng.randbytes(key_len)
        nonce = rng.randbytes(rng.choice(nonce_lens))
        ad = rng.randbytes(rng.randint(0, max_len) if rng.random() < 0.5 else rng.randint(0, 40))
        msg = rng.randbytes(rng.randint(0, max_len))
        tag_len = rng.choice(tag_lens)
        assert engine.supports(key_len, len(nonce), tag_len)
        expected = ref.encrypt(key, nonce, ad, msg, tag_len)
        assert engine.encrypt(key, nonce, ad, msg, tag_len) == expected
        ct, tag = expected[:len(msg)], expected[len(msg):]
        assert engine.decrypt(key, nonce, ad, ct, tag) == msg
        if tag_len:
            forged = bytearray(tag)
            forged[rng.randrange(tag_len)] ^= 1 << rng.randrange(8)
            assert engine.decrypt(key, nonce, ad, ct, bytes(forged)) is None
        partial += bool(len(msg) % 16 or len(ad) % 16)
    return partial
