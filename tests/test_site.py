"""The site built from the mini data set: strict build, links, escaping, and the browser behaviours."""

from __future__ import annotations

import html
import os
import re
import statistics
import time
import unicodedata
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from browser import search, serve, wait
from conftest import REPO, bundled_validated

from generator.base.problems import Problems
from generator.load.yamlio import load_yaml
from generator.resolve.pages import GLOSSARY


@pytest.fixture(scope="module")
def site(mini_build: Path) -> Path:
    return mini_build / "site"


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            if attrs.get(name):
                self.hrefs.append(attrs[name])


def parse(path: Path) -> Links:
    links = Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


def check_links(site: Path) -> list[str]:
    """Every relative link and anchor in every page resolves. Each page is parsed once, for its links and its
    ids; a link's target is looked up among the site's files and folders (parsing every page a second time
    for its ids, and asking the file system for each of some 80,000 links, took two thirds of ~30 s)."""
    found = {os.path.normpath(os.path.join(folder, name)) for folder, folders, files in os.walk(site) for name in [*folders, *files, ""]}
    pages = {os.path.normpath(page): parse(page) for page in site.rglob("*.html")}
    broken = []
    for page, links in pages.items():
        if page.endswith("/404.html"):  # Material's error page uses site-absolute links; servers alone show it
            continue
        shown = os.path.relpath(page, site)
        for href in links.hrefs:
            parts = urlsplit(href)
            if parts.scheme or href.startswith("//") or href.startswith("mailto:"):
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(page), unquote(parts.path))) if parts.path else page
            if target not in found:
                broken.append(f"{shown} -> {href}")
            elif parts.fragment and target.endswith(".html") and unquote(parts.fragment) not in pages[target].ids:
                broken.append(f"{shown} -> {href} (no anchor)")
    return broken


def test_every_internal_link_and_anchor_resolves(site: Path):
    assert check_links(site) == []


def test_pages_carry_their_language(site: Path):
    assert '<html lang="pl"' in (site / "pl/mini/10-rules.html").read_text(encoding="utf-8")
    assert '<html lang="ru"' in (site / "ru/mini/10-rules.html").read_text(encoding="utf-8")


def test_an_entrys_id_is_on_its_heading(site: Path):
    """Issues 27 and 29: links, shared addresses and outline tools land on the entry's heading, not on its chapter."""
    html = (site / "en/mini/10-rules.html").read_text(encoding="utf-8")
    assert re.search(r'<h2 class="kb-entry-title" id="retreat">Retreat', html)
    assert not re.search(r'<section class="kb-entry[^"]*" id=', html)  # every entry of the mini set has a heading


def test_hostile_text_is_escaped_in_html(site: Path):
    html = (site / "en/mini/10-rules.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__pwned = 'script'&lt;/script&gt;" in html
    assert "<script>window.__pwned" not in html
    assert "<img src=x" not in html
    assert "javascript:" not in html


@pytest.fixture(scope="module")
def server(site: Path):
    with serve(site) as url:
        yield url


def test_hostile_text_does_not_run_in_the_browser(driver, server):
    driver.get(f"{server}/en/mini/10-rules.html")
    assert driver.execute_script("return window.__pwned === undefined")
    body = driver.find_element("css selector", "section:has(> #support) > p").text
    assert "<script>window.__pwned = 'script'</script>" in body


def test_search_then_open_the_result(driver, server):
    driver.get(f"{server}/pl/mini/index.html")
    results = search(driver, "odwrotu")
    assert results and results[0]["entry"] == "mini/retreat"
    driver.find_element("css selector", ".kb-search-results a.kb-search-result").click()
    assert urlsplit(driver.current_url).path.endswith("/pl/mini/10-rules.html")
    assert urlsplit(driver.current_url).fragment == "retreat"
    heading = driver.find_element("id", "retreat")
    assert heading.text.startswith("Odwrót")
    top = driver.execute_script("return arguments[0].getBoundingClientRect().top", heading)
    assert 0 <= top < 400  # the entry is on screen, not somewhere below
    # the search's words are marked in the entry landed on (their forms too), and only there
    marked = driver.execute_script(
        "return Array.from(document.querySelectorAll('mark.kb-hit')).map(m => [m.textContent, m.closest('section:has(> #retreat)') !== null])"
    )
    assert marked and all(inside and text.lower().startswith("odwr") for text, inside in marked), marked
    driver.get(f"{server}/pl/mini/10-rules.html")  # the same page opened again, not from a search: nothing marked
    assert driver.find_elements("css selector", "mark.kb-hit") == []


def test_search_across_languages(driver, server):
    driver.get(f"{server}/ru/mini/index.html")
    assert search(driver, "retreat")[0]["entry"] == "mini/retreat"
    driver.get(f"{server}/en/mini/index.html")
    assert search(driver, "отступил")[0]["entry"] == "mini/retreat"


def test_switching_language_keeps_the_entry(driver, server):
    """The header's language selector (on every page) and the links in an entry's details both land
    on the same entry in the other section."""
    driver.get(f"{server}/pl/mini/10-rules.html#support")
    choices = driver.execute_script("return [...document.querySelectorAll('a.md-select__link[hreflang]')].map(a => a.getAttribute('hreflang'))")
    assert choices == ["en", "pl", "ru"]
    driver.execute_script("document.querySelector(\"a.md-select__link[hreflang='en']\").click()")
    wait(driver, 10).until(lambda d: urlsplit(d.current_url).path.endswith("/en/mini/10-rules.html"))
    assert urlsplit(driver.current_url).fragment == "support"
    assert driver.find_element("id", "support").text.startswith("Support")
    driver.get(f"{server}/ru/mini/10-rules.html#retreat")
    details = driver.find_element("css selector", "section:has(> #retreat) details.kb-details")
    driver.execute_script("arguments[0].open = true; arguments[0].scrollIntoView({block: 'center'})", details)
    details.find_element("css selector", "a.kb-lang[hreflang='pl']").click()
    wait(driver, 10).until(lambda d: urlsplit(d.current_url).path.endswith("/pl/mini/10-rules.html"))
    assert urlsplit(driver.current_url).fragment == "retreat"


def test_fallback_note_when_the_language_is_missing(driver, server):
    driver.get(f"{server}/ru/mini/10-rules.html#support")
    entry = driver.find_element("css selector", "section:has(> #support)")
    note = entry.find_element("css selector", "div.admonition")
    assert "Нет русской версии" in note.text and "английский" in note.text
    assert entry.text.startswith("Support")


def test_search_works_opened_from_disk(driver, site: Path):
    driver.get((site / "pl/mini/index.html").as_uri())
    results = search(driver, "wsparcie")
    assert results[0]["entry"] == "mini/support"
    assert results[0]["href"].startswith("file://")


def test_no_letter_is_lost(driver, server):
    """Polish and Russian letters are indexed whole: an exact word with ł, ó and ą finds its entry."""
    driver.get(f"{server}/pl/mini/index.html")
    assert search(driver, "sąsiadujący")[0]["entry"] == "mini/support"
    assert search(driver, "odwrót")[0]["entry"] == "mini/retreat"


def test_bundled_site_links_and_anchors_resolve(bundled_build: Path):
    site = bundled_build / "site"
    assert len(list(site.rglob("*.html"))) > 200
    assert check_links(site) == []


def test_many_games_are_grouped_in_the_nav_like_guide_words():
    """With more than a dozen games, a language's games go into about sqrt(n) alphabetical sections,
    named by the shortest prefixes that tell them apart; every game is in exactly one."""
    from generator.render.site import alphabetical_groups

    titles = sorted(
        [
            "Catan",
            "Carcassonne",
            "Chess",
            "Chaos in the Old World",
            "Cthulhu Wars",
            "Citadels",
            "Codenames",
            "Concordia",
            "Cosmic Encounter",
            "Coup",
            "Cyclades",
            "Crokinole",
            "Caverna",
            "Castles of Burgundy",
            "Clank!",
            "Cascadia",
            "Dixit",
            "Dune",
        ],
        key=str.lower,
    )
    groups = alphabetical_groups([(t, {t: f"{t}.md"}) for t in titles])
    names = [next(iter(g)) for g in groups]
    assert len(groups) == 4 and len(set(names)) == len(names)  # 18 games: sections of ceil(sqrt(18)) = 5
    assert [list(item)[0] for g in groups for item in next(iter(g.values()))] == titles
    assert names[0] == "Ca" and names[-1].endswith("–Du")


@pytest.mark.parametrize(
    "section, strings, title_end",
    [
        ("pl", ["Przejdź do treści", "Powrót do góry", 'aria-label="Nagłówek"'], "Zasady gier"),
        ("ru", ["Перейти к содержанию", "К началу", 'aria-label="Верхний колонтитул"'], "Справочник правил"),
    ],
)
def test_material_chrome_speaks_the_sections_language(site: Path, section: str, strings: list[str], title_end: str):
    """Material's own texts come in the section's language (its theme language from data/languages/)."""
    page = (site / section / "mini" / "10-rules.html").read_text(encoding="utf-8")
    assert f'<html lang="{section}"' in page
    for text in strings:
        assert text in page, text
    for english in ("Skip to content", "Back to top", 'aria-label="Header"'):
        assert english not in page, english
    assert re.search(rf"<title>[^<]* - {title_end}</title>", page)


def test_dark_mode_follows_the_system_with_a_toggle_in_the_readers_language(driver, server):
    def first_visit(scheme: str) -> str:
        """A new reader (no remembered choice) whose device is set to `scheme`. The setting changes on a
        page of the site without Material, whose listener would otherwise remember the change."""
        driver.get(f"{server}/assets/kb.css")
        driver.execute_script("localStorage.clear()")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        driver.get(f"{server}/ru/mini/10-rules.html")
        return driver.execute_script("return document.body.getAttribute('data-md-color-scheme')")

    try:
        assert first_visit("dark") == "slate"
        titles = driver.execute_script("return [...document.querySelectorAll('label[for^=__palette]')].map(l => l.title)")
        assert "Включить светлую тему" in titles
        assert first_visit("light") == "default"
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_a_clarification_callout_gives_the_ruling(site: Path):
    """On the rule it concerns, a clarification shows its ruling (not only its title) and its status."""
    page = (site / "en" / "mini" / "10-rules.html").read_text(encoding="utf-8")
    callout = page[page.index('class="admonition warning kb-ruling"') :]
    callout = callout[: callout.index("</div></div>") if "</div></div>" in callout else 2000]
    assert ">Ruling<" in callout and "as written" in callout and "resolved" in callout  # the ruling sentence first


def test_search_reads_decomposed_unicode_and_says_nothing_before_a_word(driver, server):
    """A pasted "ą" written as "a" + a combining ogonek finds the word; one letter typed shows no
    "Nothing found." (the reader has not typed a word yet)."""
    driver.get(f"{server}/pl/mini/index.html")
    decomposed = unicodedata.normalize("NFD", "sąsiadujący")
    assert decomposed != "sąsiadujący"
    assert search(driver, decomposed)[0]["entry"] == "mini/support"
    box = driver.find_element("css selector", ".kb-search input")
    box.clear()
    box.send_keys("o")
    time.sleep(0.5)  # longer than the input's 120 ms pause before a search
    assert driver.find_elements("css selector", ".kb-search-none") == []
    assert not driver.execute_script("return document.querySelector('.kb-search').classList.contains('kb-open')")


@pytest.mark.integration
def test_each_chapter_ends_with_links_to_the_games_previous_and_next_chapters(bundled_build: Path):
    """In every section and game, the chapters are a chain: each links to the one before and after it, as listed
    on the game's page."""
    site = bundled_build / "site"
    for home in sorted(site.glob("*/*/index.html")):
        listed = home.read_text(encoding="utf-8").split('<h2 id="chapters">', 1)[1].split("<h2", 1)[0]  # the game's list of chapters
        order = re.findall(r'<li><a href="([^"#]+\.html)">', listed)
        assert order, home
        for place, page in enumerate(order):
            html = (home.parent / page).read_text(encoding="utf-8")
            before = re.findall(r'<a class="md-button" rel="prev" href="([^"]+)"', html)
            after = re.findall(r'<a class="md-button" rel="next" href="([^"]+)"', html)
            assert before == order[place - 1 : place], (home.parent.name, page, before)
            assert after == order[place + 1 : place + 2], (home.parent.name, page, after)


@pytest.mark.integration
def test_the_ten_table_questions_are_answered_within_two_taps_of_the_section_home(bundled_build: Path):
    """tests/table_questions.yaml, followed by the links' visible text from the section's home: each tap is a
    link on the page reached, and the last page holds the answer's id. Median taps <= 2 (issue 27)."""
    site = bundled_build / "site"
    questions = load_yaml(REPO / "tests" / "table_questions.yaml", "table_questions.yaml", Problems())
    taps = []
    for question in questions:
        page = site / question["lang"] / "index.html"
        for text in question["taps"]:
            links = {
                html.unescape(label): href for href, label in re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', page.read_text(encoding="utf-8"))
            }
            assert text in links, (question["question"], text, page)
            target, _, anchor = links[text].partition("#")
            page = (page.parent / target).resolve() if target else page
        assert f'id="{question["answer"]}"' in page.read_text(encoding="utf-8"), (question["question"], page)
        taps.append(len(question["taps"]))
    print(f"table questions: {len(taps)}, taps median {statistics.median(taps)}, most {max(taps)}")
    assert len(taps) == 10 and statistics.median(taps) <= 2


@pytest.mark.integration
def test_the_glossary_defines_each_term_first_under_a_letter_bar(bundled_build: Path):
    """Each term of a glossary page opens with its one-sentence definition (before the other languages'
    names), and a bar of initial letters links to the first term of each letter, in order."""
    for lang in ("ru", "pl"):
        page = (bundled_build / "site" / lang / "citow" / GLOSSARY.html).read_text(encoding="utf-8")
        bar = re.search(r'<p class="kb-letters">(.*?)</p>', page)
        assert bar, "no letter bar"
        targets = re.findall(r'<a href="#([^"]+)">([^<]+)</a>', bar[1])
        headings = [(anchor, html.unescape(name)) for anchor, name in re.findall(r'<h3 id="(term-[^"]+)"[^>]*>([^<]+)<', page)]
        places = [next(i for i, (anchor, _) in enumerate(headings) if anchor == target) for target, _ in targets]
        assert len(targets) > 10 and places == sorted(places) and places[0] == 0
        for place, (_, letter) in zip(places, targets, strict=True):
            assert headings[place][1][:1].casefold() == letter.casefold()  # the letter's first term
            assert place == 0 or headings[place - 1][1][:1].casefold() != letter.casefold()
        for anchor, _ in headings:
            after = page[page.index(f'<h3 id="{anchor}"') :]
            assert '<p class="kb-gloss"' in after[: after.index("kb-glossary-names")], anchor  # the definition, then the names


@pytest.mark.integration
def test_the_glossary_says_where_the_readers_name_comes_from(bundled_build: Path):
    """An English reader sees for every term whether its English name is the published edition's, ours or
    unconfirmed (the glossary's `english`); a Polish reader sees it for the Polish names we rendered
    (`status`); a Russian reader of a game whose sources are Russian sees nothing: the name is the source's."""
    kb, _ = bundled_validated()
    ui = {lang: load_yaml(REPO / "data" / "languages" / lang / "ui.yaml", "ui.yaml", Problems())["ui"] for lang in ("en", "pl", "ru")}
    terms = {term["id"].rsplit("/", 1)[1]: term for term in kb.terms_of("marauders")}
    for lang in ("en", "pl", "ru"):
        page = (bundled_build / "site" / lang / "marauders" / GLOSSARY.html).read_text(encoding="utf-8")
        shown = dict(re.findall(r'<h3 id="term-([^"]+)".*?<p class="kb-glossary-names">(?:<em>([^<]*)</em> · )?', page, re.S))
        assert shown.keys() == terms.keys(), lang
        for name, term in terms.items():
            if lang == "en":
                expected = ui["en"][f"english_{term['english']}"]
            else:
                status = term.get("status", {}).get(lang)
                expected = ui[lang][f"name_{status}"] if status else ""
            assert html.unescape(shown[name]) == expected, (lang, name)
    assert {"published", "ours"} <= {t["english"] for t in terms.values()}  # both kinds are seen on the page
    assert any(t.get("status", {}).get("pl") for t in terms.values())


@pytest.mark.integration
def test_the_glossary_lists_a_terms_variants_and_not_their_forms(bundled_build: Path):
    """A term's `variants` (the sources' other words) are listed under it, each in its language; their inflected
    `variant_forms` are not (they are found in text as the variants are: links, search, E054)."""
    kb, _ = bundled_validated()
    with_forms = [term for term in kb.terms.values() if term.get("variant_forms")]
    assert with_forms  # the Ruinous Powers' gods, at least
    for term in with_forms:
        game = kb.game_of(term["id"])
        page = (bundled_build / "site" / "ru" / game / GLOSSARY.html).read_text(encoding="utf-8")
        anchor = "term-" + term["id"].rsplit("/", 1)[1]
        section = page[page.index(f'<h3 id="{anchor}"') :]
        section = section[: section.find("<h3", 1)]
        listed = re.search(r"<p><em>[^<]*:</em> (.*?)</p>", section, re.S)
        assert listed, term["id"]
        shown = {(lang, html.unescape(text)) for lang, text in re.findall(r'<span lang="([a-z]+)">([^<]*)</span>', listed[1])}
        assert shown == {(lang, v) for lang, variants in term["variants"].items() for v in variants}, term["id"]
        assert not {(lang, v) for lang, forms in term["variant_forms"].items() for v in forms} & shown
