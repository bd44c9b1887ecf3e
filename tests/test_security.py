"""Hostile data: payloads in every field of the knowledge base must never run, anywhere.

The mini data set is loaded and validated, then every text field receives an XSS payload
(tests/hostile.py) before the real render and write stages build it; the site and every aid's HTML
are loaded in headless Chromium, search is used with the payloads' words, and every link is clicked.
Each payload would set localStorage.kbxss if it ran.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from browser import search, serve
from conftest import MINI
from hostile import MATERIAL_INLINE, PAYLOADS, SEARCH_WORDS, UNSAFE, WORKER_MARK, build_spoiled, place_payloads, ran

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    data = root / "data"
    shutil.copytree(MINI, data)
    placed = build_spoiled(data, root, place_payloads)
    assert placed and placed[0] >= 20 * len(PAYLOADS), placed  # every payload in every kind of field
    return root / "site"


SERVER_REQUESTS: list[str] = []  # every path the hostile site's server was asked for


@pytest.fixture(scope="module")
def driver():
    """Headless Chromium at phone size whose pages install their section's service worker, as a phone's do: a
    payload must not run in a page the worker answers either."""
    from browser import make_driver

    chrome = make_driver(service_workers=True)
    yield chrome
    chrome.quit()


@pytest.fixture(scope="module")
def server(hostile_site: Path):
    with serve(hostile_site, SERVER_REQUESTS) as url:
        yield url


def all_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def test_there_are_enough_payloads():
    assert len(PAYLOADS) >= 20


@pytest.fixture(scope="module")
def every_page(driver, server, hostile_site: Path) -> dict[str, tuple[str | None, list[str]]]:
    """Every page and aid of the hostile site opened once: (the payload that ran on it, if any; what it holds that
    could run: UNSAFE, looked for as soon as the page has loaded). Two tests read it (each opened every page: ~8 s)."""
    pages = all_pages(hostile_site)
    assert any(p.startswith("cards/") for p in pages) and any(p.startswith("ru/") for p in pages)
    seen = {}
    for page in pages:
        driver.get(f"{server}/{page}")
        unsafe = driver.execute_script(UNSAFE, list(MATERIAL_INLINE))
        value = ran(driver)
        if value:
            driver.execute_script("localStorage.removeItem('kbxss')")
        seen[page] = (value, unsafe)
    return seen


def test_no_payload_runs_on_any_page_or_aid(every_page: dict[str, tuple[str | None, list[str]]]):
    assert [(page, value) for page, (value, _) in every_page.items() if value] == []


def test_pages_carry_no_handler_frame_or_script_from_the_data(every_page: dict[str, tuple[str | None, list[str]]]):
    """Beyond 'nothing ran': no element anywhere has an on* attribute, a javascript: or data: URL,
    an iframe, object or embed, or an inline script that is not Material's own."""
    assert [(page, found) for page, (_, unsafe) in every_page.items() for found in unsafe] == []


def test_payload_text_is_shown_as_text(driver, server):
    """The payloads are not lost either: a player sees them as the literal text the data holds."""
    driver.get(f"{server}/en/mini/10-rules.html")
    body = driver.find_element("css selector", "article").text
    assert "<script>" in body and "onerror=" in body
    assert driver.title.count("<") >= 1  # the page title shows the chapter title's payload as text


def test_search_with_the_payloads_words_runs_nothing(driver, server):
    driver.get(f"{server}/en/mini/index.html")
    for word in SEARCH_WORDS:
        results = search(driver, word)
        assert results, word  # the payloads are indexed as text and found
        assert ran(driver) is None, word
    driver.find_element("css selector", ".kb-search-results a.kb-search-result").click()
    assert ran(driver) is None


def test_clicking_every_link_runs_nothing(driver, server, hostile_site: Path):
    """Every link on every page is followed: clicked (each distinct target once per page) wherever a click
    could do more than open one of the site's own pages — any scheme but http(s), a link within the page,
    a file that is not a page; a link that only opens another page of the site is that page, which this
    test loads and checks itself. (Clicking those too, each after loading its page again, took ~4× as long: of
    487 links, 393 only open a page.)"""
    pages = all_pages(hostile_site)
    clicked, opened, ran_on = 0, 0, []
    for page in pages:
        url = f"{server}/{page}"
        driver.get(url)
        if value := ran(driver):
            ran_on.append((page, None, value))
        targets = driver.execute_script("return [...new Set([...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')))]")
        for target in targets:
            if urlsplit(target).scheme in ("http", "https") and not target.startswith(server):
                continue  # nothing external is linked from the data; Material's own links stay unclicked
            if site_page(url, target, server) in pages:
                opened += 1
                continue
            if driver.current_url.split("#")[0] != url:
                driver.get(url)
            driver.execute_script(
                "const a = [...document.querySelectorAll('a[href]')].find(a => a.getAttribute('href') === arguments[0]);if (a) a.click();", target
            )
            clicked += 1
            value = ran(driver)
            if value:
                ran_on.append((page, target, value))
                driver.execute_script("localStorage.removeItem('kbxss')")
    assert clicked > 50 and opened > 100, (clicked, opened)
    print(f"links clicked {clicked}, opened as their pages {opened}")
    assert ran_on == []


def site_page(url: str, target: str, server: str) -> str | None:
    """The site's page (path under the site, as all_pages lists it) a plain link opens, else None: a link
    with a scheme, a query, or only a fragment, or a fragment that is not a plain id (a page's script may
    read either), or to something other than a page."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path or parts.query or not re.fullmatch(r"[\w-]*", parts.fragment):
        return None
    path = urlsplit(urljoin(url, target)).path
    path += "index.html" if path.endswith("/") else ""
    return path.removeprefix(urlsplit(server).path.rstrip("/") + "/").lstrip("/") if path.endswith(".html") else None


# Scripts the build writes from data (vendored runtimes and Material's bundles are copied as they are).
VENDORED = ("assets/workbox/", "assets/javascripts/", "assets/calculators/")


def outside_json_strings(script: str, needle: str) -> list[int]:
    """Offsets where `needle` stands in a script outside a double-quoted string literal (in code, in a
    comment, or in another kind of literal). A small lexer: comments, the three kinds of quotes."""
    found, i, n = [], 0, len(script)
    while i < n:
        if script.startswith("//", i) or script.startswith("/*", i):
            end = script.find("\n" if script[i + 1] == "/" else "*/", i + 2)
            end = n if end < 0 else end + 2
            found += [i + k for k in range(end - i) if script.startswith(needle, i + k)]
            i = end
        elif script[i] in "'`\"":
            quote, j = script[i], i + 1
            while j < n and script[j] != quote:
                j += 2 if script[j] == "\\" else 1
            if quote != '"':
                found += [i + k for k in range(j - i) if script.startswith(needle, i + k)]
            i = j + 1
        else:
            if script.startswith(needle, i):
                found.append(i)
            i += 1
    return found


def test_the_lexer_finds_data_outside_strings():
    assert outside_json_strings('const a = {"x": "kbxss */ kbxss"};', "kbxss") == []
    assert outside_json_strings("/* kbxss */ const a = 1;", "kbxss") == [3]
    assert outside_json_strings("const a = 'kbxss'; kbxss();", "kbxss") == [11, 19]


def test_generated_scripts_hold_data_only_in_json_strings(hostile_site: Path):
    """Every script the build writes (service workers, search index, language list…) carries the
    payloads, if at all, inside JSON string literals: never as code or in a comment."""
    scripts = [p for p in hostile_site.rglob("*.js") if not p.relative_to(hostile_site).as_posix().startswith(VENDORED)]
    assert any(p.name == "sw.js" for p in scripts) and any(p.name == "kb-languages.js" for p in scripts)
    carrying = {p.relative_to(hostile_site).as_posix(): p.read_text(encoding="utf-8") for p in scripts}
    carrying = {path: text for path, text in carrying.items() if "kbxss" in text}
    assert "assets/kb-languages.js" in carrying  # the language names and interface texts are there
    assert {path: outside_json_strings(text, "kbxss") for path, text in carrying.items() if outside_json_strings(text, "kbxss")} == {}


def test_every_section_service_worker_installs_and_runs_nothing_from_the_data(hostile_site: Path, offline_driver):
    """Each section's worker is installed in Chromium (a fresh profile) and controls its pages; a payload in the
    language's name or texts never runs in it (it would ask the server for WORKER_MARK)."""
    from browser import until_controlled

    sections = sorted(p.parent.name for p in hostile_site.glob("*/sw.js"))
    assert len(sections) >= 2
    requests: list[str] = []
    chrome = offline_driver
    with serve(hostile_site, requests) as url:
        for code in sections:
            chrome.get(f"{url}/{code}/index.html")
            until_controlled(chrome, 120)
            chrome.get(f"{url}/{code}/index.html")  # a navigation the worker answers
            assert chrome.execute_script("return localStorage.getItem('kbxss')") is None, code
    assert any(path.endswith("/sw.js") for path in requests)
    assert [path for path in requests if WORKER_MARK in path] == []
