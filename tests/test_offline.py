"""Offline: after the first visit of a language section, the whole section works with the network off —
pages, search and calculators — and a new build replaces the cached one, the page saying so. The
network is off for real: the site's server is shut down, as a phone leaving the Wi-Fi."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from browser import calculate, make_driver, open_calculator, press, search, serve
from selenium.webdriver.support.ui import WebDriverWait

from generator.render.offline import section_manifest
from generator.resolve.pages import CALCULATORS

CACHES = "return caches.keys()"


def install(driver, url: str, page: str) -> list[str]:
    """Visit a page of a section and wait until its service worker controls the page; the precache names."""
    driver.get(f"{url}/{page}")
    WebDriverWait(driver, 180, poll_frequency=0.5).until(lambda d: d.execute_script("return navigator.serviceWorker.controller !== null"))
    return driver.execute_script(CACHES)


@pytest.fixture
def offline_driver():
    chrome = make_driver()  # a fresh profile: no service worker from another test
    yield chrome
    chrome.quit()


@pytest.mark.browser
def test_a_visited_section_works_with_the_network_off(bundled_build: Path, offline_driver):
    driver = offline_driver
    requests: list[str] = []
    runtime = json.loads((bundled_build / "site" / "assets" / "calc" / "runtime.json").read_text(encoding="utf-8"))
    with serve(bundled_build / "site", requests) as url:
        names = [name for name in install(driver, url, "ru/citow/10-round.html") if not name.startswith("kb-root-")]
        assert len(names) == 1 and names[0].startswith("kb-ru-precache")
        # the root's worker too: it answers the root, the sections never visited and the aids
        WebDriverWait(driver, 60).until(
            lambda d: d.execute_script("return navigator.serviceWorker.getRegistrations().then(rs => rs.filter(r => r.active).length)") == 2
        )
        assert driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"] == []  # "Install app" offered
        notice = WebDriverWait(driver, 10).until(lambda d: d.find_elements("css selector", ".kb-offline-notice"))
        # it says how much it keeps, and what the calculators would add
        pages = sum(p.stat().st_size for p in (bundled_build / "site" / "ru").rglob("*.html"))
        kept = float(re.search(r"сохранено ([0-9]+,[0-9]) МБ", notice[0].text)[1].replace(",", "."))
        assert 0.5 < kept < pages / 1e6 / 3, notice[0].text  # kept packed: well under the pages' own size, without the runtime
        assert f"({runtime['fetch_bytes'] / 1e6:.1f} МБ)".replace(".", ",") in notice[0].text
        assert not [r for r in requests if "/assets/calc/" in r and not r.endswith("runtime.json")]  # no runtime yet
        # the reader chooses to keep the calculators: the packed files come, with progress, then "kept"
        driver.get(f"{url}/ru/wizards-quest/{CALCULATORS.html}")
        keep = WebDriverWait(driver, 10).until(lambda d: d.find_elements("css selector", ".kb-calc-keep"))[0]
        assert f"{runtime['fetch_bytes'] / 1e6:.1f}".replace(".", ",") in keep.text
        press(driver, keep)
        WebDriverWait(driver, 120).until(lambda d: d.find_element("css selector", ".kb-calc-keep-box").get_attribute("data-kept"))
        assert any(r.endswith(".bin.gz") for r in requests) and not any(r.endswith(".bin") for r in requests)
        count = driver.execute_script("return caches.open(arguments[0]).then(c => c.keys()).then(k => k.length)", names[0])
        assert (
            driver.execute_script(
                "return caches.open(arguments[0]).then(c => c.keys()).then(k => k.filter(r => r.url.includes('.html.gz')).length)", names[0]
            )
            > 50
        )  # packed
        pages = len(list((bundled_build / "site" / "ru").rglob("*.html")))
        assert count > pages  # every page of the section, and its search index and assets besides
        aid = next(p.name for p in (bundled_build / "site" / "cards").glob("citow-ru-sheet-a4*.pdf"))
        opened = "return fetch(arguments[0]).then(r => r.ok ? r.arrayBuffer().then(b => b.byteLength) : -r.status, e => String(e))"
        assert driver.execute_script(opened, f"{url}/cards/{aid}") > 1000  # an aid opened once, online
    # the server is gone
    assert driver.execute_script(opened, f"{url}/cards/{aid}") == (bundled_build / "site" / "cards" / aid).stat().st_size
    driver.get(f"{url}/ru/battlelore/index.html")  # a page never opened online
    assert "BattleLore" in driver.title
    results = search(driver, "отступление")
    assert results and any("battlelore" in r["href"] for r in results)
    driver.get(f"{url}/ru/wizards-quest/{CALCULATORS.html}")
    block = open_calculator(driver, "death_range")
    press(driver, block.find_element("css selector", ".kb-calc-example"))
    shown = calculate(driver, block)
    assert shown["sentence"].startswith("Диапазон смерти") and shown["json"]["death_range"] >= 1
    driver.get(f"{url}/ru/citow/no-such-page.html")  # an address the offline copy does not hold: the offline page
    assert driver.current_url.startswith(f"{url}/ru/offline.html")
    assert "Нет в сохранённой копии" in driver.title
    driver.find_element("css selector", "article a[href='battlelore/index.html']").click()  # ... which leads to what is kept
    assert "BattleLore" in driver.title
    driver.get(f"{url}/en/citow/index.html")  # another section, never visited: its offline page, offering what is kept
    assert driver.current_url.startswith(f"{url}/en/offline.html") and driver.title.startswith("Not kept offline")
    listed = WebDriverWait(driver, 10).until(lambda d: d.find_element("css selector", ".kb-kept").get_attribute("data-listed"))
    kept = driver.execute_script("return Array.from(document.querySelectorAll('.kb-kept a')).map(a => a.getAttribute('href'))")
    assert int(listed) == len(kept) and f"{url}/ru/index.html" in kept and any(link.endswith(aid) for link in kept)
    assert not driver.find_element("css selector", ".kb-offline-games").is_displayed()  # en is not kept: its games are not offered
    driver.get(f"{url}/index.html")  # the root page
    assert "Rules reference" in driver.title and "offline.html" not in driver.current_url
    driver.get(f"{url}/cards/no-such-aid.pdf")  # an aid never opened: the offline page in the reader's language
    assert "/offline.html?from=" in driver.current_url


@pytest.mark.browser
def test_a_new_build_replaces_the_cached_one_and_the_page_says_so(bundled_build: Path, offline_driver, tmp_path: Path):
    site = tmp_path / "site"
    shutil.copytree(bundled_build / "site", site, symlinks=False)
    driver = offline_driver
    aid = next((site / "cards").glob("citow-pl-sheet-a4*.pdf"))
    fetched = "return fetch(arguments[0]).then(r => r.arrayBuffer()).then(b => b.byteLength)"
    with serve(site) as url:
        old = [name for name in install(driver, url, "pl/citow/index.html") if name.startswith("kb-pl-")]
        assert driver.execute_script(fetched, f"{url}/cards/{aid.name}") == aid.stat().st_size  # opened once: kept
        aid.write_bytes(aid.read_bytes() + b"\n% a new build of the aid\n")
        worker = site / "pl" / "sw.js"  # a new build: another data version, one page changed
        worker.write_text(worker.read_text(encoding="utf-8").replace(old[0].rsplit("-", 1)[1], "nextversion"), encoding="utf-8")
        driver.execute_script("return navigator.serviceWorker.getRegistration().then(r => r.update())")
        button = WebDriverWait(driver, 120).until(lambda d: d.find_elements("css selector", ".kb-offline-notice button"))[0]
        assert "nowa wersja" in button.find_element("xpath", "..").text.lower()
        driver.execute_script("window.__before_reload = true")
        press(driver, button)
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return window.__before_reload === undefined"))
        WebDriverWait(driver, 30).until(
            lambda d: [name for name in d.execute_script(CACHES) if name.startswith("kb-pl-")] == [old[0].rsplit("-", 1)[0] + "-nextversion"]
        )  # (the runtime's and the root's are theirs)
        # the aid kept from the old version went with it: the phone gets the new build's aid
        assert driver.execute_script(fetched, f"{url}/cards/{aid.name}") == aid.stat().st_size


@pytest.mark.integration
def test_each_packed_file_of_a_section_has_a_twin_that_unpacks_to_it(bundled_build: Path):
    """What the offline copies keep packed: every file a section lists in `packed` has a ".gz" twin holding the
    file's bytes, precached in its place; nothing else of the section is packed."""
    site = bundled_build / "site"
    for worker in sorted(site.glob("*/sw.js")):
        section = section_manifest(worker.read_text(encoding="utf-8"))
        precached = {entry["url"] for entry in section["precache"]}
        assert len(section["packed"]) > 100
        for path in section["packed"]:
            original = (worker.parent / path).resolve()
            assert gzip.decompress((worker.parent / f"{path}.gz").read_bytes()) == original.read_bytes(), path
            assert f"{path}.gz" in precached and path not in precached
        assert all(url.endswith(".gz") == (url[:-3] in section["packed"]) for url in precached)


# A section's worker gone wrong (a build's bug, or code smuggled in by data): it answers every navigation with
# one fixed page, and, as a worker does, it stays while any tab of the section is open.
BROKEN_WORKER = """self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  if (event.request.mode === "navigate")
    event.respondWith(new Response("<title>hijacked</title>hijacked", {headers: {"Content-Type": "text/html"}}));
});
"""
# Settled: no worker installing or waiting (an installed worker that has called skipWaiting still waits a moment
# before it is the active one: a visit then is answered by the old worker).
SETTLED = """return navigator.serviceWorker.getRegistration(arguments[0])
  .then((r) => !!r && !r.installing && !r.waiting && !!r.active && r.active.state === "activated")"""
# The browser's own look for a new sw.js (at navigations, throttled, and at least daily; Chromium's timing is its
# own), done now: what follows it is the site's part. True once it found a new worker: a look asked for while the
# browser's own (after the last navigation, before the fix) is under way joins that one and finds nothing new.
CHECK_FOR_UPDATE = """return navigator.serviceWorker.getRegistration(arguments[0]).then((r) => {
  const before = r.active;
  return r.update().then(() => !!(r.installing || r.waiting || r.active !== before), () => false);
})"""


@pytest.mark.browser
def test_a_broken_section_worker_is_replaced_on_the_next_visit_after_the_fix(mini_build: Path, offline_driver, tmp_path: Path):
    """Issue 32: once the browser has found the good sw.js again, one more visit in the same tab brings the real
    page back (the good worker takes over from one that does not answer as ours, instead of waiting for every
    tab of the section to close)."""
    site = tmp_path / "site"
    shutil.copytree(mini_build / "site", site, symlinks=False)
    driver = offline_driver
    worker = site / "en" / "sw.js"
    good = worker.read_bytes()
    # The broken worker is the section's first: taking over from another worker at once is Chromium's to time
    # (driven by chromedriver, it often waits out its five minutes for the old worker to go idle).
    worker.write_text(BROKEN_WORKER, encoding="utf-8")
    # written an hour before the fix: HTTP dates count whole seconds, and a fix saved within the same second would
    # be answered "304 Not Modified" to the browser's If-Modified-Since (a real fix comes later than that)
    os.utime(worker, (time.time() - 3600, time.time() - 3600))
    with serve(site) as url:
        page = f"{url}/en/mini/index.html"
        driver.get(page)
        title = driver.title
        assert title != "hijacked"
        WebDriverWait(driver, 60, poll_frequency=0.5).until(lambda d: d.execute_script(SETTLED, f"{url}/en/"))
        driver.get(page)
        assert driver.title == "hijacked"  # every navigation of the section answered by the broken worker
        worker.write_bytes(good)  # the fix is published
        WebDriverWait(driver, 30, poll_frequency=1).until(lambda d: d.execute_script(CHECK_FOR_UPDATE, f"{url}/en/"))  # from the broken worker's page
        WebDriverWait(driver, 60, poll_frequency=0.5).until(lambda d: d.execute_script(SETTLED, f"{url}/en/"))
        driver.get(page)  # one more visit, the tab never closed
        assert driver.title == title
