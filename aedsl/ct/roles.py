"""The secrecy model's one table: which parameters of an exported function are secret.

Key, message (plaintext and ciphertext buffers), block, key schedule and every other state are
secret; the nonce, the associated data and the received tag are public, and so is the length of
every byte buffer (`len` is never secret). Values derived from a secret are secret (the analyses
propagate that). What a function returns or writes to its output buffers is declassified at the
API: nothing checks outputs, so the tag verdict of `decrypt` becomes public only there, and a
branch on it inside the generated code is still a finding.
"""
from __future__ import annotations

# parameters public by name (docs/LANGUAGE.md, "Entry-point conventions")
PUBLIC_PARAMS = frozenset({"nonce", "ad", "tag"})


def is_secret(param_name: str) -> bool:
    """Whether the contents (or value) of an exported function's parameter are secret."""
    return param_name not in PUBLIC_PARAMS
