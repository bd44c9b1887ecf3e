"""Source line ranges written as "556-562" or "566-567, 572-578" (1-based, inclusive)."""

from __future__ import annotations

from collections.abc import Iterable

from .kept import kept_function


@kept_function(1 << 14)
def parse_ranges(spec: str) -> tuple[tuple[int, int], ...]:
    """Return ((first, last), ...). Assumes the schema pattern already matched. Kept per spec: the
    checks ask for the same ranges many times."""
    ranges = []
    for part in str(spec).split(","):
        first, _, last = part.strip().partition("-")
        ranges.append((int(first), int(last or first)))
    return tuple(ranges)


def range_lines(spec: str) -> list[int]:
    """Every line number a range spec names, in order."""
    return [n for first, last in parse_ranges(spec) for n in range(first, last + 1)]


def format_lines(numbers: Iterable[int]) -> str:
    """Compress line numbers into a range spec: [1,2,3,7] -> "1-3, 7"."""
    runs: list[list[int]] = []  # [first, last] of each run of consecutive numbers
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(f"{first}-{last}" if last != first else f"{first}" for first, last in runs)
