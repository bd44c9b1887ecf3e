"""Helpers of the rules_check tests: the data files made in-process (no site build), games whose answers are
validated against their output schemas, and the CLI in a subprocess. The fixtures are in rules_fixtures.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO

import rules_check
from generator.render.rules_data import render_rules_data
from generator.resolve.resolve import Resolved
from generator.write.release import write_files


def make_rules_data(resolved: Resolved, folder: Path) -> Path:
    """rules_check/data/*.json of a resolved knowledge base, as `build` writes them: rendered and written."""
    write_files(folder, render_rules_data(resolved))
    return folder


class OutputChecked:
    """A game's rules whose checks validate their answer against the check's output schema before returning it."""

    def __init__(self, rules: rules_check.Game):
        self._rules = rules
        self._checks = {method: name for name, method in rules.check_methods().items()}

    def __getattr__(self, attribute: str):
        value = getattr(self._rules, attribute)
        if attribute not in self._checks:
            return value

        def checked(**inputs):
            result = value(**inputs)
            rules_check.validate(self._rules.data.game, self._checks[attribute], "output", result)
            return result

        return checked


def cli(data_folder: Path, *args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """python -m rules_check ARGS, with the package from the repository and the data from `data_folder`."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "RULES_CHECK_DATA": str(data_folder)}
    return subprocess.run(
        [sys.executable, "-m", "rules_check", *args], input=stdin, capture_output=True, text=True, cwd=REPO, env=env, timeout=timeout
    )
