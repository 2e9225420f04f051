"""The parser's tables kept on disk: written once, read back into a parser that gives the same
trees, and rebuilt when the cached file is damaged or cannot be written."""
from aedsl.frontend import parser

SPEC = "spec s\nfn f(x: u16, y: u16) -> u16 {\n    return (x ^ y) >>> 3\n}\n"


def _fresh(monkeypatch, cache):
    monkeypatch.setenv("AEDSL_CACHE", str(cache))
    parser._parser.cache_clear()
    try:
        return parser._parser()
    finally:
        parser._parser.cache_clear()


def test_tables_written_once_and_read_back(monkeypatch, tmp_path):
    built = _fresh(monkeypatch, tmp_path)
    files = list((tmp_path / "lark").iterdir())
    assert [f.suffix for f in files] == [".pickle"]            # renamed, no private file left
    stamp = files[0].stat().st_mtime_ns
    loaded = _fresh(monkeypatch, tmp_path)
    assert loaded is not built
    assert files[0].stat().st_mtime_ns == stamp                 # read, not written again
    assert loaded.parse(SPEC) == built.parse(SPEC)
    tree = loaded.parse(SPEC)
    assert max(t.meta.line for t in tree.iter_subtrees() if not t.meta.empty) == 3   # positions kept


def test_damaged_cache_is_rebuilt(monkeypatch, tmp_path):
    reference = _fresh(monkeypatch, tmp_path / "a").parse(SPEC)
    _fresh(monkeypatch, tmp_path / "b")
    (cached,) = (tmp_path / "b" / "lark").iterdir()
    cached.write_bytes(cached.read_bytes()[:200])
    assert _fresh(monkeypatch, tmp_path / "b").parse(SPEC) == reference


def test_unwritable_cache_only_costs_the_build(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert _fresh(monkeypatch, blocker).parse(SPEC) == _fresh(monkeypatch, tmp_path / "ok").parse(SPEC)
