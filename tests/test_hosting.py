"""Hosting in a sub-folder (a GitHub Pages project site, https://<user>.github.io/<repo>/): with mkdocs.yml's
`site_url` naming that address, the site builds (its aids with their QR codes), and the "not found" pages —
the root's and each section's, which a host shows at any depth of an unknown address — load their styles
and lead home under the sub-folder. Without `site_url` they link from the host's root, as mkdocs makes
every error page (a page shown at any address cannot link relatively): the README says to set it."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import MINI, REPO

from generator.base.paths import SNAPSHOT_CACHE

pytestmark = pytest.mark.browser

FOLDER = "/kb/"
SITE_URL = f"https://rules.example.org{FOLDER}"


@pytest.fixture(scope="module")
def hosted_build(tmp_path_factory) -> Path:
    """The mini data built by a copy of the generator whose mkdocs.yml names a site in a sub-folder."""
    root = tmp_path_factory.mktemp("hosting")
    copy, out = root / "repo", root / "out"
    copy.mkdir()
    for part in ("generator", "rules_check", "schemas"):
        shutil.copytree(REPO / part, copy / part, ignore=shutil.ignore_patterns("__pycache__", "data"))
    for part in ("node_modules", ".venv"):  # the front-end packages and the calculators' wheels, as installed
        (copy / part).symlink_to(REPO / part)
    # The calculators' start-up snapshot is made from the same code: shared with the repository's builds, not made
    # again with Node.js (~30 s; calculators.start_snapshot writes it whole or not at all, whoever runs beside).
    SNAPSHOT_CACHE.mkdir(parents=True, exist_ok=True)
    (copy / "build").mkdir()
    (copy / "build" / "calc-cache").symlink_to(SNAPSHOT_CACHE)
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert "site_url:" not in config
    (copy / "mkdocs.yml").write_text(config.replace("site_name:", f"site_url: {SITE_URL}\nsite_name:", 1), encoding="utf-8")
    built = subprocess.run(
        [sys.executable, "-m", "generator", "build", "--data", str(MINI), "--out", str(out)],
        cwd=copy,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(copy)},
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    assert "no QR code" not in built.stdout  # the site's address is known: the aids carry it
    return out / "site"


@pytest.fixture(scope="module")
def sub_folder_host(hosted_build: Path) -> Iterator[str]:
    """A host serving the site under FOLDER and, for an unknown address, the section's 404 page (the root's
    outside the sections), with status 404, whatever the address's depth."""
    site = hosted_build

    class Host(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def translate_path(self, path: str) -> str:
            return super().translate_path(path[len(FOLDER) - 1 :]) if path.startswith(FOLDER) else "/nonexistent"

        def send_error(self, code, message=None, explain=None) -> None:
            if code != 404:
                return super().send_error(code, message, explain)
            section = self.path[len(FOLDER) :].split("/", 1)[0]
            page = site / section / "404.html" if section and (site / section / "404.html").is_file() else site / "404.html"
            body = page.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Host, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("address, home", [("ru/no/such/chapter/page.html", "ru"), ("pl/missing.html", "pl"), ("nowhere/at/all", "en")])
def test_not_found_pages_in_a_sub_folder_load_their_styles_and_lead_home(driver, sub_folder_host: str, address: str, home: str):
    driver.get(f"{sub_folder_host}{FOLDER}{address}")
    styled = driver.execute_script("""return [...document.styleSheets].filter((sheet) => {
        try { return sheet.cssRules.length > 0; } catch (err) { return false; } }).length""")
    assert styled >= 2  # Material's and the site's own
    assert driver.execute_script("return getComputedStyle(document.querySelector('.md-header')).position") == "sticky"
    link = driver.execute_script("return document.querySelector('.kb-not-found a').href")
    assert link == f"{sub_folder_host}{FOLDER}{home}/index.html"
    urls = driver.execute_script("return [...document.querySelectorAll('link[href], script[src]')].map((e) => e.href || e.src)")
    assert urls and all(url.startswith(f"{sub_folder_host}{FOLDER}") for url in urls)
