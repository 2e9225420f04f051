"""Which named vector sources (aedsl.vectors.sources) check which spec of the library, and a small
deterministic sample of them: what `aedsl explore` runs on every variant before measuring it.

A source name may hold `{key_bits}` (and any other knob of the variant in braces), filled from the
variant's knobs. The sample is the first `n` vectors, in source order, that the engine accepts
(`accepts(vector)`: key, nonce, tag and block sizes), rejected-tag cases included where they fall.
The full matrix of sources per variant is tools/verify_all.py's (docs/VERIFICATION.md).
"""
from __future__ import annotations

from collections.abc import Callable

# spec file stem -> source names, in the order they are sampled
SPEC_SOURCES: dict[str, tuple[str, ...]] = {
    "aes": ("fips197", "cavp:aes:ECBGFSbox{key_bits}", "cavp:aes:ECBVarKey{key_bits}"),
    "speck": ("speck-paper", "cryptopp:speck"),
    "ctr": ("rfc3686:aes{key_bits}",),
    "ccm": ("wycheproof:aes_ccm",),
    "gcm": ("wycheproof:aes_gcm",),
    "eax": ("eax-paper", "wycheproof:aes_eax"),
    "ocb3": ("rfc7253",),
    "chacha20_poly1305": ("rfc8439", "wycheproof:chacha20_poly1305"),
    "ascon128": ("lwc:ascon128",),
    "ascon_aead128": ("lwc:ascon-aead128-sp800-232",),
    "norx32_4_1": ("lwc:norx32-4-1",),
    "isap_a_128a": ("lwc:isap-a-128a",),
    "photon_beetle_aead128": ("lwc:photon-beetle-aead128",),
    "romulus_n": ("lwc:romulus-n",),
    "grain128aeadv2": ("lwc:grain-128aeadv2",),
    "elephant_dumbo": ("lwc:elephant-dumbo",),
}


def source_names(stem: str, knobs: dict) -> list[str]:
    """The named sources that check spec `stem` with these knobs (those that exist here)."""
    from .sources import SOURCES
    out = []
    for name in SPEC_SOURCES.get(stem, ()):
        try:
            name = name.format(**knobs)
        except KeyError:
            continue
        if name in SOURCES:
            out.append(name)
    return out


def sample(stem: str, knobs: dict, accepts: Callable, n: int) -> tuple[list[str], list]:
    """(the sources drawn from, up to `n` vectors of them that `accepts` takes)."""
    from . import load
    used, out = [], []
    for name in source_names(stem, knobs):
        if len(out) >= n:
            break
        taken = [v for v in load(name) if accepts(v)][:n - len(out)]
        if taken:
            used.append(name)
            out += taken
    return used, out
