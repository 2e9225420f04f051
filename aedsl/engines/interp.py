"""Engines that run a spec in the interpreter (the reference semantics), for `aedsl kat`.

    engine = interp_engine("specs/primitives/aes.ae", {"key_bits": "256"})
    engine.encrypt_block(key, block)

The spec's entry points decide the kind (docs/LANGUAGE.md, "Entry-point conventions"):
`key_schedule`/`encrypt_block`/`decrypt_block` -> BlockCipherEngine;
`encrypt`/`decrypt` -> AeadEngine. A scheme that also has the key-setup stage
(`key_setup` + `encrypt_with`/`decrypt_with`, see `key_setup_of`) runs `key_setup` once per key
and then the `*_with` functions, as generated code with a kept context would.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from aedsl.engines import accel_model  # noqa: F401  (installs the accelerator semantics)
from aedsl.engines.base import AeadEngine, BlockCipherEngine, block_signature_error, block_sizes
from aedsl.frontend.diagnostics import SpecError
from aedsl.frontend.elaborate import load_module
from aedsl.ir.interp import InterpError, compile_module
from aedsl.ir.nodes import Memory, Module


def _label(module: Module) -> str:
    knobs = ",".join(f"{k}={v}" for k, v in module.knobs.items())
    return f"interp:{module.name}" + (f"[{knobs}]" if knobs else "")


class InterpBlockCipher:
    def __init__(self, module: Module, path: str = "<spec>"):
        self.block_bits, self.key_bits = block_sizes(module.consts, path)
        block_signature_error({f.name: (["mem" if isinstance(p, Memory) and p.length is not None else "value"
                                         for p in f.params], len(f.result_widths))
                               for f in module.functions}, path)
        self.module = module
        self.program = compile_module(module)
        self.name = _label(module)
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


@dataclass(frozen=True)
class KeySetup:
    """A scheme's key-setup stage: `key_setup(key, *state)` fills the state memories once per key,
    `encrypt_with(*state, nonce, ad, msg, ct, tag)` / `decrypt_with(*state, nonce, ad, ct, tag,
    msg) -> bit` only read them. `state` holds key_setup's memory parameters in order; a backend
    allocates its context from their shapes."""

    state: tuple[Memory, ...]

    def shapes(self) -> list[tuple[str, int, int]]:
        """(name, element width in bits, element count) of each state memory, in order."""
        return [(m.name, m.elem_width, m.length) for m in self.state]

    def allocate(self) -> list[list[int]]:
        """Zeroed state memories, as the interpreter takes them."""
        return [[0] * m.length for m in self.state]


ENTRY_POINTS_WITH_STATE = ("key_setup", "encrypt_with", "decrypt_with")
_MESSAGE_PARAMS = 5          # nonce, ad, msg, ct, tag (decrypt: nonce, ad, ct, tag, msg)


def key_setup_of(module: Module, path: str = "<spec>") -> KeySetup | None:
    """The scheme's key-setup stage, or None if it has none; SpecError if it is half there or the
    three functions disagree on the state (same memories, same shapes, same order)."""
    present = [f for f in ENTRY_POINTS_WITH_STATE if module.has_function(f)]
    if not present:
        return None
    if len(present) < len(ENTRY_POINTS_WITH_STATE):
        missing = ", ".join(f for f in ENTRY_POINTS_WITH_STATE if f not in present)
        raise SpecError(f"a scheme with {', '.join(present)} must also define {missing}", path)
    setup = module.function("key_setup")
    key, state = setup.params[0], tuple(setup.params[1:])
    if not isinstance(key, Memory) or key.elem_width != 8:
        raise SpecError("key_setup's first parameter must be the key (bytes or u8[n])", path)
    if setup.result_widths:
        raise SpecError("key_setup returns nothing: key-dependent values go into its state memories", path)
    if not state or not all(isinstance(m, Memory) and m.length is not None for m in state):
        raise SpecError("key_setup's parameters after the key must be fixed-size arrays (the state)", path)
    shape = [(m.elem_width, m.length) for m in state]
    for name, results in (("encrypt_with", []), ("decrypt_with", [1])):
        f = module.function(name)
        head = f.params[:len(state)]
        if (len(f.params) != len(state) + _MESSAGE_PARAMS
                or [(m.elem_width, m.length) if isinstance(m, Memory) else None for m in head] != shape):
            types = ", ".join(m.type_str() for m in state)
            raise SpecError(f"{name} must take key_setup's state ({types}) followed by the "
                            f"{_MESSAGE_PARAMS} message buffers", path)
        if f.result_widths != results:
            raise SpecError(f"{name} must return {'a bit' if results else 'nothing'}", path)
    return KeySetup(state)


class InterpAead:
    """With a key-setup stage, states are kept per key (the last `cached_keys` keys) and
    `key_setups` counts how often key_setup ran; `use_key_setup=False` calls encrypt/decrypt."""

    cached_keys = 8

    def __init__(self, module: Module, use_key_setup: bool = True):
        self.module = module
        self.program = compile_module(module)
        self.name = _label(module)
        self._enc = module.function("encrypt")
        self._dec = module.function("decrypt")
        self.key_setup = key_setup_of(module, module.name) if use_key_setup else None
        self.key_setups = 0
        self._states: OrderedDict[bytes, list[list[int]]] = OrderedDict()

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

    def _state(self, key: bytes) -> list[list[int]]:
        key = bytes(key)
        if key in self._states:
            self._states.move_to_end(key)
        else:
            state = self.key_setup.allocate()
            self.program.call("key_setup", [list(key)] + state)
            self.key_setups += 1
            self._states[key] = state
            if len(self._states) > self.cached_keys:
                self._states.popitem(last=False)
        return self._states[key]

    def _call_with(self, fn: str, key: bytes, buffers: list) -> tuple:
        """Run `fn` on a copy of the key's state, and insist it left the state as it was: the
        context generated code keeps between messages must not change."""
        state = self._state(key)
        copies = [list(m) for m in state]
        out = self.program.call(fn, copies + buffers)
        if copies != state:
            changed = [m.name for m, a, b in zip(self.key_setup.state, copies, state) if a != b]
            raise InterpError(f"{fn} wrote the key state ({', '.join(changed)}); it may only read it")
        return out

    def encrypt(self, key: bytes, nonce: bytes, ad: bytes, msg: bytes, tag_len: int) -> bytes:
        ct = [0] * len(msg)
        tag = [0] * tag_len
        buffers = [list(nonce), list(ad), list(msg), ct, tag]
        if self.key_setup is not None:
            self._call_with("encrypt_with", key, buffers)
        else:
            self.program.call("encrypt", [list(key)] + buffers)
        return bytes(ct) + bytes(tag)

    def decrypt(self, key: bytes, nonce: bytes, ad: bytes, ct: bytes, tag: bytes) -> bytes | None:
        msg = [0] * len(ct)
        buffers = [list(nonce), list(ad), list(ct), list(tag), msg]
        if self.key_setup is not None:
            ok = self._call_with("decrypt_with", key, buffers)[0]
        else:
            ok = self.program.call("decrypt", [list(key)] + buffers)[0]
        return bytes(msg) if ok == 1 else None


def interp_engine(spec_path: str | Path, knobs: dict[str, str] | None = None, *,
                  use_key_setup: bool = True) -> AeadEngine | BlockCipherEngine:
    """Elaborate the spec with `knobs` and wrap its entry points; raises SpecError if it has none.
    `use_key_setup=False` makes a scheme engine call encrypt/decrypt even if key_setup exists."""
    module = load_module(spec_path, {k: str(v) for k, v in (knobs or {}).items()})
    if all(module.has_function(f) for f in ("key_schedule", "encrypt_block", "decrypt_block")):
        return InterpBlockCipher(module, str(spec_path))
    if module.has_function("encrypt") and module.has_function("decrypt"):
        key_setup_of(module, str(spec_path))        # a malformed key-setup stage is an error either way
        return InterpAead(module, use_key_setup)
    raise SpecError("the spec defines neither encrypt/decrypt (a scheme) nor "
                    "key_schedule/encrypt_block/decrypt_block (a block cipher)", str(spec_path))
