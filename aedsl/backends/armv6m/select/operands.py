"""Limb constants and helpers of the ARMv6-M selector: the 32-bit limb, the load/store mnemonic
of an access size, the zero test."""
from __future__ import annotations

from aedsl.codegen.mir import Imm

M32 = 0xFFFFFFFF
LIMB = 32
LOAD = {1: "ldrb", 2: "ldrh", 4: "ldr"}
STORE = {1: "strb", 2: "strh", 4: "str"}


def is_zero(x) -> bool:
    return isinstance(x, Imm) and (x.value & M32) == 0
