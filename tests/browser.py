"""Headless Chromium (Debian's chromium + chromium-driver) driven by Selenium, and a local server."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from contextlib import contextmanager
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"  # scripts/setup.sh installs it
# axe-core's WCAG 2.0/2.1 A and AA rules over the page as it is (or the elements a selector picks, arguments[0]): each
# serious or critical violation, with up to three of its elements.
AXE_RUN = """
const [within, done] = arguments;
axe.run(within || document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}}).then(result => done(
  result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))));
"""

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


# Run before each document's own scripts: the page finds no service workers, as in a browser without them
# (kb-offline.js then registers none). Installing a section's worker precaches its ~1,100 files: measured on the
# bundled site, ~8 s of both cores per section and origin, in tests that do not look at it (each `serve` is a new origin).
NO_SERVICE_WORKERS = "delete Navigator.prototype.serviceWorker;"


def make_driver(width: int = 390, height: int = 844, service_workers: bool = False, languages: str = "") -> webdriver.Chrome:
    """Headless Chromium showing a phone's (or `width`'s) viewport; `service_workers`: the pages may install theirs
    (the offline tests, the security tests), else they find none (NO_SERVICE_WORKERS); `languages`: the reader's
    languages in order ("pl,en"), as a phone set to them asks for pages, else the browser's own."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    if languages:
        options.add_argument(f"--lang={languages.split(',')[0]}")
        options.add_experimental_option("prefs", {"intl.accept_languages": languages})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    # Headless Chromium will not make a window narrower than 500 px: emulate the phone's viewport.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    if not service_workers:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": NO_SERVICE_WORKERS})
    return driver


@contextmanager
def serve(directory: Path, requests: list[str] | None = None, port: int = 0):
    """Serve a folder on 127.0.0.1 (a free port, or `port`: the same site again after a cut) for the duration of
    the block; the paths asked for are appended to `requests` when given."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send_head(self):
            if requests is not None:
                requests.append(self.path)
            return super().send_head()

    handler = functools.partial(Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def until_controlled(driver, timeout: float = 180) -> None:
    """Wait until the page is controlled by its section's service worker (installed: its files precached)."""
    wait(driver, timeout).until(lambda d: d.execute_script("return navigator.serviceWorker.controller !== null"))


POLL = 0.05  # seconds between a wait's looks: Selenium's 0.5 s was most of a search's or a calculator's answer time


def wait(driver, timeout: float, poll_frequency: float = POLL, **options) -> WebDriverWait:
    """A WebDriverWait that looks every POLL seconds (the page's own work takes milliseconds)."""
    return WebDriverWait(driver, timeout, poll_frequency=poll_frequency, **options)


def search(driver, query: str, timeout: float = 10, pasted: bool = False) -> list[dict]:
    """Type a query into the page's search box like a player (`pasted`: put in at once, one input event, as a
    paste does: a third of the time, where only the results matter); return the results shown."""
    box = wait(driver, timeout).until(lambda d: d.find_element("css selector", ".kb-search input"))
    if pasted:
        driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}));", box, query)
    else:
        box.clear()
        box.send_keys(query)
    wait(driver, timeout).until(lambda d: d.execute_script("return document.querySelector('.kb-search').dataset.query") == query)
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.kb-search-results a.kb-search-result'))"
        ".map(a => ({entry: a.dataset.entry, href: a.href, title: a.querySelector('.kb-search-title').textContent}))"
    )


def press(driver, element) -> None:
    """Tap an element as a player would: scrolled to the middle of the screen first, at once (a smooth
    scroll still running would move the element from under the tap: a long form's button was missed)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", element)
    element.click()


def open_calculator(driver, check: str, timeout: float = 180):
    """Open the calculator of `check` on the current page like a player (its button) and wait until
    its runtime has started; returns the calculator's block."""
    block = driver.find_element("css selector", f".kb-calc[data-check='{check}']")
    press(driver, block.find_element("css selector", ".kb-calc-open"))
    wait(driver, timeout).until(lambda d: block.get_attribute("data-ready"))
    assert block.get_attribute("data-ready") == "yes", block.find_element("css selector", ".kb-calc-status").text
    return block


def calculate(driver, block, timeout: float = 60) -> dict:
    """Press the block's Calculate button; returns what it shows: the sentence, the answer's JSON
    (from "The answer as JSON"), the rules' refusal and the fields' messages."""
    driver.execute_script("arguments[0].querySelector('.kb-calc-answer').textContent = ''", block)
    press(driver, block.find_element("css selector", "button[type=submit]"))
    wait(driver, timeout).until(
        lambda d: block.find_element("css selector", ".kb-calc-answer").text or block.find_elements("css selector", ".kb-calc-error")
    )
    return driver.execute_script(
        """
        const block = arguments[0], pre = block.querySelector('.kb-calc-json pre');
        const text = (selector) => { const node = block.querySelector(selector); return node ? node.textContent : null; };
        return {sentence: text('.kb-calc-sentence'), json: pre ? JSON.parse(pre.textContent) : null,
                refused: text('.kb-calc-refused'),
                followed: Array.from(block.querySelectorAll('.kb-calc-followed a')).map(a => a.getAttribute('href')),
                errors: Array.from(block.querySelectorAll('.kb-calc-error')).map(e => ({text: e.textContent,
                        field: (e.parentElement.querySelector('input,select') || {}).name || null}))};""",
        block,
    )


@functools.cache
def palettes() -> dict[str, tuple[str, str]]:
    """mkdocs.yml's palettes as Material's toggle sets them on the page: (scheme, accent) by "light" and "dark" (Material
    writes an accent "deep orange" as "deep-orange"). The file is read as data, as aid_qr.site_url reads it."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.constructor.add_constructor(None, lambda loader, node: None)  # mkdocs' own tags, if any, read as nothing
    config = yaml.load((Path(__file__).parent.parent / "mkdocs.yml").read_text(encoding="utf-8"))
    return {
        "dark" if palette["scheme"] == "slate" else "light": (palette["scheme"], palette["accent"].replace(" ", "-"))
        for palette in config["theme"]["palette"]
    }


def set_scheme(driver, scheme: str) -> None:
    """Show the page in the `scheme` ("light", "dark") as Material's toggle does, with the page's transitions off: axe
    must not read a colour half-way through Material's (a button's text, a notice's background) when the scheme changes."""
    driver.execute_script(
        "if (!document.getElementById('kb-test-no-transitions')) {"
        "  const style = document.createElement('style'); style.id = 'kb-test-no-transitions';"
        "  style.textContent = '*, *::before, *::after { transition: none !important; }';"
        "  document.head.appendChild(style);"
        "}"
        "document.body.setAttribute('data-md-color-scheme', arguments[0]);"
        "document.body.setAttribute('data-md-color-accent', arguments[1]);",
        *palettes()[scheme],
    )


def serious_violations(driver, within: str | None = None) -> list[str]:
    """axe-core's serious or critical violations on the driver's page as it is now (AXE_RUN), or in the elements the
    CSS selector `within` picks; axe is added to the page the first time."""
    if not driver.execute_script("return typeof axe !== 'undefined'"):
        driver.execute_script(axe_script())
    return list(driver.execute_async_script(AXE_RUN, within))


@functools.cache
def axe_script() -> str:
    return AXE.read_text(encoding="utf-8")


# Every calculator of the page opened and answered (its first worked example, else the empty form) by the page's own
# buttons, pressed from one script: a WebDriver tap each was two thirds of the accessibility test's time, and the taps
# themselves are test_each_calculator_shows_its_worked_examples_outcome's. Arguments: [[check, has an example], ...];
# answers null, or what went wrong.
ANSWER_ALL = """
const checks = arguments[0], done = arguments[arguments.length - 1];
const until = (test, what) => new Promise((resolve, reject) => {
  const started = performance.now();
  (function look() {
    const value = test();
    if (value) resolve(value);
    else if (performance.now() - started > 180000) reject(new Error('no ' + what + ' in 180 s'));
    else setTimeout(look, 20);
  })();
});
(async () => {
  for (const [name, example] of checks) {
    const block = document.querySelector(`.kb-calc[data-check='${name}']`);
    block.querySelector('.kb-calc-open').click();
    const ready = await until(() => block.getAttribute('data-ready'), name + "'s runtime");
    if (ready !== 'yes') throw new Error(name + ': ' + block.querySelector('.kb-calc-status').textContent);
    if (example) block.querySelector('.kb-calc-example').click();
    block.querySelector('.kb-calc-answer').textContent = '';
    block.querySelector('button[type=submit]').click();
    await until(() => block.querySelector('.kb-calc-answer').textContent || block.querySelector('.kb-calc-error'), name + "'s answer");
  }
})().then(() => done(null), (error) => done(String(error)));
"""


def answer_every_calculator(driver, spec: dict) -> str | None:
    """Every calculator of the driver's Calculators page opened and answered by its own buttons (ANSWER_ALL); `spec`:
    that page's calculators.json. None, or what went wrong."""
    driver.set_script_timeout(600)
    checks = [[name, bool(check["examples"])] for name, check in spec["checks"].items()]
    return driver.execute_async_script(ANSWER_ALL, checks)
