"""Every word a Russian or Polish reader meets is theirs, or marked as English: Chromium reads each text node of
every page of the ru and pl sections with the language of its nearest `lang`.

Every page is read as the browser parses its HTML (DOMParser in one page: ~4 s for 216 pages, where loading each
took ~50 s), and one page of each kind in each language is also read as loaded, its scripts run, for the text
scripts add (the calculators' "keep offline" button, the offline page's language names: both shown only where the
section's service worker controls the page, so that test lets the worker in)."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import serve, until_controlled, wait

from generator.base.textmatch import reads_as_english
from generator.resolve.pages import ALL_CLARIFICATIONS, CALCULATORS, GAME_PAGES, OFFLINE, SECTION_HOME

pytestmark = pytest.mark.browser

READ = """
const read = doc => {
  const page = doc.documentElement.lang.split('-')[0], found = [];
  const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, text = node.textContent.trim(), element = node.parentElement;
    if (!text || element.closest('script, style, template, noscript')) continue;
    const marked = element.closest('[lang]') || doc.documentElement;
    if (marked.getAttribute('lang').split('-')[0] === page) found.push(text);
  }
  return [page, found];
};"""
# each page's HTML as the browser parses it, no script run: [language, texts in it] per page
PARSED = (
    READ
    + """
const [pages, done] = arguments;
Promise.all(pages.map(page => fetch('/' + page).then(r => r.text()).then(html => read(new DOMParser().parseFromString(html, 'text/html')))))
  .then(done, error => done(String(error)));"""
)
LOADED = READ + "return read(document);"  # the page as shown, its scripts run


def pages_of(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for section in ("ru", "pl") for p in (site / section).rglob("*.html"))


def english_in(page: str, language: str, texts: list[str]) -> list[tuple[str, str]]:
    assert language == page.split("/")[0], page
    return [(page, text[:120]) for text in texts if reads_as_english(text, language)]


def test_no_english_outside_lang_en_on_any_ru_or_pl_page(driver, bundled_build: Path):
    site = bundled_build / "site"
    pages = pages_of(site)
    assert len(pages) > 200
    english = []
    with serve(site) as url:
        driver.get(f"{url}/ru/index.html")
        driver.set_script_timeout(120)
        parsed = driver.execute_async_script(PARSED, pages)
        assert isinstance(parsed, list) and len(parsed) == len(pages), parsed
        for page, (language, texts) in zip(pages, parsed, strict=True):
            english += english_in(page, language, texts)
    assert english == []


# What a page's scripts add only under its section's service worker, by page kind: shown once it is there.
ADDED_UNDER_THE_WORKER = {
    CALCULATORS.html: "return document.querySelector('.kb-calc-keep, .kb-calc-keep-status') !== null",  # "keep offline (N MB)"
    OFFLINE.html: "return document.querySelector('.kb-kept[data-listed]') !== null",  # the sections kept, by name
}


def test_no_english_in_what_the_scripts_add_to_a_page_of_each_kind(offline_driver, bundled_build: Path):
    """Each kind of page (a game's pages, a chapter, the section's own) once per language, from a different game in
    each, loaded with its scripts run under the section's service worker; what it shows holds every text its parsed
    HTML does, and no English."""
    driver = offline_driver
    site = bundled_build / "site"
    games = sorted(path.parent.name for path in site.glob("ru/*/index.html") if (site / "pl" / path.parent.name).is_dir())
    english, loaded = [], []
    with serve(site) as url:
        for number, lang in enumerate(("ru", "pl")):
            driver.get(f"{url}/{lang}/index.html")
            until_controlled(driver)
            game = games[number % len(games)]
            chapter = next(p.name for p in sorted((site / lang / game).glob("*.html")) if p.name not in {k.html for k in GAME_PAGES})
            kinds = [f"{game}/{kind.html}" for kind in GAME_PAGES] + [f"{game}/{chapter}"]
            for page in [f"{lang}/{path}" for path in kinds + [kind.html for kind in (SECTION_HOME, ALL_CLARIFICATIONS, OFFLINE)]]:
                [(_, parsed)] = driver.execute_async_script(PARSED, [page])
                driver.get(f"{url}/{page}")
                if (added := ADDED_UNDER_THE_WORKER.get(page.split("/")[-1])) is not None:
                    wait(driver, 30).until(lambda d, added=added: d.execute_script(added))
                language, texts = driver.execute_script(LOADED)
                assert not [text for text in parsed if text not in texts], page  # scripts add to the page, nothing read is lost
                english += english_in(page, language, texts)
                loaded.append(page)
    assert len(loaded) == 2 * (len(GAME_PAGES) + 4)
    assert english == []
