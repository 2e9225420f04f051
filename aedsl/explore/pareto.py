"""The Pareto front of (ROM, cycles/byte) points: those no other point beats on both."""
from __future__ import annotations


def front(points: dict) -> set:
    """Keys of `points` (key -> (x, y), or None when not measured) that no other point
    dominates (no worse on both coordinates, better on one). Equal points are both on it."""
    ok = {k: v for k, v in points.items() if v is not None}
    return {k for k, (x, y) in ok.items()
            if not any((x2 <= x and y2 <= y) and (x2 < x or y2 < y) for k2, (x2, y2) in ok.items() if k2 != k)}
