"""Reader details on small hand-written files: Crypto++ value notations and field persistence,
format errors that name file:line, and format detection."""
from __future__ import annotations

import pytest

from aedsl import vectors
from aedsl.vectors import cryptopp
from aedsl.vectors.records import Origin, VectorFormatError

HERE = Origin("t.txt", 3)


def test_cryptopp_value_notations():
    assert cryptopp.decode_value("00 01 0203", HERE) == bytes([0, 1, 2, 3])
    assert cryptopp.decode_value('"abc" 0x44', HERE) == b"abcD"
    assert cryptopp.decode_value("r3 00 ff", HERE) == b"\x00\x00\x00\xff"
    assert cryptopp.decode_value('r2 "ab"', HERE) == b"abab"
    assert cryptopp.decode_value("", HERE) == b""
    with pytest.raises(VectorFormatError, match=r"t.txt:3"):
        cryptopp.decode_value("LE 0001", HERE)


def test_cryptopp_fields_persist_and_continue(tmp_path):
    f = tmp_path / "v.txt"
    f.write_text(
        "AlgorithmType: AuthenticatedSymmetricCipher\r\nName: AES/EAX\r\n"
        "Key: 233952DEE4D5ED5F9B9C6D6FF80FF478\r\nIV: 62EC67F9C3A4A407 \\\r\n  FCB2A8C49031A8B3\r\n"
        "Header: 6BFB914FD07EAE6B\r\nPlaintext:\r\nCiphertext: E037830E8389F27B025A2D6527E79D01\r\n"
        "Test: Encrypt\r\n#\r\nCiphertext: E137830E8389F27B025A2D6527E79D01\r\nTest: NotVerify\r\n")
    a, b = vectors.load(f)
    assert a.nonce.hex() == "62ec67f9c3a4a407fcb2a8c49031a8b3" and a.valid and a.origin.line == 9
    assert b.key == a.key and b.nonce == a.nonce and not b.valid and b.tag[0] == 0xE1
    from aedsl.engines import reference as refengines
    from aedsl.vectors import runner
    assert runner.run(refengines.AesEax(), [a, b]).summary() == "2 passed, 0 failed"


def test_lwc_bad_ct_length_names_the_line(tmp_path):
    f = tmp_path / "LWC_AEAD_KAT_128_128.txt"
    f.write_text("Count = 1\nKey = 00\nNonce = 00\nPT = \nAD = \nCT = 0011\n\n"
                 "Count = 2\nKey = 00\nNonce = 00\nPT = 00\nAD = \nCT = 0011\n")
    with pytest.raises(VectorFormatError, match=r"LWC_AEAD_KAT_128_128.txt:8: CT is 2 bytes"):
        vectors.load(f)


def test_bad_hex_names_the_line(tmp_path):
    f = tmp_path / "x.rsp"
    block = "00" * 16
    f.write_text(f"# CAVS\n[ENCRYPT]\n\nCOUNT = 0\nKEY = zz\nPLAINTEXT = {block}\nCIPHERTEXT = {block}\n")
    with pytest.raises(VectorFormatError, match=r"x.rsp:4: bad hex"):
        vectors.load(f)


def test_undetectable_format_is_an_error(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("hello\n")
    with pytest.raises(VectorFormatError, match="cannot tell"):
        vectors.load(f)
    with pytest.raises(VectorFormatError, match="unknown vector format"):
        vectors.load(f, fmt="nope")
