"""One mistake, one error: every slip an editor makes on a line of structure (a key indented two
spaces too deep or too shallow, the space after its colon or the colon lost, the line deleted) in
the mini data gives at most one problem, in the file of the slip: never a cascade of consequences
in it or in other files. (`tests/fixtures/invalid/` pins the exact lines of each kind of slip.)"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import MINI

from generator.validate.validate import validate

pytestmark = pytest.mark.unit

FILES = ["games/mini/chapters/10-rules.yaml", "games/mini/glossary.yaml", "games/mini/cards.yaml", "games/mini/game.yaml"]
KEY_LINE = re.compile(r"^\s*(- )?[a-z_]+:")


def slips(line: str) -> list[tuple[str, str]]:
    """(name, the line as the slip leaves it; "" for a deleted line) of each slip of a key line."""
    found = [("indented two spaces deeper", "  " + line), ("deleted", "")]
    if line.startswith("  "):
        found.append(("indented two spaces less", line[2:]))
    if ": " in line:
        found.append(("no space after the colon", line.replace(": ", ":", 1)))
    found.append(("colon lost", re.sub(r"^(\s*(?:- )?[a-z_]+):", r"\1", line, count=1)))
    return found


def test_every_slip_of_a_key_line_gives_at_most_one_problem_in_its_file(tmp_path: Path):
    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    cascades, tried = [], 0
    for name in FILES:
        file = data / name
        original = file.read_text(encoding="utf-8")
        lines = original.split("\n")
        for n, line in enumerate(lines):
            if not KEY_LINE.match(line):
                continue
            for slip, new in slips(line):
                file.write_text("\n".join(lines[:n] + ([new] if new else []) + lines[n + 1 :]), encoding="utf-8")
                _, problems = validate(data)
                tried += 1
                if len(problems) > 1 or any(not p.path.endswith(name) for p in problems.items):
                    cascades.append(f"{name}:{n + 1} {slip} ({line.strip()}):\n{problems.report()}")
        file.write_text(original, encoding="utf-8")
    assert tried > 250
    assert cascades == [], "\n\n".join(cascades[:5])
