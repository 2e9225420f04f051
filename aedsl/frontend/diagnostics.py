"""Errors in a spec, reported as `file:line:col: error: reason`, the source line and a caret.

Every problem the frontend finds is raised as a `SpecError`; the CLI prints `render()` and exits
with code 2. Nothing else may escape the frontend (a fuzz test holds it to that).
"""
from __future__ import annotations


class SpecError(Exception):
    def __init__(self, message: str, path: str = "<spec>", line: int = 0, column: int = 0,
                 source: str | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.source = source

    def render(self) -> str:
        head = f"{self.path}:{self.line}:{self.column}: error: {self.message}"
        if not self.source or self.line <= 0:
            return head
        lines = self.source.splitlines()
        if self.line > len(lines):
            return head
        text = lines[self.line - 1]
        # Keep tabs in the caret's indent so it lines up under the same column in a terminal.
        indent = "".join(c if c == "\t" else " " for c in text[: max(self.column - 1, 0)])
        return f"{head}\n{text}\n{indent}^"

    def __str__(self) -> str:
        return self.render()


# The name other modules use when they mean "a diagnostic".
Diagnostic = SpecError
