"""Crypto++ `TestVectors/*.txt` files: `Name: value` lines; `Test: Encrypt|Verify|NotVerify` runs a
test with every field seen so far (fields persist until overwritten, as in Crypto++'s datatest).
`#` lines are separators, a trailing `\\` continues a value on the next line, CRLF is tolerated.

Value notation (Crypto++ `PutDecodedDatumInto`): hex with optional spaces, `"text"` for ASCII, `0x`
prefixed hex, and `rN item` to repeat an item N times. The project's files (EAX, ChaCha20-Poly1305,
SPECK) use only spaced hex and continuations; anything else unknown is an error, not a guess.

AEAD (`AlgorithmType: AuthenticatedSymmetricCipher`): Key, IV, Header (AD), Plaintext, Ciphertext and
either a separate MAC field (ChaCha20-Poly1305 file) or the tag appended to Ciphertext (EAX file;
the tag length is then len(Ciphertext) - len(Plaintext)).

Block ciphers (`AlgorithmType: SymmetricCipher`, Name `SPECK-64/ECB` etc.): ECB cases map directly
to `BlockVector`s. CBC and CTR cases are turned into the equivalent ECB block list, since they
test the same cipher: CBC block i has input P_i xor C_{i-1} (C_{-1} = IV) and output C_i; CTR block i
has input IV + i (big-endian counter over the whole block, Crypto++'s convention) and output
P_i xor C_i. A trailing partial CTR block cannot be turned into a block case and is dropped."""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from .records import AeadVector, BlockVector, Origin, VectorFormatError


def decode_value(text: str, where: Origin) -> bytes:
    out = bytearray()
    s = text.strip()
    while s:
        repeat = 1
        m = re.match(r"r(\d+)\s+", s)
        if m:
            repeat, s = int(m.group(1)), s[m.end():]
        if s.startswith('"'):
            end = s.find('"', 1)
            if end < 0:
                raise VectorFormatError(f"{where}: unterminated string in {text[:40]!r}")
            item, s = s[1:end].encode("latin-1"), s[end + 1:]
        else:
            tok, _, s = s.partition(" ")
            if tok.startswith("0x"):
                tok = tok[2:]
            if not re.fullmatch(r"[0-9A-Fa-f]*", tok) or len(tok) % 2:
                raise VectorFormatError(f"{where}: unknown value notation {tok[:20]!r}")
            item = bytes.fromhex(tok)
        out += item * repeat
        s = s.lstrip()
    return bytes(out)


def _records(path: str | Path) -> Iterator[tuple[dict[str, tuple[str, int]], int]]:
    """(fields in force, line of the `Test:` line) for every test; field -> (raw value, line)."""
    fields: dict[str, tuple[str, int]] = {}
    pending: tuple[str, list[str], int] | None = None
    with open(path, encoding="utf-8", errors="replace", newline=None) as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.rstrip("\r\n")
            if pending is not None:  # continuation of the previous value
                name, parts, start = pending
                cont = line.strip()
                parts.append(cont[:-1] if cont.endswith("\\") else cont)
                if cont.endswith("\\"):
                    continue
                fields[name] = (" ".join(parts), start)
                pending = None
                continue
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, colon, value = line.partition(":")
            if not colon:
                raise VectorFormatError(f"{path}:{lineno}: expected `Name: value`, got {line[:40]!r}")
            name, value = name.strip(), value.strip()
            if name == "Test":
                yield dict(fields) | {"Test": (value, lineno)}, lineno
                continue
            if value.endswith("\\"):
                pending = (name, [value[:-1]], lineno)
                continue
            fields[name] = (value, lineno)


def _get(rec: dict[str, tuple[str, int]], name: str, path: str | Path) -> bytes:
    value, line = rec[name]
    return decode_value(value, Origin(str(path), line))


def read(path: str | Path, name: str | None = None, source_prefix: str | None = None
         ) -> Iterator[AeadVector | BlockVector]:
    """`name`: keep only tests whose `Name` equals it (the ChaCha file also holds XChaCha);
    `source_prefix`: keep only tests whose `Source` starts with it (e.g. "RFC 8439")."""
    counter: dict[str, int] = {}
    for rec, line in _records(path):
        where = Origin(str(path), line)
        alg = rec.get("Name", ("", 0))[0]
        n = counter[alg] = counter.get(alg, 0) + 1
        if name is not None and alg != name:
            continue
        source = rec.get("Source", ("", 0))[0]
        if source_prefix is not None and not source.startswith(source_prefix):
            continue
        kind = rec.get("AlgorithmType", ("", 0))[0]
        test = rec["Test"][0]
        comment = rec.get("Comment", (source, 0))[0]
        vid = f"{alg} #{n}"
        if kind == "AuthenticatedSymmetricCipher":
            yield _aead(rec, path, where, vid, alg, test, comment)
        elif kind == "SymmetricCipher":
            if test != "Encrypt":
                raise VectorFormatError(f"{where}: block test {test!r} not understood")
            vec = _block(rec, path, where, vid, alg, comment)
            if vec is not None:
                yield vec
        else:
            raise VectorFormatError(f"{where}: AlgorithmType {kind!r} not supported")


def _aead(rec, path, where, vid, alg, test, comment) -> AeadVector:
    if test not in ("Encrypt", "Verify", "NotVerify"):
        raise VectorFormatError(f"{where}: AEAD test {test!r} not understood")
    pt, ctt = _get(rec, "Plaintext", path), _get(rec, "Ciphertext", path)
    if "MAC" in rec:
        ct, tag = ctt, _get(rec, "MAC", path)
    else:
        if len(ctt) < len(pt):
            raise VectorFormatError(f"{where}: Ciphertext shorter than Plaintext and no MAC field")
        ct, tag = ctt[: len(pt)], ctt[len(pt):]
    if len(ct) != len(pt):
        raise VectorFormatError(f"{where}: Ciphertext and Plaintext lengths differ")
    return AeadVector(id=vid, key=_get(rec, "Key", path), nonce=_get(rec, "IV", path),
                      ad=_get(rec, "Header", path) if "Header" in rec else b"",
                      msg=pt, ct=ct, tag=tag, valid=test != "NotVerify", flags=(test,),
                      comment=comment, algorithm=alg, origin=where)


def _block(rec, path, where, vid, alg, comment) -> BlockVector | None:
    m = re.fullmatch(r"[A-Za-z0-9]+-(\d+)/(ECB|CBC|CTR)", alg)
    if not m:
        raise VectorFormatError(f"{where}: block cipher Name {alg!r} not understood")
    bs, mode = int(m.group(1)) // 8, m.group(2)
    key, pt, ct = _get(rec, "Key", path), _get(rec, "Plaintext", path), _get(rec, "Ciphertext", path)
    if len(pt) != len(ct):
        raise VectorFormatError(f"{where}: Plaintext/Ciphertext lengths differ")
    blocks_in, blocks_out = [], []
    if mode == "ECB":
        blocks_in, blocks_out = [pt], [ct]
    elif mode == "CBC":
        prev = _get(rec, "IV", path)
        for i in range(0, len(pt) - len(pt) % bs, bs):
            blocks_in.append(bytes(a ^ b for a, b in zip(pt[i:i + bs], prev)))
            prev = ct[i:i + bs]
            blocks_out.append(prev)
    else:  # CTR
        ctr = int.from_bytes(_get(rec, "IV", path), "big")
        for i in range(0, len(pt) - len(pt) % bs, bs):
            blocks_in.append(((ctr + i // bs) % (1 << (8 * bs))).to_bytes(bs, "big"))
            blocks_out.append(bytes(a ^ b for a, b in zip(pt[i:i + bs], ct[i:i + bs])))
    bin_, bout = b"".join(blocks_in), b"".join(blocks_out)
    if not bin_ or len(bin_) % bs:
        return None
    return BlockVector(id=vid, key=key, pt=bin_, ct=bout, block_bytes=bs,
                       comment=comment + ("" if mode == "ECB" else f" ({mode} as ECB blocks)"),
                       algorithm=alg, origin=where)
