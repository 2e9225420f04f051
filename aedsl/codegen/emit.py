"""Jinja2 emission helpers shared by the targets: the template environment and spec-line
comments. Templates live in `aedsl/backends/<target>/templates/`; output must be deterministic
(no dates, no dict/set order that depends on hashing)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2


@lru_cache(maxsize=None)
def environment(template_dir: str) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(template_dir), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=False, lstrip_blocks=False,
                              autoescape=False)


def render(template_dir: str | Path, name: str, **ctx) -> str:
    return environment(str(template_dir)).get_template(name).render(**ctx)


class SpecLines:
    """Source text of spec files, for comments naming the spec line a block comes from."""

    def __init__(self):
        self.files: dict[str, list[str]] = {}

    def comment(self, loc) -> str:
        if not loc:
            return ""
        path, line = loc[0], loc[1]
        if path not in self.files:
            try:
                self.files[path] = Path(path).read_text().splitlines()
            except OSError:
                self.files[path] = []
        lines = self.files[path]
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return f"{Path(path).name}:{line}: {text}"
