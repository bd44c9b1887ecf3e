"""Every problem code is in the one table (generator/base/problems.py CODES) with its meaning and hint,
and docs/error-codes.md is that table as `python -m generator codes` prints it."""

from __future__ import annotations

import ast
import re

import pytest
from conftest import REPO

from generator.__main__ import cmd_codes
from generator.base.errors import KbError
from generator.base.paths import GENERATOR
from generator.base.problems import CODES

pytestmark = pytest.mark.unit

CODE = re.compile(r"[BEIOU]\d{3}")


def codes_named_in_source() -> dict[str, str]:
    """Every string literal of the generator's code that is a problem code -> a file naming it."""
    found = {}
    for path in sorted(GENERATOR.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.fullmatch(node.value):
                found.setdefault(node.value, str(path.relative_to(REPO)))
    return found


def test_every_code_the_generator_names_is_in_the_table():
    named = codes_named_in_source()
    assert {code: path for code, path in named.items() if code not in CODES} == {}
    assert {code[0] for code in named} == {"B", "E", "I", "O", "U"}  # the scan sees every family


def test_every_code_of_the_table_has_a_meaning_and_a_hint():
    assert all(CODE.fullmatch(code) and meaning and hint for code, (meaning, hint) in CODES.items())


def test_an_error_takes_its_hint_from_the_table_and_an_unknown_code_throws():
    class Busy(KbError):
        code = "B002"

    class Unknown(KbError):
        code = "B999"

    assert Busy("busy").hint == CODES["B002"][1] and Busy("busy", hint="this one").hint == "this one"
    with pytest.raises(KeyError):
        Unknown("no such code")


def test_the_codes_doc_is_the_table(capsys):
    cmd_codes(None)
    assert (REPO / "docs" / "error-codes.md").read_text(encoding="utf-8") == capsys.readouterr().out
