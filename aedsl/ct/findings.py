"""What the constant-time analyses report: one `Finding` per offending place, named by its spec
line, ordered deterministically.

Kinds: "branch" (a conditional branch on a secret), "loop" (a loop whose bound or exit depends
on a secret), "variable-time" (an instruction whose latency depends on a secret operand on this
chip), "index" (a memory access whose address depends on a secret: allowed on the cacheless
chips by default, refused under --strict), "untracked" (a store the machine-code analysis cannot
place: refused, since every later load could then be wrong).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

KINDS = ("branch", "loop", "variable-time", "untracked", "index")


@dataclass(frozen=True, order=True)
class Finding:
    kind: str
    loc: tuple = ()              # (path, line, column) of the spec statement, () if unknown
    level: str = "ir"            # "ir" (the IR the target compiled) | "machine" (the selected code)
    function: str = ""
    detail: str = ""
    memory: str = field(default="", compare=True)   # the table/memory an "index" finding reads or writes

    @property
    def where(self) -> str:
        if not self.loc:
            return "<no spec line>"
        path, line = self.loc[0], self.loc[1]
        return f"{path}:{line}"

    def source_line(self) -> str:
        return _line(self.loc[0], self.loc[1]) if self.loc else ""

    def render(self) -> str:
        text = f"{self.where}: {self.kind}: {self.detail} [{self.level}, {self.function}]"
        src = self.source_line()
        return text + (f"\n    {src.strip()}" if src else "")

    def as_dict(self) -> dict:
        return {"kind": self.kind, "where": self.where, "level": self.level, "function": self.function,
                "detail": self.detail, "memory": self.memory, "source": self.source_line().strip()}


@lru_cache(maxsize=64)
def _lines(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text(encoding="utf-8").splitlines())
    except OSError:
        return ()


def _line(path: str, line: int) -> str:
    lines = _lines(str(path))
    return lines[line - 1] if 0 < line <= len(lines) else ""
