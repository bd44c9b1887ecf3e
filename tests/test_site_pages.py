"""The site's pages as a player meets them: term previews, accessibility (axe-core), the A–Z, the
homes, clarifications by topic, pages not found, rulings in another language, the phone layout."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import make_driver, serious_violations, serve, wait
from conftest import BUNDLED_GAMES, REPO
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from generator.resolve.pages import A_TO_Z, CLARIFICATIONS, GLOSSARY

LANGUAGES = ("en", "pl", "ru")
SAMPLE = ("index.html", "mini/index.html", "mini/10-rules.html", f"mini/{GLOSSARY.html}", f"mini/{CLARIFICATIONS.html}", "404.html")


@pytest.fixture(scope="module")
def site(mini_build: Path) -> Path:
    return mini_build / "site"


@pytest.fixture(scope="module")
def server(site: Path):
    with serve(site) as url:
        yield url


def open_preview(driver) -> str:
    """The id of the term preview open on the page, or None."""
    return driver.execute_script("const p = document.querySelector('.kb-preview:popover-open'); return p && p.id")


def test_a_tapped_term_shows_its_definition_in_place(driver, server):
    """On a /ru/ page at phone width: a tap on a linked term opens its definition beside it (the page
    stays), with links to the definition and the glossary; Escape closes it, and so does a tap outside."""
    driver.get(f"{server}/ru/mini/10-rules.html")
    term = driver.find_element("css selector", "section:has(> #retreat) a.kb-term[href$='#term-retreat']")
    term.click()
    assert driver.current_url.endswith("/ru/mini/10-rules.html")  # no navigation
    assert open_preview(driver) == "preview-term-retreat"
    preview = driver.find_element("id", "preview-term-retreat")
    assert preview.is_displayed()
    assert "Отряд, который должен отступить, отходит на 1 клетку" in preview.text
    assert "английский: retreat" in preview.text
    hrefs = [a.get_attribute("href") for a in preview.find_elements("css selector", "a")]
    assert any(h.endswith(f"{GLOSSARY.html}#term-retreat") for h in hrefs) and any(h.endswith("10-rules.html#retreat") for h in hrefs)
    box, screen = preview.rect, driver.execute_script("return [innerWidth, innerHeight]")
    assert 0 <= box["x"] and box["x"] + box["width"] <= screen[0] and 0 <= box["y"] and box["y"] + box["height"] <= screen[1]
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    wait(driver, 5).until(lambda d: open_preview(d) is None)
    term.click()
    assert open_preview(driver) == "preview-term-retreat"
    heading = driver.find_element("css selector", ".kb-page > h1")
    ActionChains(driver).move_to_element_with_offset(heading, 0, 0).click().perform()  # a tap outside
    wait(driver, 5).until(lambda d: open_preview(d) is None)
    assert driver.current_url.endswith("/ru/mini/10-rules.html")


def test_a_term_preview_opens_from_the_keyboard(driver, server):
    """A term without a defining entry shows its names in the other languages; Enter opens it, focus
    moves into it and comes back to the term when Escape closes it."""
    driver.get(f"{server}/pl/mini/10-rules.html")
    term = driver.find_element("css selector", "a.kb-term[href$='#term-unit']")
    driver.execute_script("arguments[0].focus()", term)
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    assert open_preview(driver) == "preview-term-unit"
    preview = driver.find_element("id", "preview-term-unit")
    assert "unit" in preview.text and "отряд" in preview.text
    assert driver.execute_script("return arguments[0].contains(document.activeElement)", preview)
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    wait(driver, 5).until(lambda d: open_preview(d) is None)
    assert driver.execute_script("return document.activeElement") == term


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation(driver, server, width: int, scheme: str):
    """axe-core (WCAG 2.0/2.1 A and AA rules) over a home, a game, a chapter with a ruling, a glossary,
    a clarifications page and the 404 page of every language, with every disclosure and a term preview
    open, in light and dark mode, on a phone and a desktop: no serious or critical violation."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": width < 600})
    found = []
    try:
        driver.get(f"{server}/assets/kb.css")  # not a page of Material: a system setting set here is not remembered
        driver.execute_script("localStorage.clear()")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        for lang in LANGUAGES:
            for page in SAMPLE:
                driver.get(f"{server}/{lang}/{page}")
                assert driver.execute_script("return document.body.getAttribute('data-md-color-scheme')") == (
                    "slate" if scheme == "dark" else "default"
                )
                driver.execute_script(
                    "document.querySelectorAll('details').forEach(d => d.open = true);"
                    "const term = document.querySelector('a.kb-term'); if (term) term.click();"
                )
                found += [f"{lang}/{page}: {v}" for v in serious_violations(driver)]
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    assert found == []


class Text(HTMLParser):
    """The visible text of a page's article, and its links."""

    def __init__(self):
        super().__init__()
        self.depth, self.text, self.links = 0, [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "article" or self.depth:
            self.depth += 1
        if self.depth and tag == "a":
            self.links.append(attrs.get("href"))

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.text.append(data)


def article(path: Path) -> Text:
    parsed = Text()
    parsed.feed(path.read_text(encoding="utf-8"))
    parsed.text = " ".join(" ".join(parsed.text).split())
    return parsed


@pytest.mark.parametrize(
    "lang, words, header",
    [("pl", "Nie znaleziono strony", "Nagłówek"), ("ru", "Страница не найдена", "Верхний колонтитул"), ("en", "Page not found", "Header")],
)
def test_every_section_has_a_404_page_in_its_language(site: Path, lang: str, words: str, header: str):
    page = (site / lang / "404.html").read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in page
    found = article(site / lang / "404.html")
    assert words in found.text and f"/{lang}/index.html" in found.links
    assert "404 - Not found" not in page
    assert f'aria-label="{header}"' in page  # Material's chrome in the section's language too


def test_the_root_404_page_speaks_every_language(site: Path):
    found = article(site / "404.html")
    for words in ("Page not found", "Nie znaleziono strony", "Страница не найдена"):
        assert words in found.text
    assert {"/en/index.html", "/pl/index.html", "/ru/index.html"} <= set(found.links)


@pytest.mark.browser
def test_the_root_404_puts_the_readers_language_first(site: Path):
    """A Polish phone that lands on an unknown address at the root reads the Polish message first."""
    polish = make_driver(languages="pl,en")
    try:
        with serve(site) as url:
            polish.get(f"{url}/404.html")
            first = polish.execute_script("return document.querySelector('.kb-not-found').lang")
            assert first == "pl", polish.execute_script("return navigator.languages")
    finally:
        polish.quit()


def test_a_ruling_in_another_language_is_marked_with_its_name(driver, server):
    """The mini clarification is written in English only: the ru and pl callouts show its English
    ruling under a visible language name, the ruling itself marked lang="en"."""
    for lang, name in (("ru", "английский"), ("pl", "angielski")):
        driver.get(f"{server}/{lang}/mini/10-rules.html")
        callout = driver.find_element("css selector", "section:has(> #retreat) .kb-ruling")
        mark = callout.find_element("css selector", ".kb-language-mark")
        assert mark.is_displayed() and mark.text.lower().startswith(name)
        ruling = callout.find_element("css selector", "div.kb-other-language")
        assert ruling.get_attribute("lang") == "en" and "as written" in ruling.text
    driver.get(f"{server}/en/mini/10-rules.html")
    assert driver.find_elements("css selector", "section:has(> #retreat) .kb-ruling .kb-language-mark") == []


def test_clarifications_are_grouped_by_the_chapter_they_concern(site: Path):
    """A game's clarifications page: a heading per chapter of the rules they concern, each
    clarification with its ruling's first sentence (here English, marked, in the Polish section)."""
    page = (site / "pl" / "mini" / CLARIFICATIONS.html).read_text(encoding="utf-8")
    section = page[page.index('<h2 id="topic-1">') :]
    assert section.startswith('<h2 id="topic-1">Zasady gry Mini</h2>')
    item = section[section.index("<li>") : section.index("</li>")]
    assert "Retreat: which edge?</a> — rozstrzygnięte" in item
    assert re.search(r'class="kb-language-mark">angielski:</p><div lang="en"><p>as written\.</p>', item, re.I)


def test_a_phone_shows_the_rule_near_the_top(driver, server):
    """At 390 px a chapter's first rule starts right under the header and the page title, and no
    "Made with" line takes the bottom of every page."""
    driver.get(f"{server}/pl/mini/10-rules.html")
    top = driver.execute_script("return document.querySelector('section:has(> #retreat) p').getBoundingClientRect().top")
    assert top < 200
    assert not driver.find_element("css selector", ".md-footer-meta").is_displayed()


@pytest.fixture(scope="module")
def bundled(bundled_build: Path) -> Path:
    return bundled_build / "site"


def entry_titles(path: Path) -> list[str]:
    """The link texts of an A–Z page's lists, in order."""
    html = path.read_text(encoding="utf-8")
    html = html[html.index('<div class="kb-page">') :]
    return re.findall(r"<li><a href=\"[^\"]+\">([^<]+)</a>", html)


def test_battlelore_from_a_to_z_in_english_title_order(bundled: Path):
    """The English A–Z lists every BattleLore entry under English initials in English order (the
    source's chapters follow the Russian alphabet); the Russian one in Russian order."""
    from html import unescape

    english = [unescape(t) for t in entry_titles(bundled / "en" / "battlelore" / A_TO_Z.html)]
    assert len(english) >= 79  # the five chapters of the source's A–Z hold 79 entries
    assert english == sorted(english, key=lambda t: re.sub(r"^\W+", "", t.lower()))
    assert english[0].startswith("A") and "Retreat" in english and "Active player" in english
    letters = re.findall(r'<h2 id="az-\d+">([^<]+)</h2>', (bundled / "en" / "battlelore" / A_TO_Z.html).read_text(encoding="utf-8"))
    assert letters == sorted(letters) and letters[0] == "A"
    russian = [unescape(t) for t in entry_titles(bundled / "ru" / "battlelore" / A_TO_Z.html)]
    assert russian[0][0] == "А" and len(russian) == len(english)


def test_no_two_links_of_an_a_to_z_read_alike(bundled: Path):
    """Where two entries of a game show the same title (a rule and its quick-reference summary: «Герой»,
    "Dice results"), each link says what tells them apart (its chapter), on the A–Z as everywhere a link
    names an entry (Resolved.link_title); every A–Z of every section has no two link texts alike."""
    from html import unescape

    for game, about in BUNDLED_GAMES.items():
        for lang in about["languages"]:
            titles = [unescape(t) for t in entry_titles(bundled / lang / game / A_TO_Z.html)]
            assert len(titles) == len(set(titles)), (lang, game, sorted(t for t in titles if titles.count(t) > 1))
    russian = [unescape(t) for t in entry_titles(bundled / "ru" / "wizards-quest" / A_TO_Z.html)]
    assert {"Герой (Атака)", "Герой (Герой и Колдун)"} <= set(russian), [t for t in russian if t.startswith("Герой")]


def test_polish_lists_follow_the_polish_alphabet(bundled: Path):
    """The Polish A–Z sorts and groups by the Polish alphabet (data/languages/pl/language.yaml): Ł after L,
    Ś after S, Ż last; every title is Polish (no English fallback sorted among them)."""
    from html import unescape

    from generator.base.languages import read_languages

    polish = read_languages(REPO / "data")["pl"]
    for game in (game for game, about in BUNDLED_GAMES.items() if "pl" in about["languages"]):
        page = bundled / "pl" / game / A_TO_Z.html
        titles = [unescape(t) for t in entry_titles(page)]
        assert titles == sorted(titles, key=polish.collation_key), game
        letters = re.findall(r'<h2 id="az-\d+">([^<]+)</h2>', page.read_text(encoding="utf-8"))
        assert letters == sorted(letters, key=polish.collation_key), game
    assert polish.collation_key("Łucznik") > polish.collation_key("Lwy") and polish.collation_key("Łucznik") < polish.collation_key("Mag")
    assert polish.initial("„Łaska”") == "Ł"


def test_every_home_lists_every_game_in_its_own_section(bundled: Path):
    """Every section holds every game: its home lists them, in its language, linking inside the
    section; nothing is listed as only in other languages."""
    home = article(bundled / "pl" / "index.html")
    for game in BUNDLED_GAMES.values():
        assert game["title"]["pl"] in home.text, game["id"]
    assert "Tylko w innych językach" not in home.text
    assert {f"{game}/index.html" for game in BUNDLED_GAMES} <= set(home.links)
    english = article(bundled / "en" / "index.html")
    assert {"../pl/citow/index.html", "../ru/citow/index.html", "battlelore/index.html"} <= set(english.links)
    assert "In other languages only" not in english.text  # every game has an English section


CALLOUT = r'<div class="admonition warning kb-ruling"><p class="admonition-title">[^<]*</p>\s*<div lang="(\w+)"[^>]*>(.*?)</div>'


def test_a_callout_leads_with_the_ruling_sentence_and_every_preview_with_a_gloss(bundled: Path):
    """Under a rule, a clarification's callout says first what the players do (the data's one-sentence
    ruling in the reader's language), with its status and review date; a tapped term shows its
    one-sentence gloss first, in the reader's language — on every ru and pl page."""
    from html import unescape

    from conftest import bundled_kb

    kb = bundled_kb()
    rulings = {
        (lang, " ".join(s.split())) for e in kb.entries.values() if e["kind"] == "clarification" for lang, s in e["clarification"]["ruling"].items()
    }
    callouts = previews = 0
    for lang in ("ru", "pl"):
        for page in sorted((bundled / lang).glob("*/[0-9]*.html")):
            html = page.read_text(encoding="utf-8")
            for body in re.findall(CALLOUT, html, re.S):
                text = " ".join(unescape(re.sub(r"<[^>]+>", "", body[1])).split())
                assert body[0] == lang and (lang, text) in rulings, (page.name, text[:80])
                callouts += 1
            for preview in re.findall(r'<div class="kb-preview"[^>]*>(.*?)</div>', html, re.S):
                assert '<p class="kb-gloss">' in preview, (page.name, preview[:120])
                previews += 1
    assert callouts > 50 and previews > 500


def test_a_paragraphs_number_copies_a_link_that_lands_on_it_below_the_header(driver, server):
    """Every paragraph of a rule ends with its number ("10.2b"); a tap puts its address in the address bar and
    on the clipboard, saying so; that address opens the page with the paragraph in view, not under the header.
    """
    driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"], "origin": server})
    driver.get(f"{server}/ru/mini/10-rules.html")
    marks = driver.find_elements("css selector", "a.kb-para")
    assert marks and all(re.fullmatch(r"[0-9]+\.[0-9]+[a-z]+", mark.text) for mark in marks)
    mark = marks[1]
    target = mark.get_attribute("href").split("#")[1]
    assert driver.execute_script("return arguments[0].closest('p, li').id", mark) == target
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", mark)
    mark.click()
    said = wait(driver, 5).until(lambda d: d.find_elements("css selector", ".kb-para-copied"))
    assert said[0].text == "Ссылка скопирована"
    link = driver.execute_async_script("navigator.clipboard.readText().then(arguments[0], e => arguments[0](String(e)))")
    assert link == f"{server}/ru/mini/10-rules.html#{target}" == driver.current_url
    driver.get("about:blank")
    driver.get(link)
    top = driver.execute_script("return document.getElementById(arguments[0]).getBoundingClientRect().top", target)
    header = driver.execute_script("return document.querySelector('.md-header').getBoundingClientRect().bottom")
    assert header <= top < 300, (header, top)
