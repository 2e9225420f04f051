"""A compiled AEAD scheme as an AeadEngine: calls the generated `encrypt`/`decrypt` directly in
the simulator (parameters as in docs/BACKENDS.md: each `bytes` buffer is (pointer, length);
`decrypt`'s result bit comes back through its out-pointer)."""
from __future__ import annotations

from aedsl.sim.harness import Buffer, Program


class SimAead:
    def __init__(self, unit, chip, elf):
        self.unit, self.chip = unit, chip
        self.program = Program(elf, chip, bench=True)
        knobs = ",".join(f"{k}={v}" for k, v in unit.knobs.items())
        self.name = f"sim:{chip.name}:{unit.stem}" + (f"[{knobs}]" if knobs else "")
        self.enc, self.dec = unit.entries["encrypt"], unit.entries["decrypt"]
        self.domains = unit.domains if hasattr(unit, "domains") else {}
        self.last = None

    def supports(self, key_len: int, nonce_len: int, tag_len: int) -> bool:
        d = getattr(self.unit, "domains", {}) or {}
        for name, n in (("key_len", key_len), ("nonce_len", nonce_len), ("tag_len", tag_len)):
            if name in d and n not in d[name]:
                return False
        fixed = {p.name: p.count for p in self.enc.params if p.kind == "mem"}
        for name, n in (("key", key_len), ("nonce", nonce_len), ("tag", tag_len)):
            if fixed.get(name) is not None and fixed[name] != n:
                return False
        return True

    def _args(self, entry, buffers: dict) -> list:
        args = []
        for p in entry.params:
            data = buffers[p.name]
            if p.kind == "bytes":
                args += [Buffer(bytes(data) if data else 0 if False else bytes(data), region="bench"), len(data)]
            elif p.kind == "mem":
                args.append(Buffer(bytes(data), region="bench"))
            else:
                raise ValueError(f"{entry.symbol}: scalar parameter {p.name} in an AEAD entry")
        args += [Buffer(2 * (-(-w // 16)), region="bench") for w in entry.results]
        return args

    def encrypt(self, key, nonce, ad, msg, tag_len):
        names = [p.name for p in self.enc.params]
        data = dict(zip(names, [key, nonce, ad, msg, bytes(len(msg)), bytes(tag_len)]))
        r = self.program.call(self.enc.symbol, self._args(self.enc, data))
        self.last = r
        # buffers come back in argument order: the 5th and 6th parameters are ct and tag
        return r.buffers[4] + r.buffers[5]

    def decrypt(self, key, nonce, ad, ct, tag):
        names = [p.name for p in self.dec.params]
        data = dict(zip(names, [key, nonce, ad, ct, tag, bytes(len(ct))]))
        r = self.program.call(self.dec.symbol, self._args(self.dec, data))
        self.last = r
        ok = int.from_bytes(r.buffers[-1], "little") & 1
        return r.buffers[5] if ok else None
