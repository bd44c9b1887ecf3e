"""The rules-check catalogues (data/games/<game>/checks.yaml) are data that `validate` checks: a param, table or
entry a check reads that the data lacks is a coded problem at its line, never a crash of the package."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import GAMES, REPO, bundled_kb, bundled_resolved

from generator.render.rules_data import render_rules_data
from generator.validate.validate import validate

pytestmark = pytest.mark.unit
CORRUPTION = "games/citow/chapters/30-corruption-phase.yaml"


def _copy_of_data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    shutil.copytree(REPO / "data", data)
    return data


def _problem_lines(data: Path) -> list[str]:
    _, problems = validate(data)
    return [f"{p.path}:{p.line}:{p.col}: {p.code} {p.message}" for p in sorted(problems.items)]


def test_a_renamed_param_is_a_coded_problem_at_the_entry(tmp_path):
    data = _copy_of_data(tmp_path)
    chapter = data / CORRUPTION
    lines = chapter.read_text(encoding="utf-8").split("\n")
    number = next(i for i, line in enumerate(lines) if line.strip() == "ruin_threshold: 12")
    lines[number] = lines[number].replace("ruin_threshold", "ruination_threshold")
    chapter.write_text("\n".join(lines), encoding="utf-8")
    params_line = max(i for i, line in enumerate(lines[:number], 1) if line.strip() == "params:")
    catalogue = (data / "games/citow/checks.yaml").read_text(encoding="utf-8").split("\n")
    corruption = catalogue.index("  corruption:")
    named_line = next(i for i, line in enumerate(catalogue[corruption:], corruption + 1) if "citow/placing-corruption-tokens:" in line)
    assert _problem_lines(data) == [
        f"data/{CORRUPTION}:{params_line}:5: E041 rules-check citow.corruption (data/games/citow/checks.yaml:{named_line}) "
        "reads params.ruin_threshold of 'citow/placing-corruption-tokens'; its params: corruption_tokens_per_cultist, "
        "ruination_threshold, warpstone_counts_as_corruption"
    ]


def test_an_unknown_entry_in_the_catalogue_is_reported_at_its_line(tmp_path):
    data = _copy_of_data(tmp_path)
    catalogue = data / "games/wizards-quest/checks.yaml"
    text = catalogue.read_text(encoding="utf-8")
    catalogue.write_text(text.replace("implements: [wizards-quest/reinforcement]", "implements: [wizards-quest/reinforcements]"), encoding="utf-8")
    line = next(i for i, row in enumerate(text.split("\n"), 1) if "implements: [wizards-quest/reinforcement]" in row)
    assert _problem_lines(data) == [f"data/games/wizards-quest/checks.yaml:{line}:18: E040 no entry 'wizards-quest/reinforcements' in the data"]


def test_rules_data_holds_what_each_check_names():
    kb = bundled_kb()
    files = dict(render_rules_data(bundled_resolved()))
    assert sorted(files) == sorted(f"{game}.json" for game in GAMES)
    citow = json.loads(files["citow.json"])
    assert citow["checks"]["corruption"]["implements"] == kb.checks["citow"]["corruption"]["implements"]
    assert citow["entries"]["citow/placing-corruption-tokens"]["params"]["ruin_threshold"] == 12
    assert citow["entries"]["citow/ruination-card-1-table"]["table"][0]["region"]["en"]
    assert "*" not in citow["entries"]["citow/battle-dice"]["text"]  # Markdown emphasis dropped, text kept
