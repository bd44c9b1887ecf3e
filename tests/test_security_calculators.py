"""Hostile text in the calculators: every label, title and answer sentence of every game's calculators.yaml carries
a payload (hostile.spoil_calculators), the bundled site is built with them, and each game's Calculators page is opened
in Chromium with every calculator opened and answered (its worked example, else the empty form's refusal): nothing
runs, nothing on the page could run, and the texts are shown as text. (The mini data of test_security has no checks.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import answer_every_calculator, serve
from conftest import BUNDLED_GAMES, REPO, built_games
from hostile import MATERIAL_INLINE, UNSAFE, build_spoiled, ran, spoil_calculators

from generator.resolve.pages import CALCULATORS

pytestmark = pytest.mark.browser

# Each game with calculators in one of its languages, in turn: the same scripts render every language (each
# language's texts are spoiled alike).
CALCULATING = [game for game in BUNDLED_GAMES if (REPO / "data" / "games" / game / "calculators.yaml").is_file()]
OPENED = [(game, sorted(BUNDLED_GAMES[game]["languages"])[n % len(BUNDLED_GAMES[game]["languages"])]) for n, game in enumerate(CALCULATING)]


@pytest.fixture(scope="module")
def spoiled_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("spoiled-calculators")

    def spoil(kb) -> int:
        kb.aids.clear()  # a label this long fits no card (the layout refuses it); the aids' escaping: test_security
        return spoil_calculators(kb)

    placed = build_spoiled(REPO / "data", out, spoil)
    assert placed and placed[0] > 200, placed
    return out / "site"


@pytest.mark.parametrize("game, lang", OPENED)
def test_every_calculator_answered_with_payloads_in_its_texts_runs_nothing(spoiled_site: Path, driver, game: str, lang: str):
    spec = built_games(spoiled_site)[game][lang]
    labels = [text for check in spec["checks"].values() for text in [check["title"], *check["labels"].values()]]
    assert any("kbxss" in text for text in labels)  # the page's calculators carry the payloads
    with serve(spoiled_site) as url:
        driver.get(f"{url}/{lang}/{game}/{CALCULATORS.html}")
        assert ran(driver) is None
        assert answer_every_calculator(driver, spec) is None
        answers = driver.execute_script("return [...document.querySelectorAll('.kb-calc-answer')].map(a => a.textContent)")
        assert len(answers) == len(spec["checks"]) and any("kbxss" in answer for answer in answers)  # shown as text
        assert ran(driver) is None
        assert driver.execute_script(UNSAFE, list(MATERIAL_INLINE)) == []
