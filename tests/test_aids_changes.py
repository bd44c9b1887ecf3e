"""Changes since your print (issue 28, point 5): the version printed on an aid is the date its rulings
stand at (the latest `clarification.reviewed` of the game), and it leads to a page per game and
language listing the game's rulings by review date, newest first; the game's page links it beside
the aids. Read from the built site and the printed PDFs."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from conftest import REPO
from pypdf import PdfReader

GAMES = ("battlelore", "citow", "marauders", "wizards-quest")


@pytest.fixture(scope="module")
def resolved():
    from generator.resolve.resolve import resolve
    from generator.validate.validate import load_valid
    return resolve(load_valid(REPO / "data"))


def reviewed(resolved, game: str) -> dict[str, str]:
    """Clarification id -> its review date, for one game."""
    return {entry_id: str(entry["clarification"]["reviewed"]) for entry_id, entry in resolved.kb.entries.items()
            if resolved.kb.game_of(entry_id) == game and "reviewed" in entry.get("clarification", {})}


def groups(html: str) -> list[tuple[str, list[str]]]:
    """The page's (date heading, [linked hrefs]) groups, in page order."""
    article = html[html.index('<article'):html.index('</article>')]
    found = []
    for part in re.split(r'(?=<h2 id="v\d{4}-\d\d-\d\d")', article)[1:]:
        date = re.match(r'<h2 id="v(\d{4}-\d\d-\d\d)"', part)[1]
        found.append((date, re.findall(r'<li><a href="([^"]+)"', part)))
    return found


@pytest.mark.integration
@pytest.mark.parametrize("game", GAMES)
def test_each_game_has_a_changes_page_per_language_newest_first(bundled_build: Path, resolved, game: str):
    dates = reviewed(resolved, game)
    assert dates, "every bundled game has reviewed rulings"
    for lang in resolved.kb.games[game]["languages"]:
        ui = resolved.languages.ui(lang)
        page = bundled_build / "site" / lang / game / "changes.html"
        html = page.read_text(encoding="utf-8")
        assert "<h1" in html and ui["aid_changes"] in html, lang
        assert ui["aid_changes_intro"] in html.replace("&#39;", "'"), lang
        found = groups(html)
        assert [d for d, _ in found] == sorted(set(dates.values()), reverse=True), (lang, found)
        listed = sum(len(hrefs) for _, hrefs in found)
        assert listed == len(dates), (lang, listed, len(dates))
        for date, hrefs in found:
            want = sorted(resolved.anchor_of(e) for e, d in dates.items() if d == date)
            assert sorted(h.split("#", 1)[1] for h in hrefs) == sorted(want), (lang, date)


@pytest.mark.integration
@pytest.mark.parametrize("game", GAMES)
def test_the_games_page_links_its_changes_next_to_the_aids(bundled_build: Path, resolved, game: str):
    for lang in resolved.kb.games[game]["languages"]:
        html = (bundled_build / "site" / lang / game / "index.html").read_text(encoding="utf-8")
        aids = html[html.index('id="aids"'):html.index('id="sources"')]
        assert f'href="changes.html">{resolved.languages.ui(lang)["aid_changes"]}</a>' in aids, lang


@pytest.mark.integration
@pytest.mark.parametrize("game", GAMES)
def test_every_printed_page_names_its_date_and_the_changes_page(bundled_build: Path, resolved, game: str):
    """The version on the aid is the page's newest date, and every page of both PDFs says where the
    changes since it are."""
    newest = max(reviewed(resolved, game).values())
    for lang in resolved.kb.games[game]["languages"]:
        if not (bundled_build / "site/cards" / f"{game}-{lang}-sheet-a4.pdf").exists():
            continue
        ui = resolved.languages.ui(lang)
        for kind in ("sheet", "cards"):
            for paper in ("a4", "letter"):
                reader = PdfReader(io.BytesIO((bundled_build / "site/cards" / f"{game}-{lang}-{kind}-{paper}.pdf").read_bytes()))
                for number, page in enumerate(reader.pages, 1):
                    text = " ".join(page.extract_text().replace("-\n", "").split())
                    assert f"{ui['data_version']} {newest}" in text, (lang, kind, paper, number)
                    assert f"{lang}/{game}/changes.html" in text.replace(" ", ""), (lang, kind, paper, number)
