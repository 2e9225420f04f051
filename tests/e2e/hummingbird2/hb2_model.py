"""An independent Python model of Hummingbird-2 (Engels, Saarinen, Schweitzer, Smith, RFIDSec
2011), written from the algorithm description alone (S-boxes, L, f, WD16, initialisation, word
encryption and decryption, state update), not from the spec or the IR: it is what the generated
code is compared with.

Words are 16-bit; byte strings are read and written as little-endian words (the paper's vectors
are byte strings of little-endian words). The finalisation (`tag`) is the one rule found in a
public implementation and is NOT confirmed against the paper (specs/drafts/hummingbird2.ae says
what is verified).
"""
from __future__ import annotations

MASK = 0xFFFF

S = (  # S1 acts on bits 15..12, S4 on bits 3..0
    (0x7, 0xC, 0xE, 0x9, 0x2, 0x1, 0x5, 0xF, 0xB, 0x6, 0xD, 0x0, 0x4, 0x8, 0xA, 0x3),
    (0x4, 0xA, 0x1, 0x6, 0x8, 0xF, 0x7, 0xC, 0x3, 0x0, 0xE, 0xD, 0x5, 0x9, 0xB, 0x2),
    (0x2, 0xF, 0xC, 0x1, 0x5, 0x6, 0xA, 0xD, 0xE, 0x8, 0x3, 0x4, 0x0, 0xB, 0x9, 0x7),
    (0xF, 0x4, 0x5, 0x8, 0x9, 0x7, 0x2, 0x1, 0xA, 0x3, 0x0, 0xE, 0x6, 0xC, 0xD, 0xB),
)
S_INV = tuple(tuple(box.index(v) for v in range(16)) for box in S)


def rotl(x: int, n: int) -> int:
    n %= 16
    return ((x << n) | (x >> (16 - n))) & MASK


def sub(x: int, boxes) -> int:
    out = 0
    for i, box in enumerate(boxes):
        shift = 12 - 4 * i
        out |= box[(x >> shift) & 0xF] << shift
    return out


def lin(x: int) -> int:
    return x ^ rotl(x, 6) ^ rotl(x, 10)


def lin_inv(x: int) -> int:
    return x ^ rotl(x, 2) ^ rotl(x, 4) ^ rotl(x, 12) ^ rotl(x, 14)


def f(x: int) -> int:
    return lin(sub(x, S))


def f_inv(x: int) -> int:
    return sub(lin_inv(x), S_INV)


def wd16(x: int, keys) -> int:
    for k in keys:
        x = f(x ^ k)
    return x


def wd16_inv(x: int, keys) -> int:
    for k in reversed(keys):
        x = f_inv(x) ^ k
    return x


def words(data: bytes) -> list[int]:
    return [int.from_bytes(data[i:i + 2], "little") for i in range(0, len(data) - 1, 2)]


def to_bytes(ws) -> bytes:
    return b"".join(w.to_bytes(2, "little") for w in ws)


class Hummingbird2:
    """One message's state: R1..R8 as r[0..7]."""

    def __init__(self, key: bytes, iv: bytes):
        self.k = words(key)
        assert len(self.k) == 8 and len(iv) == 8
        self.iv = words(iv)
        r = self.iv + self.iv
        k1, k2 = self.k[:4], self.k[4:]
        for i in range(4):
            t1 = wd16((r[0] + i) & MASK, k1)
            t2 = wd16((r[1] + t1) & MASK, k2)
            t3 = wd16((r[2] + t2) & MASK, k1)
            t4 = wd16((r[3] + t3) & MASK, k2)
            r[0] = rotl((r[0] + t4) & MASK, 3)
            r[1] = rotl((r[1] + t1) & MASK, -1)
            r[2] = rotl((r[2] + t2) & MASK, 8)
            r[3] = rotl((r[3] + t3) & MASK, 1)
            for j in range(4):
                r[4 + j] ^= r[j]
        self.r = r

    def _keys(self):
        k, r = self.k, self.r
        return k[:4], [k[4 + j] ^ r[4 + j] for j in range(4)], [k[j] ^ r[4 + j] for j in range(4)], k[4:]

    def _update(self, t1: int, t2: int, t3: int) -> None:
        r = self.r
        r[0] = (r[0] + t3) & MASK
        r[1] = (r[1] + t1) & MASK
        r[2] = (r[2] + t2) & MASK
        r[3] = (r[3] + r[0] + t1) & MASK
        for j in range(4):
            r[4 + j] ^= r[j]

    def encrypt_word(self, p: int) -> int:
        a, b, c, d = self._keys()
        r = self.r
        t1 = wd16((r[0] + p) & MASK, a)
        t2 = wd16((r[1] + t1) & MASK, b)
        t3 = wd16((r[2] + t2) & MASK, c)
        out = (wd16((r[3] + t3) & MASK, d) + r[0]) & MASK
        self._update(t1, t2, t3)
        return out

    def decrypt_word(self, c: int) -> int:
        a, b, cc, d = self._keys()
        r = self.r
        t3 = (wd16_inv((c - r[0]) & MASK, d) - r[3]) & MASK
        t2 = (wd16_inv(t3, cc) - r[2]) & MASK
        t1 = (wd16_inv(t2, b) - r[1]) & MASK
        p = (wd16_inv(t1, a) - r[0]) & MASK
        self._update(t1, t2, t3)
        return p

    def tag(self, ad: bytes, n_words: int) -> bytes:
        """UNCONFIRMED finalisation: AD words encrypted and discarded, then E(R1+R3+IV1+n),
        E(R1+R3+IV2), E(R1+R3+IV3) discarded, T1 = E(R1+R3+IV4), T2..T8 = E(R1+R3)."""
        for w in words(ad):
            self.encrypt_word(w)
        extra = [(self.iv[0] + n_words) & MASK, self.iv[1], self.iv[2], self.iv[3]] + [0] * 7
        out = [self.encrypt_word((self.r[0] + self.r[2] + e) & MASK) for e in extra]
        return to_bytes(out[3:])


def encrypt(key: bytes, iv: bytes, ad: bytes, msg: bytes) -> tuple[bytes, bytes]:
    """(ciphertext, 16-byte tag); messages and AD are whole 16-bit words."""
    h = Hummingbird2(key, iv)
    ct = to_bytes(h.encrypt_word(w) for w in words(msg))
    return ct, h.tag(ad, len(msg) // 2)


def decrypt(key: bytes, iv: bytes, ad: bytes, ct: bytes) -> tuple[bytes, bytes]:
    """(plaintext, the tag it must carry)."""
    h = Hummingbird2(key, iv)
    msg = to_bytes(h.decrypt_word(w) for w in words(ct))
    return msg, h.tag(ad, len(ct) // 2)
