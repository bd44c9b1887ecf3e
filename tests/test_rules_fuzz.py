"""rules_check fuzzed from its input schemas (issue 13): documents drawn from each check's input schema (mostly
fitting, some broken in one place) go through the command line's main() in-process; the exit status is 0, 1 or 2,
an answer validates against the output schema, a refusal is one `error:` line, and nothing else escapes."""

from __future__ import annotations

import io
import json
import sys

import pytest
from conftest import GAMES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schema_strategy import documents

import rules_check
from rules_check import __main__ as cli_main
from rules_check.core import schema

pytest_plugins = ["rules_fixtures"]  # the fixtures rules_data and rc

pytestmark = pytest.mark.unit
CHECKS = [(game, name[: -len("_input")]) for game in GAMES for name in schema(game)["$defs"] if name.endswith("_input")]


def test_every_check_is_fuzzed(rules_data):
    registered = sum(len(rules_check.game(game, rules_data).check_methods()) for game in GAMES)
    assert len(CHECKS) == registered >= 33


@pytest.mark.parametrize("game,check", CHECKS, ids=[f"{g}.{c}" for g, c in CHECKS])
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(data=st.data())
def test_cli_answers_or_refuses(rules_data, monkeypatch, capsys, game, check, data):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    defs = schema(game)["$defs"]
    document = data.draw(documents(defs[f"{check}_input"], defs), label="input")
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(document)))
    status = cli_main.main([game, check])  # (how long the largest inputs take: scripts/bench_rules_input.py prints it)
    out, err = capsys.readouterr()
    assert status in (0, 1, 2)
    if status == 0:
        rules_check.validate(game, check, "output", json.loads(out))
        assert err == ""
    else:
        assert out == "" and err.startswith("error: ") and "Traceback" not in err


def test_the_largest_hit_probability_is_answered_exactly(rc):
    """The schema's largest question (60 dice, 200 hits) took 5.6 s with Fractions; integer sums are exact and fast
    (scripts/bench_rules_input.py prints the time of the largest inputs: a timing here would fail on a busy machine)."""
    result = rc.run("citow", "hit_probability", {"dice": 60, "hits": 200})
    assert 0 < result["probability"] < 1e-70
