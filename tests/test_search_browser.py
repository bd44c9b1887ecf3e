"""The search as a player uses it, typed into the real search box of the bundled site in Chromium at
phone (390 px) and desktop (1280 px) widths: snippets with the matched words marked, a game's results
first with the switch to all games, the root page's section switch, typos in Russian and English,
decomposed Unicode, common words, one result per concept; and the Python replay agreeing with each."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from browser import make_driver, search, serve, wait

from generator.render.search import payload_of, replay, script_config

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(bundled_build: Path):
    with serve(bundled_build / "site") as url:
        yield url


@pytest.fixture(scope="module", params=[390, 1280], ids=["phone", "desktop"])
def driver(request):
    chrome = make_driver(request.param, 844)
    yield chrome
    chrome.quit()


@pytest.fixture(scope="module")
def replayed(bundled_build: Path):
    """(lang, query, game) -> the entries the Python replay shows."""
    site = bundled_build / "site"
    folding = script_config((site / "assets" / "kb-languages.js").read_text(encoding="utf-8"))["fold"]

    def run(lang: str, query: str, game: str | None = None) -> list[str]:
        folder = site / "search" / lang
        return [r["id"] for r in replay(query, lambda name: payload_of((folder / name).read_text(encoding="utf-8")), folding, game)]

    return run


def shown(driver) -> list[dict]:
    """The results on screen: entry, title, snippet, and the texts of their <mark>s."""
    return driver.execute_script("""
        return Array.from(document.querySelectorAll('.kb-search-results a.kb-search-result')).map(a => ({
          entry: a.dataset.entry, title: a.querySelector('.kb-search-title').textContent,
          snippet: (a.querySelector('.kb-search-snippet') || {textContent: ''}).textContent,
          marks: Array.from(a.querySelectorAll('mark')).map(m => m.textContent),
          markup: Array.from(a.querySelectorAll('mark')).every(m => m.children.length === 0)}))""")


def press(driver, label: str, scope: str) -> list[dict]:
    """Tap the scope button named `label`; wait until the results are those of `scope`."""
    button = next(b for b in driver.find_elements("css selector", ".kb-search-scope") if b.text == label)
    button.click()
    wait(driver, 10).until(lambda d: d.execute_script("return document.querySelector('.kb-search').dataset.scope") == scope)
    return shown(driver)


def test_results_show_a_snippet_with_the_matched_words_marked(driver, server):
    driver.get(f"{server}/en/index.html")
    search(driver, "retreating")
    results = shown(driver)
    first = results[0]
    assert first["entry"] == "battlelore/retreat"
    assert first["snippet"] and any(m.lower().startswith("retreat") for m in first["marks"])
    assert all(r["markup"] for r in results)  # a <mark> holds text only
    marked = [m for r in results for m in r["marks"]]
    assert marked and all(m.lower().startswith("retreat") for m in marked), marked
    # the results list fits the screen's width
    width = driver.execute_script("return document.querySelector('.kb-search-results').getBoundingClientRect().right")
    assert width <= driver.execute_script("return window.innerWidth")


def test_a_games_page_leads_with_its_results_and_one_tap_shows_all_games(driver, server, replayed):
    driver.get(f"{server}/en/marauders/index.html")
    here = [r["entry"] for r in search(driver, "scoring")]
    assert here[0].startswith("marauders/") and "marauders/victory-point-table" in here
    assert here == replayed("en", "scoring", "marauders")
    pressed = driver.find_elements("css selector", ".kb-search-scope[aria-pressed='true']")
    assert [b.text for b in pressed] == ["This game first"]
    everywhere = [r["entry"] for r in press(driver, "All games", "")]
    assert everywhere == replayed("en", "scoring") and not everywhere[0].startswith("marauders/")
    assert [b.text for b in driver.find_elements("css selector", ".kb-search-scope[aria-pressed='true']")] == ["All games"]
    again = [r["entry"] for r in press(driver, "This game first", "marauders")]
    assert again == here


def test_the_scope_labels_are_in_the_readers_language(driver, server):
    driver.get(f"{server}/ru/battlelore/index.html")
    search(driver, "отступление")
    labels = [b.text for b in driver.find_elements("css selector", ".kb-search-scope")]
    assert labels == ["Сначала эта игра", "Все игры"]


def test_the_root_page_searches_a_section_named_and_switchable(driver, server, replayed):
    driver.get(f"{server}/index.html")
    search(driver, "dominance")
    buttons = driver.find_elements("css selector", ".kb-search-scope")
    assert [b.get_attribute("lang") for b in buttons] == ["en", "pl", "ru"]
    assert [b.text for b in buttons if b.get_attribute("aria-pressed") == "true"] == ["English"]  # Chromium's language here
    results = press(driver, "Русский", "ru")
    assert [r["entry"] for r in results] == replayed("ru", "dominance")
    links = driver.execute_script("return Array.from(document.querySelectorAll('a.kb-search-result')).map(a => a.href)")
    assert links and all(f"{server}/ru/" in link for link in links)


@pytest.mark.parametrize("lang, query", [("ru", "отсупление"), ("ru", "отступленне"), ("en", "retraet"), ("en", "rertreat")])
def test_a_one_letter_slip_in_a_long_word_still_finds_the_entry(driver, server, replayed, lang, query):
    driver.get(f"{server}/{lang}/index.html")
    results = search(driver, query)
    assert results[0]["entry"] == "battlelore/retreat"
    assert [r["entry"] for r in results] == replayed(lang, query)
    assert shown(driver)[0]["marks"]  # the word it was taken for is marked


def test_decomposed_input_finds_what_composed_input_finds(driver, server):
    driver.get(f"{server}/pl/index.html")
    composed = [r["entry"] for r in search(driver, "żetony Spaczenia")]
    decomposed = unicodedata.normalize("NFD", "żetony Spaczenia")
    assert decomposed != "żetony Spaczenia"
    assert [r["entry"] for r in search(driver, decomposed)] == composed and composed[0] == "citow/warpstone-tokens"


@pytest.mark.parametrize(
    "lang, query, want",
    [
        ("en", "what is a retreat", "battlelore/retreat"),
        ("ru", "что такое отступление", "battlelore/retreat"),
        ("pl", "czy to jest przyzywanie", "citow/summoning-followers"),
    ],
)
def test_common_words_do_not_outrank_the_term(driver, server, replayed, lang, query, want):
    driver.get(f"{server}/{lang}/index.html")
    results = [r["entry"] for r in search(driver, query)]
    assert results[0] == want and results == replayed(lang, query)


def test_one_result_per_concept(driver, server, replayed):
    driver.get(f"{server}/ru/index.html")
    titles = [r["title"] for r in search(driver, "брод")]
    fords = [t for t in titles if t.lower().split(" (")[0] == "брод"]
    assert fords == ["Брод (ландшафт)"], titles
    assert [r["entry"] for r in shown(driver)] == replayed("ru", "брод")


@pytest.mark.parametrize("lang, query", [("en", "chance of 3 hits with 4 dice"), ("ru", "вероятность 2 ранений с 3 кубиками"), ("pl", "kalkulator")])
def test_a_question_about_odds_lands_on_its_answer_table_or_calculator(driver, server, lang, query):
    driver.get(f"{server}/{lang}/index.html")
    first = search(driver, query)[0]
    assert "/calculators.html" in first["href"], first
    driver.get(first["href"])
    anchor = first["href"].split("#")[1] if "#" in first["href"] else ""
    where = "var e = document.getElementById(arguments[0]); return e && e.className + ' ' + e.tagName;"
    found = driver.execute_script(where, anchor) if anchor else ""
    assert not anchor or "kb-calc" in found or "H3" in found, (first, found)  # the calculator's block, or the answer table's heading
    assert driver.find_elements("css selector", ".kb-answer-tables, .kb-calc")
