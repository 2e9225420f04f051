"""Paths the tests share: the repository root and its spec library."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
