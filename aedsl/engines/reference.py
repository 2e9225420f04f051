"""Reference engines: the oracles every compiled spec is compared with.

AEAD modes and AES wrap the `pycryptodome` and `cryptography` libraries (ChaCha20-Poly1305 from
`cryptography`, the rest from pycryptodome; Ascon-128/128a v1.2 from the `ascon` package). SPECK has
no library, so `Speck` below is written from the paper (Beaulieu et al., ePrint 2013/404, §4 and
Appendix C) for all 10 parameter sets, using the Implementation Guide's byte order.

Each engine satisfies `aedsl.engines.base.AeadEngine` or `BlockCipherEngine`; `get(name)` builds one
by the short name used on the command line (`aedsl kat --engine ref:aes-gcm`)."""
from __future__ import annotations

import hmac
from collections.abc import Callable

import ascon
from Crypto.Cipher import AES, ChaCha20, ChaCha20_Poly1305
from Crypto.Hash import CMAC
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as _CgChaCha

AES_KEYS = (16, 24, 32)


class _PycryptodomeAead:
    """An AES mode of pycryptodome with `encrypt_and_digest` / `decrypt_and_verify`."""

    name = ""
    mode = 0
    nonce_lens: range = range(1, 1 << 16)
    tag_lens: tuple[int, ...] = tuple(range(4, 17))

    def supports(self, key_len: int, nonce_len: int, tag_len: int) -> bool:
        return key_len in AES_KEYS and nonce_len in self.nonce_lens and tag_len in self.tag_lens

    def _cipher(self, key: bytes, nonce: bytes, tag_len: int, msg_len: int, ad_len: int):
        return AES.new(key, self.mode, nonce=nonce, mac_len=tag_len)

    def encrypt(self, key: bytes, nonce: bytes, ad: bytes, msg: bytes, tag_len: int) -> bytes:
        c = self._cipher(key, nonce, tag_len, len(msg), len(ad))
        c.update(ad)
        ct, tag = c.encrypt_and_digest(msg)
        return ct + tag

    def decrypt(self, key: bytes, nonce: bytes, ad: bytes, ct: bytes, tag: bytes) -> bytes | None:
        c = self._cipher(key, nonce, len(tag), len(ct), len(ad))
        c.update(ad)
        try:
            return c.decrypt_and_verify(ct, tag)
        except ValueError:  # pycryptodome's "MAC check failed"
            return None


class AesGcm(_PycryptodomeAead):
    """SP 800-38D: any non-empty IV (96-bit IVs directly, others through GHASH), tags 4..16 bytes."""
    name = "aes-gcm"
    mode = AES.MODE_GCM


class AesCcm(_PycryptodomeAead):
    """SP 800-38C / RFC 3610: nonce 7..13 bytes, tag 4, 6, .., 16 bytes."""
    name = "aes-ccm"
    mode = AES.MODE_CCM
    nonce_lens = range(7, 14)
    tag_lens = (4, 6, 8, 10, 12, 14, 16)

    def _cipher(self, key, nonce, tag_len, msg_len, ad_len):
        return AES.new(key, AES.MODE_CCM, nonce=nonce, mac_len=tag_len, msg_len=msg_len, assoc_len=ad_len)


class AesEax:
    """EAX (Bellare-Rogaway-Wagner, FSE 2004), composed from pycryptodome's AES-CTR and CMAC (OMAC1)
    as the paper defines it, because the library's EAX mode refuses the empty nonce that EAX (and
    Wycheproof) allow: N = OMAC^0(nonce), H = OMAC^1(ad), C = CTR_N(M), T = (N ^ H ^ OMAC^2(C))[:tag]."""
    name = "aes-eax"

    def supports(self, key_len: int, nonce_len: int, tag_len: int) -> bool:
        return key_len in AES_KEYS and 1 <= tag_len <= 16

    @staticmethod
    def _omac(key: bytes, t: int, data: bytes) -> bytes:
        return CMAC.new(key, bytes(15) + bytes([t]) + data, ciphermod=AES).digest()

    def _tag(self, key: bytes, n: bytes, ad: bytes, ct: bytes) -> bytes:
        h, c = self._omac(key, 1, ad), self._omac(key, 2, ct)
        return bytes(a ^ b ^ d for a, b, d in zip(n, h, c))

    def encrypt(self, key, nonce, ad, msg, tag_len):
        n = self._omac(key, 0, nonce)
        ct = aes_ctr(key, n, msg)
        return ct + self._tag(key, n, ad, ct)[:tag_len]

    def decrypt(self, key, nonce, ad, ct, tag):
        n = self._omac(key, 0, nonce)
        if not hmac.compare_digest(self._tag(key, n, ad, ct)[: len(tag)], tag):
            return None
        return aes_ctr(key, n, ct)


class AesOcb3(_PycryptodomeAead):
    """RFC 7253: nonce 1..15 bytes; the library allows tags of 8..16 bytes."""
    name = "aes-ocb3"
    mode = AES.MODE_OCB
    nonce_lens = range(1, 16)
    tag_lens = tuple(range(8, 17))


class AesCtr:
    """SP 800-38A CTR as the interface of specs/schemes/ctr.ae: the 16-byte nonce is the initial
    counter block (a big-endian 128-bit counter), no associated data is authenticated and the tag is
    empty, so decryption always releases the plaintext."""
    name = "aes-ctr"

    def supports(self, key_len: int, nonce_len: int, tag_len: int) -> bool:
        return key_len in AES_KEYS and (nonce_len, tag_len) == (16, 0)

    def encrypt(self, key, nonce, ad, msg, tag_len):
        return aes_ctr(key, nonce, msg)

    def decrypt(self, key, nonce, ad, ct, tag):
        return aes_ctr(key, nonce, ct) if not tag else None


class ChaCha20Poly1305:
    """RFC 8439 AEAD (`cryptography`): 32-byte key, 12-byte nonce, 16-byte tag."""
    name = "chacha20-poly1305"

    def supports(self, key_len: int, nonce_len: int, tag_len: int) -> bool:
        return (key_len, nonce_len, tag_len) == (32, 12, 16)

    def encrypt(self, key, nonce, ad, msg, tag_len):
        return _CgChaCha(key).encrypt(nonce, msg, ad)

    def decrypt(self, key, nonce, ad, ct, tag):
        try:
            return _CgChaCha(key).decrypt(nonce, ct + tag, ad)
        except InvalidTag:
            return None


class XChaCha20Poly1305:
    """draft-irtf-cfrg-xchacha (pycryptodome's ChaCha20_Poly1305 with a 24-byte nonce)."""
    name = "xchacha20-poly1305"

    def supports(self, key_len: int, nonce_len: int, tag_len: int) -> bool:
        return (key_len, nonce_len, tag_len) == (32, 24, 16)

    def encrypt(self, key, nonce, ad, msg, tag_len):
        c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        c.update(ad)
        ct, tag = c.encrypt_and_digest(msg)
        return ct + tag

    def decrypt(self, key, nonce, ad, ct, tag):
        c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        c.update(ad)
        try:
            return c.decrypt_and_verify(ct, tag)
        except ValueError:
            return None


class Ascon:
    """Ascon-128 / Ascon-128a v1.2 (final-round LWC), from the `ascon` package."""

    def __init__(self, variant: str):
        self.variant = variant
        self.name = variant.lower().replace("-", "")

    def supports(self, key_len: int, nonce_len: int, tag_len: int) -> bool:
        return (key_len, nonce_len, tag_len) == (16, 16, 16)

    def encrypt(self, key, nonce, ad, msg, tag_len):
        return ascon.encrypt(key, nonce, ad, msg, variant=self.variant)

    def decrypt(self, key, nonce, ad, ct, tag):
        return ascon.decrypt(key, nonce, ad, ct + tag, variant=self.variant)


class AesBlock:
    """FIPS 197 AES-128/192/256 on one 16-byte block."""
    name = "aes"
    block_bytes = 16

    def supports(self, key_len: int) -> bool:
        return key_len in AES_KEYS

    def encrypt_block(self, key: bytes, block: bytes) -> bytes:
        return AES.new(key, AES.MODE_ECB).encrypt(block)

    def decrypt_block(self, key: bytes, block: bytes) -> bytes:
        return AES.new(key, AES.MODE_ECB).decrypt(block)


def aes_ctr(key: bytes, counter_block: bytes, data: bytes) -> bytes:
    """SP 800-38A CTR: keystream AES(counter_block + i), the whole 16-byte block a big-endian counter.
    (CTR alone is not an AEAD, so it is a helper rather than an engine.)"""
    return AES.new(key, AES.MODE_CTR, nonce=b"", initial_value=counter_block).encrypt(data)


def chacha20_xor(key: bytes, nonce: bytes, counter: int, data: bytes) -> bytes:
    """RFC 8439 ChaCha20 stream with a 12-byte nonce starting at block `counter`."""
    c = ChaCha20.new(key=key, nonce=nonce)
    c.seek(64 * counter)
    return c.encrypt(data)


# --- SPECK -----------------------------------------------------------------------------------
# (block bits, key bits) -> rounds T, from the paper's Table 4.1; alpha/beta = 7/2 for 16-bit words, else 8/3.
SPECK_ROUNDS = {(32, 64): 22, (48, 72): 22, (48, 96): 23, (64, 96): 26, (64, 128): 27,
                (96, 96): 28, (96, 144): 29, (128, 128): 32, (128, 192): 33, (128, 256): 34}


class Speck:
    """Speck2n/mn for one block size, all its key sizes. Byte order (Implementation Guide):
    key bytes = LE(k0) || LE(l0) || LE(l1) ..; block bytes = LE(y) || LE(x)."""

    def __init__(self, block_bits: int):
        if block_bits not in {b for b, _ in SPECK_ROUNDS}:
            raise ValueError(f"SPECK has no {block_bits}-bit block")
        self.n = block_bits // 2  # word bits
        self.block_bytes = block_bits // 8
        self.name = f"speck{block_bits}"
        self.mask = (1 << self.n) - 1
        self.alpha, self.beta = (7, 2) if self.n == 16 else (8, 3)
        self._cache: dict[bytes, list[int]] = {}

    def supports(self, key_len: int) -> bool:
        return (2 * self.n, key_len * 8) in SPECK_ROUNDS

    def _ror(self, x: int, r: int) -> int:
        return ((x >> r) | (x << (self.n - r))) & self.mask

    def _rol(self, x: int, r: int) -> int:
        return ((x << r) | (x >> (self.n - r))) & self.mask

    def round_keys(self, key: bytes) -> list[int]:
        if key in self._cache:
            return self._cache[key]
        if not self.supports(len(key)):
            raise ValueError(f"{self.name}: no {len(key)}-byte key")
        wb = self.n // 8
        words = [int.from_bytes(key[i:i + wb], "little") for i in range(0, len(key), wb)]
        rounds = SPECK_ROUNDS[(2 * self.n, len(key) * 8)]
        k, l = [words[0]], words[1:]
        for i in range(rounds - 1):
            # l[i+m-1] = (k[i] + (l[i] >>> alpha)) xor i ;  k[i+1] = (k[i] <<< beta) xor l[i+m-1]
            l.append(((k[i] + self._ror(l[i], self.alpha)) & self.mask) ^ i)
            k.append(self._rol(k[i], self.beta) ^ l[-1])
        self._cache[key] = k
        return k

    def _split(self, block: bytes) -> tuple[int, int]:
        wb = self.n // 8
        if len(block) != self.block_bytes:
            raise ValueError(f"{self.name}: block must be {self.block_bytes} bytes")
        return int.from_bytes(block[wb:], "little"), int.from_bytes(block[:wb], "little")

    def _join(self, x: int, y: int) -> bytes:
        wb = self.n // 8
        return y.to_bytes(wb, "little") + x.to_bytes(wb, "little")

    def encrypt_block(self, key: bytes, block: bytes) -> bytes:
        x, y = self._split(block)
        for rk in self.round_keys(key):
            x = ((self._ror(x, self.alpha) + y) & self.mask) ^ rk
            y = self._rol(y, self.beta) ^ x
        return self._join(x, y)

    def decrypt_block(self, key: bytes, block: bytes) -> bytes:
        x, y = self._split(block)
        for rk in reversed(self.round_keys(key)):
            y = self._ror(y ^ x, self.beta)
            x = self._rol(((x ^ rk) - y) & self.mask, self.alpha)
        return self._join(x, y)


REF_ENGINES: dict[str, Callable[[], object]] = {
    "aes-gcm": AesGcm, "aes-ccm": AesCcm, "aes-eax": AesEax, "aes-ocb3": AesOcb3, "aes-ctr": AesCtr,
    "chacha20-poly1305": ChaCha20Poly1305, "xchacha20-poly1305": XChaCha20Poly1305,
    "ascon128": lambda: Ascon("Ascon-128"), "ascon128a": lambda: Ascon("Ascon-128a"),
    "aes": AesBlock,
    **{f"speck{b}": (lambda b=b: Speck(b)) for b in (32, 48, 64, 96, 128)},
    "speck": lambda: tuple(Speck(b) for b in (32, 48, 64, 96, 128)),  # the family, one engine per block
}


def get(name: str):
    """A fresh reference engine by short name (see `REF_ENGINES`)."""
    try:
        return REF_ENGINES[name]()
    except KeyError:
        raise KeyError(f"no reference engine {name!r}; known: {', '.join(sorted(REF_ENGINES))}") from None
