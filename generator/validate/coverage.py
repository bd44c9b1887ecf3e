"""Which source lines are carried into entries, which are classed as noise, and which are neither."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TypedDict

from ..base.linerange import format_lines, range_lines
from ..load.model import KnowledgeBase


def traced_lines(kb: KnowledgeBase) -> dict[str, set[int]]:
    """Source id -> lines carried by entries and chapter headings."""
    traced: dict[str, set[int]] = {source_id: set() for source_id in kb.sources}
    items = list(kb.entries.values()) + [c.data for c in kb.chapters.values()]
    for item in items:
        for origin in item.get("origin", {}).values():
            if "source" in origin and origin["source"] in traced:
                traced[origin["source"]].update(range_lines(origin["lines"]))
    return traced


class SourceCoverage(TypedDict):
    """One source file's coverage (`coverage --json` prints lines, traced, noise and untraced)."""

    source: str  # its id
    lines: int  # non-blank lines
    traced: int  # of them, carried into entries
    noise: int  # of the rest, classed as noise
    noise_classes: dict[str, int]  # how many noise lines of each class
    untraced: list[int]  # the lines neither traced nor noise


def coverage(kb: KnowledgeBase) -> dict[str, SourceCoverage]:
    """Per source file: non-blank line count, traced, noise (with classes) and untraced lines."""
    traced = traced_lines(kb)
    report: dict[str, SourceCoverage] = {}
    for source in sorted(kb.sources.values(), key=lambda s: s.file):
        non_blank = {n for n, line in enumerate(source.lines, 1) if line.strip()}
        noise_class: dict[int, str] = {}
        for item in kb.noise:
            if item.source == source.id:
                for n in range_lines(item.lines):
                    noise_class.setdefault(n, item.kind)
        carried = non_blank & traced[source.id]
        noise = {n for n in non_blank - carried if n in noise_class}
        report[source.file] = {
            "source": source.id,
            "lines": len(non_blank),
            "traced": len(carried),
            "noise": len(noise),
            "noise_classes": dict(sorted(Counter(noise_class[n] for n in noise).items())),
            "untraced": sorted(non_blank - carried - noise),
        }
    return report


def format_report(report: Mapping[str, SourceCoverage]) -> str:
    rows = [f"{'source file':<28} {'id':<18} {'non-blank':>9} {'traced':>7} {'noise':>6} {'untraced':>9}"]
    for name, r in report.items():
        rows.append(f"{name:<28} {r['source']:<18} {r['lines']:>9} {r['traced']:>7} {r['noise']:>6} {len(r['untraced']):>9}")
        if r["noise_classes"]:
            rows.append("    noise: " + ", ".join(f"{k} {v}" for k, v in r["noise_classes"].items()))
        if r["untraced"]:
            rows.append("    untraced lines: " + format_lines(r["untraced"]))
    return "\n".join(rows)
