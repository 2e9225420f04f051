"""A compiled AEAD scheme as an AeadEngine: calls the generated functions directly in the
simulator (parameters as in docs/BACKENDS.md: each `bytes` buffer is (pointer, length); a result
bit comes back through its out-pointer).

A unit that exports the key-setup stage (`key_setup`, `encrypt_with`, `decrypt_with`; the
backends then drop `encrypt`/`decrypt`) is run as the C runtime runs it: key_setup into a state
buffer, then the `*_with` function on it. `last` then covers both calls (cycles and instructions
summed, the deeper stack), so it measures a whole encryption as `encrypt` would;
`last_key_setup` and `last_with` are the two runs."""
from __future__ import annotations

from dataclasses import replace

from aedsl.sim.harness import Buffer, Program

KEY_SETUP_ENTRIES = ("key_setup", "encrypt_with", "decrypt_with")


class SimAead:
    def __init__(self, unit, chip, elf):
        self.unit, self.chip = unit, chip
        self.program = Program(elf, chip, bench=True)
        knobs = ",".join(f"{k}={v}" for k, v in unit.knobs.items())
        self.name = f"sim:{chip.name}:{unit.stem}" + (f"[{knobs}]" if knobs else "")
        self.staged = all(n in unit.entries for n in KEY_SETUP_ENTRIES)
        if self.staged:
            self.setup, self.enc, self.dec = (unit.entries[n] for n in KEY_SETUP_ENTRIES)
            self.state = self.setup.params[1:]
        else:
            self.setup, self.state = None, []
            self.enc, self.dec = unit.entries["encrypt"], unit.entries["decrypt"]
        self.domains = unit.domains if hasattr(unit, "domains") else {}
        self.last = self.last_key_setup = self.last_with = None

    def supports(self, key_len: int, nonce_len: int, tag_len: int) -> bool:
        d = getattr(self.unit, "domains", {}) or {}
        for name, n in (("key_len", key_len), ("nonce_len", nonce_len), ("tag_len", tag_len)):
            if name in d and n not in d[name]:
                return False
        key_p = (self.setup or self.enc).params[0]
        fixed = {p.name: p.count for p in self.enc.params[-5:] if p.kind == "mem"}
        if key_p.kind == "mem":
            fixed["key"] = key_p.count
        for name, n in (("key", key_len), ("nonce", nonce_len), ("tag", tag_len)):
            if fixed.get(name) is not None and fixed[name] != n:
                return False
        return True

    @staticmethod
    def _args(entry, values: list) -> list:
        """Arguments for `entry` from one byte string per parameter, in parameter order."""
        args = []
        for p, data in zip(entry.params, values, strict=True):
            if p.kind == "bytes":
                args += [Buffer(bytes(data), region="bench"), len(data)]
            elif p.kind == "mem":
                args.append(Buffer(bytes(data), region="bench"))
            else:
                raise ValueError(f"{entry.symbol}: scalar parameter {p.name} in an AEAD entry")
        args += [Buffer(2 * (-(-w // 16)), region="bench") for w in entry.results]
        return args

    def _run(self, entry, key: bytes, buffers: list):
        """Run `entry` on the five message buffers; returns the buffers read back after the key
        (or the state), i.e. the message buffers and the result out-pointer."""
        if not self.staged:
            r = self.program.call(entry.symbol, self._args(entry, [key] + buffers))
            self.last = r
            return r.buffers[1:]
        ks = self.program.call(self.setup.symbol,
                               self._args(self.setup, [key] + [bytes(p.nbytes) for p in self.state]))
        state = ks.buffers[1:]
        r = self.program.call(entry.symbol, self._args(entry, state + buffers))
        self.last_key_setup, self.last_with = ks, r
        self.last = replace(r, cycles=ks.cycles + r.cycles, instructions=ks.instructions + r.instructions,
                            stack_bytes=max(ks.stack_bytes, r.stack_bytes))
        return r.buffers[len(state):]

    def encrypt(self, key, nonce, ad, msg, tag_len):
        out = self._run(self.enc, key, [nonce, ad, msg, bytes(len(msg)), bytes(tag_len)])
        # message buffers in argument order: nonce, ad, msg, ct, tag
        return out[3] + out[4]

    def decrypt(self, key, nonce, ad, ct, tag):
        out = self._run(self.dec, key, [nonce, ad, ct, tag, bytes(len(ct))])
        ok = int.from_bytes(out[-1], "little") & 1
        return out[4] if ok else None
