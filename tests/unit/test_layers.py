"""The package's structure, checked: layers that only point down (the import-linter contracts in
pyproject.toml), no import cycle between modules (function-level imports included), and no
comparison with a target's or ISA's name outside aedsl/backends/ (the registry decides)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import grimp

from tests.paths import ROOT


def test_import_contracts_hold():
    lint = Path(sys.executable).parent / "lint-imports"
    res = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 broken" in res.stdout


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.find_modules_directly_imported_by(w)))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_import_cycles():
    assert _cycles(grimp.build_graph("aedsl")) == []


def test_cycle_finder_finds_a_cycle():
    class G:
        modules = {"a", "b", "c"}

        @staticmethod
        def find_modules_directly_imported_by(m):
            return {"a": {"b"}, "b": {"a"}, "c": {"a"}}[m]
    assert _cycles(G) == [["a", "b"]]


NAME_TEST = re.compile(r"""(==|!=|\bin\b)\s*\(?\s*["'](msp430x?|armv6m)["']|["'](msp430x?|armv6m)["']\s*(==|!=)""")


def test_no_target_name_comparisons_outside_backends():
    found = []
    for p in sorted((ROOT / "aedsl").rglob("*.py")):
        rel = p.relative_to(ROOT).as_posix()
        if rel.startswith("aedsl/backends/"):
            continue
        for i, line in enumerate(p.read_text().splitlines(), 1):
            if NAME_TEST.search(line) or re.search(r"\.target\s*(==|!=|in\b)", line):
                found.append(f"{rel}:{i}: {line.strip()}")
    assert found == []


def test_name_pattern_catches_comparisons():
    for bad in ('if chip.isa == "armv6m":', "x = 'msp430x' != isa", 'if isa in ("msp430", "msp430x"):'):
        assert NAME_TEST.search(bad), bad
