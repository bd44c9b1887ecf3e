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
from browser import calculate, open_calculator, press, search, serious_violations, serve, set_scheme, until_controlled, wait

from generator.render.offline import section_files, section_manifest, stored_as
from generator.resolve.pages import CALCULATORS

CACHES = "return caches.keys()"


def install(driver, url: str, page: str) -> list[str]:
    """Visit a page of a section and wait until its service worker controls the page; the precache names."""
    driver.get(f"{url}/{page}")
    until_controlled(driver)
    return driver.execute_script(CACHES)


# The alpha (0-255) of each offline notice's background as painted: a canvas pixel filled with its computed colour.
NOTICE_ALPHAS = """
const pixel = document.createElement('canvas').getContext('2d');
return [...document.querySelectorAll('.kb-offline-notice')].map(notice => {
  pixel.clearRect(0, 0, 1, 1); pixel.fillStyle = getComputedStyle(notice).backgroundColor; pixel.fillRect(0, 0, 1, 1);
  return pixel.getImageData(0, 0, 1, 1).data[3];
});
"""


def assert_accessible(driver, selector: str = ".kb-offline-notice") -> None:
    """What only a page under its section's worker shows (the offline notices, by default), in either scheme as
    Material's toggle sets it: no serious or critical accessibility violation (axe; the pages' own axe tests run
    without the worker), and each notice opaque: Material's text colour, its background, is translucent, and the
    page's text showed through it."""
    for scheme in ("light", "dark"):
        set_scheme(driver, scheme)
        assert serious_violations(driver, selector) == [], scheme
        alphas = driver.execute_script(NOTICE_ALPHAS)
        assert (alphas or selector != ".kb-offline-notice") and all(alpha == 255 for alpha in alphas), (scheme, alphas)


@pytest.mark.browser
def test_a_visited_section_works_with_the_network_off(bundled_build: Path, offline_driver):
    driver = offline_driver
    requests: list[str] = []
    runtime = json.loads((bundled_build / "site" / "assets" / "calc" / "runtime.json").read_text(encoding="utf-8"))
    with serve(bundled_build / "site", requests) as url:
        names = [name for name in install(driver, url, "ru/citow/10-round.html") if not name.startswith(("kb-root-", "kb-shared-"))]
        assert len(names) == 1 and names[0].startswith("kb-ru-precache")
        # the root's worker too: it answers the root, the sections never visited and the aids
        wait(driver, 60).until(
            lambda d: d.execute_script("return navigator.serviceWorker.getRegistrations().then(rs => rs.filter(r => r.active).length)") == 2
        )
        assert driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"] == []  # "Install app" offered
        notice = wait(driver, 10).until(lambda d: d.find_elements("css selector", ".kb-offline-notice"))
        assert_accessible(driver)  # while it shows (6 s)
        # it says how much it keeps, and what the calculators would add
        pages = sum(p.stat().st_size for p in (bundled_build / "site" / "ru").rglob("*.html"))
        kept = float(re.search(r"сохранено ([0-9]+,[0-9]) МБ", notice[0].text)[1].replace(",", "."))
        assert 0.5 < kept < pages / 1e6 / 3, notice[0].text  # kept packed: well under the pages' own size, without the runtime
        assert f"({runtime['fetch_bytes'] / 1e6:.1f} МБ)".replace(".", ",") in notice[0].text
        assert not [r for r in requests if "/assets/calc/" in r and not r.endswith("runtime.json")]  # no runtime yet
        # the reader chooses to keep the calculators: the packed files come, with progress, then "kept"
        driver.get(f"{url}/ru/wizards-quest/{CALCULATORS.html}")
        keep = wait(driver, 10).until(lambda d: d.find_elements("css selector", ".kb-calc-keep"))[0]
        assert_accessible(driver, ".kb-calc-keep-box")
        assert f"{runtime['fetch_bytes'] / 1e6:.1f}".replace(".", ",") in keep.text
        press(driver, keep)
        wait(driver, 120).until(lambda d: d.find_element("css selector", ".kb-calc-keep-box").get_attribute("data-kept"))
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
    listed = wait(driver, 10).until(lambda d: d.find_element("css selector", ".kb-kept").get_attribute("data-listed"))
    kept = driver.execute_script("return Array.from(document.querySelectorAll('.kb-kept a')).map(a => a.getAttribute('href'))")
    assert int(listed) == len(kept) and f"{url}/ru/index.html" in kept and any(link.endswith(aid) for link in kept)
    assert not driver.find_element("css selector", ".kb-offline-games").is_displayed()  # en is not kept: its games are not offered
    driver.get(f"{url}/index.html")  # the root page
    assert "Rules reference" in driver.title and "offline.html" not in driver.current_url
    driver.get(f"{url}/cards/no-such-aid.pdf")  # an aid never opened: the offline page in the reader's language
    assert "/offline.html?from=" in driver.current_url


@pytest.mark.browser
def test_a_new_build_replaces_the_cached_one_and_the_page_says_so(mini_build: Path, offline_driver, tmp_path: Path):
    """(On the mini site: a section's worker works alike whatever the number of pages it keeps, and installing
    the bundled site's 926 files of a section three times made this file's tests the suite's slowest.)"""
    site = tmp_path / "site"
    shutil.copytree(mini_build / "site", site, symlinks=False)
    driver = offline_driver
    aid = next((site / "cards").glob("mini-pl-sheet-a4*.pdf"))
    fetched = "return fetch(arguments[0]).then(r => r.arrayBuffer()).then(b => b.byteLength)"
    with serve(site) as url:
        old = [name for name in install(driver, url, "pl/mini/index.html") if name.startswith("kb-pl-")]
        assert driver.execute_script(fetched, f"{url}/cards/{aid.name}") == aid.stat().st_size  # opened once: kept
        aid.write_bytes(aid.read_bytes() + b"\n% a new build of the aid\n")
        worker = site / "pl" / "sw.js"  # a new build: another data version, one page changed
        worker.write_text(worker.read_text(encoding="utf-8").replace(old[0].rsplit("-", 1)[1], "nextversion"), encoding="utf-8")
        driver.execute_script("return navigator.serviceWorker.getRegistration().then(r => r.update())")
        button = wait(driver, 120).until(lambda d: d.find_elements("css selector", ".kb-offline-notice button"))[0]
        assert "nowa wersja" in button.find_element("xpath", "..").text.lower()
        assert_accessible(driver)
        driver.execute_script("window.__before_reload = true")
        press(driver, button)
        wait(driver, 30).until(lambda d: d.execute_script("return window.__before_reload === undefined"))
        precache = old[0].rsplit("-", 1)[0] + "-nextversion"
        wait(driver, 30).until(
            lambda d: (
                precache in (kept := [name for name in d.execute_script(CACHES) if name.startswith("kb-pl-")])
                and all(name.endswith("-nextversion") for name in kept)
            )
        )  # the section's caches are the new build's only (the page's aid preview may be kept again; the runtime's and the root's are theirs)
        # the aid kept from the old version went with it: the phone gets the new build's aid
        assert driver.execute_script(fetched, f"{url}/cards/{aid.name}") == aid.stat().st_size


# Every cache's addresses (without their search part), by cache name.
KEPT = """return caches.keys().then((names) => Promise.all(names.map((name) => caches.open(name).then((cache) => cache.keys())
  .then((requests) => [name, requests.map((request) => request.url.split("?")[0])])))).then(Object.fromEntries)"""
# Whether the page has its styles: Material's and the site's stylesheets loaded, and the mark a test build adds.
STYLED = """const sheets = Array.from(document.styleSheets).filter((sheet) => sheet.href && sheet.cssRules.length > 0);
return {material: sheets.some((sheet) => /main[.][0-9a-f]+[.]min[.]css$/.test(sheet.href)),
        site: sheets.some((sheet) => sheet.href.endsWith("/assets/kb.css")),
        mark: getComputedStyle(document.documentElement).getPropertyValue("--kb-test-build").trim()}"""

CONTROLLER = "return navigator.serviceWorker.controller && navigator.serviceWorker.controller.scriptURL"
# Whether a cache's copy of a packed twin holds the test build's mark.
MARKED = """return caches.match(arguments[0], {cacheName: arguments[1]}).then((r) => r.arrayBuffer())
  .then((b) => new Response(new Blob([b]).stream().pipeThrough(new DecompressionStream("gzip"))).text()).then((t) => t.includes("--kb-test-build"))"""


def take_update(driver, url: str, page: str) -> None:
    """On a page of a section whose sw.js has changed on the server: the browser finds the new worker, the page
    offers "Reload", the reader takes it."""
    driver.get(f"{url}/{page}")
    driver.execute_script("return navigator.serviceWorker.getRegistration().then(r => r.update())")
    button = wait(driver, 180).until(lambda d: d.find_elements("css selector", ".kb-offline-notice button"))[0]
    driver.execute_script("window.__before_reload = true")
    press(driver, button)
    wait(driver, 30).until(lambda d: d.execute_script("return window.__before_reload === undefined"))


def settle(driver, *scopes: str) -> None:
    """Wait until the workers of these scopes are settled (SETTLED)."""
    for scope in scopes:
        wait(driver, 120).until(lambda d, scope=scope: d.execute_script(SETTLED, scope))


@pytest.mark.browser
def test_shared_assets_are_kept_once_for_every_section_and_go_only_when_no_section_uses_them(mini_build: Path, offline_driver, tmp_path: Path):
    """Issue 32: the assets every section uses (Material's bundle and styles, the site's scripts and styles,
    Workbox) are stored once on the phone, not in each section's precache; a new build of one section with a
    changed asset leaves the other section its own (styled offline), and the old copy goes only when no
    section's worker (nor the root's) names it. On the mini site, as above."""
    site = tmp_path / "site"
    shutil.copytree(mini_build / "site", site, symlinks=False)
    driver = offline_driver
    assets = sorted(stored_as(path) for path in section_files(site, "en") if path.startswith("assets/"))
    assert len(assets) > 10 and "assets/kb.css.gz" in assets
    with serve(site) as url:
        port = int(url.rsplit(":", 1)[1])
        for code in ("en", "ru"):
            install(driver, url, f"{code}/mini/index.html")  # (the root's worker, once there, controls a new section's page at first)
            wait(driver, 180).until(lambda d, code=code: d.execute_script(CONTROLLER) == f"{url}/{code}/sw.js")
            settle(driver, f"{url}/{code}/", f"{url}/")  # the section's worker and the root's
        kept = driver.execute_script(KEPT)
        holding = {path: sorted(name for name, urls in kept.items() if f"{url}/{path}" in urls) for path in assets}
        shared = sorted({name for names in holding.values() for name in names})
        assert len(shared) == 1 and shared[0].startswith("kb-shared-"), holding  # one copy, in one cache
        assert all(names == shared for names in holding.values()), holding
        assert not [u for name, urls in kept.items() if not name.startswith("kb-shared-") for u in urls if "/assets/kb" in u]  # nor unpacked
        assert sorted(name.split("-")[1] for name in kept if "-precache-" in name) == ["en", "ru"]  # both sections kept
        old = shared[0]
        assert [section_manifest((site / code / "sw.js").read_text(encoding="utf-8"))["shared"]["cache"] for code in ("en", "ru")] == [old, old]
    # the network is off: both sections work, styled
    for code in ("en", "ru"):
        driver.get(f"{url}/{code}/mini/index.html")
        assert "offline.html" not in driver.current_url
        assert driver.execute_script(STYLED) == {"material": True, "site": True, "mark": ""}, code
    # a new build of the site's stylesheet, taken by the en section (and the root's worker, which takes any update at once)
    css = site / "assets" / "kb.css"
    css.write_bytes(css.read_bytes() + b"\n:root { --kb-test-build: next; }\n")
    (site / "assets" / "kb.css.gz").write_bytes(gzip.compress(css.read_bytes()))
    version = section_manifest((site / "en" / "sw.js").read_text(encoding="utf-8"))["version"]
    for worker in (site / "en" / "sw.js", site / "sw.js"):
        worker.write_text(worker.read_text(encoding="utf-8").replace(old, "kb-shared-nextbuild").replace(version, "nextversion"), encoding="utf-8")
    with serve(site, port=port):
        take_update(driver, url, "en/mini/index.html")
        driver.execute_script("return navigator.serviceWorker.getRegistration(arguments[0]).then(r => r.update())", f"{url}/")
        settle(driver, f"{url}/en/", f"{url}/")
        wait(driver, 60).until(lambda d: any(n.startswith("kb-en-precache") and n.endswith("-nextversion") for n in d.execute_script(CACHES)))
        wait(driver, 60).until(lambda d: "kb-root-nextversion" in d.execute_script(CACHES))
        assert driver.execute_script(STYLED)["mark"] == "next"
        kept = driver.execute_script(KEPT)
        assert old in kept and f"{url}/assets/kb.css.gz" in kept[old]  # ru's worker still names the old copy
        assert [driver.execute_script(MARKED, f"{url}/assets/kb.css.gz", name) for name in (old, "kb-shared-nextbuild")] == [False, True]
        assert sorted(kept["kb-shared-nextbuild"]) == sorted(f"{url}/{path}" for path in assets)
    # the network is off again: each section with its own build's styles
    for code, mark in (("ru", ""), ("en", "next"), ("ru", "")):
        driver.get(f"{url}/{code}/mini/index.html")
        assert "offline.html" not in driver.current_url
        served = driver.execute_script("return fetch('../../assets/kb.css').then((r) => r.text()).then((t) => t.includes('--kb-test-build'))")
        assert (served, driver.execute_script(STYLED)) == (mark == "next", {"material": True, "site": True, "mark": mark}), code
    # ru takes the new build too: no worker names the old copy now, and it goes
    worker = site / "ru" / "sw.js"
    worker.write_text(worker.read_text(encoding="utf-8").replace(old, "kb-shared-nextbuild").replace(version, "nextversion"), encoding="utf-8")
    with serve(site, port=port):
        take_update(driver, url, "ru/mini/index.html")
        wait(driver, 120).until(lambda d: old not in d.execute_script(CACHES))
        assert "kb-shared-nextbuild" in driver.execute_script(CACHES)
        assert driver.execute_script(STYLED) == {"material": True, "site": True, "mark": "next"}


@pytest.mark.integration
def test_each_packed_file_of_a_section_has_a_twin_that_unpacks_to_it(bundled_build: Path):
    """What the offline copies keep packed: every file a section lists in `packed` has a ".gz" twin holding the
    file's bytes, precached in its place; nothing else of the section is packed."""
    site = bundled_build / "site"
    for worker in sorted(site.glob("*/sw.js")):
        section = section_manifest(worker.read_text(encoding="utf-8"))
        precached = {entry["url"] for entry in section["precache"]} | set(section["shared"]["files"])  # its own, and the shared
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
        wait(driver, 60).until(lambda d: d.execute_script(SETTLED, f"{url}/en/"))
        driver.get(page)
        assert driver.title == "hijacked"  # every navigation of the section answered by the broken worker
        worker.write_bytes(good)  # the fix is published
        wait(driver, 30, poll_frequency=1).until(lambda d: d.execute_script(CHECK_FOR_UPDATE, f"{url}/en/"))  # from the broken worker's page
        wait(driver, 60).until(lambda d: d.execute_script(SETTLED, f"{url}/en/"))
        driver.get(page)  # one more visit, the tab never closed
        assert driver.title == title
