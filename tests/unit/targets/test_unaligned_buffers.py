"""Byte-buffer blocks at every alignment (both backends' word paths with the scratch-area byte
loop, docs/BACKENDS.md "Byte buffers"): the generated `encrypt`/`decrypt` (or, for a scheme
with the key-setup stage, `encrypt_with`/`decrypt_with` after `key_setup`) called with message,
nonce, AD, ciphertext and tag buffers at addresses 1, 2 and 3 mod 4 must give the same output as
with aligned buffers (which the official vectors check), for lengths around the block size."""
import random

import pytest

from aedsl import chips
from aedsl.engines.sim_aead import SimAead
from aedsl.engines.sim import compiled
from aedsl.sim.harness import Buffer, Program

CASES = [("stm32f030", "gcm", {}), ("stm32f030", "chacha20_poly1305", {}), ("stm32f030", "ocb3", {}),
         ("stm32f030", "ccm", {}), ("cc430f6137", "gcm", {"aes": "accel"}), ("cc430f6137", "ccm", {"aes": "accel"}),
         # message loops compiled twice by align_versioning (aligned copy, loop as written)
         ("stm32f030", "ascon128", {}), ("msp430f1611", "ascon128", {"align_versioning": "on"})]
LENGTHS = (1, 15, 16, 17, 33, 47)


def _call(prog, entry, data: dict, skew: dict):
    """Call `entry` with buffer `name` at `skew[name]` bytes past a 4-byte boundary (the buffers
    are packed from an aligned start, each padded so that the next one lands where wanted; the
    first one stays aligned). Returns (the buffers' data, the result buffers)."""
    params = list(entry.params)
    args, lens = [], []
    pos = 0
    for i, p in enumerate(params):
        d = bytes(data[p.name])
        nxt = skew.get(params[i + 1].name, 0) if i + 1 < len(params) else 0
        pad = (nxt - (pos + len(d))) % 4
        args.append(Buffer(d + bytes(pad), region="bench", align=1))
        lens.append(len(d))
        pos += len(d) + pad
        if p.kind == "bytes":
            args.append(len(d))
    args += [Buffer(2 * (-(-w // 16)), region="bench") for w in entry.results]
    r = prog.call(entry.symbol, args)
    for k, p in enumerate(params[1:], 1):       # the layout is what the test means
        assert r.buffer_addrs[k] % 4 == skew.get(p.name, 0)
    return [r.buffers[k][:n] for k, n in enumerate(lens)], r.buffers[len(lens):]


def _front(prog, unit, key: bytes) -> list[bytes]:
    """What precedes the five message buffers: the key for `encrypt`/`decrypt`, or, when the unit
    exports the key-setup stage instead, the state key_setup fills (kept aligned, as the runtime's
    context is)."""
    if "key_setup" not in unit.entries:
        return [key]
    setup = unit.entries["key_setup"]
    r = prog.call(setup.symbol, SimAead._args(setup, [key] + [bytes(p.nbytes) for p in setup.params[1:]]))
    return r.buffers[1:]


@pytest.mark.parametrize("chip,spec,knobs", CASES)
def test_unaligned_buffers_match_aligned(chip, spec, knobs, require_tools):
    require_tools(chip)
    unit, elf = compiled(f"specs/schemes/{spec}.ae", chip, knobs)
    prog = Program(elf, chips.load(chip), bench=True)
    staged = "key_setup" in unit.entries
    enc, dec = (unit.entries[n + ("_with" if staged else "")] for n in ("encrypt", "decrypt"))
    rnd = random.Random(7)
    key_len = 32 if spec == "chacha20_poly1305" else 16
    nonce_len = 16 if spec.startswith("ascon") else 12
    for n in LENGTHS:
        key, nonce = rnd.randbytes(key_len), rnd.randbytes(nonce_len)
        ad, msg = rnd.randbytes(n // 2 + 3), rnd.randbytes(n)
        front = _front(prog, unit, key)
        f = len(front)                  # the message buffers follow: ct at f + 3, tag at f + 4
        data = dict(zip([p.name for p in enc.params], front + [nonce, ad, msg, bytes(n), bytes(16)]))
        aligned, _ = _call(prog, enc, data, {})
        for s in (1, 2, 3):
            skew = {p.name: (s + k) % 4 for k, p in enumerate(enc.params) if k >= f}
            skewed, _ = _call(prog, enc, data, skew)
            assert skewed[f + 3:f + 5] == aligned[f + 3:f + 5], f"{spec} on {chip}: {n} bytes, skew {s}"
        ct, tag = aligned[f + 3], aligned[f + 4]
        ddata = dict(zip([p.name for p in dec.params], front + [nonce, ad, ct, tag, bytes(n)]))
        for s in (0, 1, 3):
            skew = {p.name: (s + 2 * k) % 4 for k, p in enumerate(dec.params) if k >= f}
            outs, res = _call(prog, dec, ddata, skew)
            assert int.from_bytes(res[-1], "little") & 1 == 1
            assert outs[f + 4] == msg, f"{spec} on {chip}: decrypt {n} bytes, skew {s}"
