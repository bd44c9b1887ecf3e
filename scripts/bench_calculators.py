"""Benchmark of the calculators and the offline site (issue 15's targets), on a built site in Chromium.

    .venv/bin/python scripts/bench_calculators.py [SITE]      (default: site/, after bash scripts/build.sh)

Prints: the calculators' runtime in bytes (raw and gzip) and what a section stores for offline use; what
a page without a calculator downloads beyond a page of the same kind before calculators existed (nothing
of kb-calc or the runtime); the first answer after opening a calculator over local http, cold (fresh
browser, nothing cached) and with the runtime cached (a second visit); later answers; and, with the
server shut down after the first visit, whether every calculator of the section still answers.
Targets (issue 15): first answer <= 5 s cold, <= 1 s cached; later answers <= 200 ms; all answer offline.
"""

from __future__ import annotations

import gzip
import json
import statistics
import sys
from pathlib import Path
from urllib.parse import unquote

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]
from browser import make_driver, open_calculator, press, serve  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from generator.render.offline import section_manifest  # noqa: E402

SECTION, GAME, CHECK = "ru", "citow", "hit_probability"


def sizes(paths: list[Path]) -> tuple[int, int]:
    return sum(p.stat().st_size for p in paths), sum(len(gzip.compress(p.read_bytes(), 6)) for p in paths)


def answer_seconds(driver, block, fill: dict[str, str]) -> float:
    """Fill the named inputs, press Calculate; seconds the page measured from the press to the answer."""
    for name, value in fill.items():
        field = block.find_element("css selector", f"input[name='{name}']")
        field.clear()
        field.send_keys(value)
    driver.execute_script("arguments[0].querySelector('.kb-calc-answer').textContent = ''", block)
    answers = len(driver.execute_script("return window.kbCalc.timings.filter(t => 'ms' in t)"))
    press(driver, block.find_element("css selector", "button[type=submit]"))
    WebDriverWait(driver, 120, poll_frequency=0.02).until(lambda d: block.find_element("css selector", ".kb-calc-answer").text)
    return driver.execute_script("return window.kbCalc.timings.filter(t => 'ms' in t)")[answers]["ms"] / 1000


def first_answer(driver, url: str) -> tuple[float, dict]:
    """Seconds a player waits for the first answer after opening a calculator (its button), measured in the
    page: from the tap until the calculator is ready, plus the first answer's own time (the typing in
    between is the player's); and the worker's start in steps (ms)."""
    driver.get(f"{url}/{SECTION}/{GAME}/calculators.html")
    block = open_calculator(driver, CHECK)
    answer_seconds(driver, block, {"dice": "5", "hits": "3"})
    timings = driver.execute_script("return window.kbCalc.timings")
    ready = next(t for t in timings if "ready_ms" in t)
    first = next(t for t in timings if "ms" in t)
    return (ready["ready_ms"] + first["ms"]) / 1000, ready["phases"]


def every_calculator_offline(driver, url: str, site: Path) -> tuple[int, int, list[str]]:
    """(answered, all, failures) over every calculator of the section, the server down: each filled with
    its first worked example, or sent empty (then the rules' or the schema's refusal is its answer)."""
    answered, total, failures = 0, 0, []
    for spec_file in sorted((site / SECTION).glob("*/calculators.json")):
        spec = json.loads(spec_file.read_text(encoding="utf-8"))
        driver.get(f"{url}/{SECTION}/{spec['game']}/calculators.html")
        for name, check in spec["checks"].items():
            total += 1
            try:
                block = open_calculator(driver, name, timeout=120)
                if check["examples"]:
                    press(driver, block.find_element("css selector", ".kb-calc-example"))
                press(driver, block.find_element("css selector", "button[type=submit]"))
                WebDriverWait(driver, 60).until(
                    lambda d, shown=block: (
                        shown.find_element("css selector", ".kb-calc-answer").text or shown.find_elements("css selector", ".kb-calc-error")
                    )
                )
                shown = block.text
                if "не удалось запустить" in shown.lower():
                    raise RuntimeError(shown)
                answered += 1
            except Exception as err:  # a benchmark reports, it does not stop
                failures.append(f"{spec['game']} {name}: {str(err).splitlines()[0][:120]}")
    return answered, total, failures


def main(site: Path) -> None:
    runtime = sorted(p for p in (site / "assets" / "calc").rglob("*") if p.is_file())
    raw, packed = sizes(runtime)
    worker = section_manifest((site / SECTION / "sw.js").read_text(encoding="utf-8"))
    # the section's own files and the shared assets (kept once for every section: offline.shared_manifest)
    stored = [(site / SECTION / url).resolve() for url in [*(entry["url"] for entry in worker["precache"]), *worker["shared"]["files"]]]
    stored_raw, stored_packed = sizes(stored)
    listed = json.loads((site / "assets" / "calc" / "runtime.json").read_text(encoding="utf-8"))
    print(
        f"calculators' runtime (assets/calc/, {len(runtime)} files with the .gz twins): {raw / 1e6:.1f} MB on disk; "
        f"a first start fetches {listed['fetch_bytes'] / 1e6:.1f} MB ({len(listed['fetch'])} files, the packed ones unpacked in the browser)"
    )
    print(
        f"a section stored for offline use without the calculators ({SECTION}, {len(stored)} files): "
        f"{stored_raw / 1e6:.1f} MB raw, {stored_packed / 1e6:.1f} MB gzip (target <= 10 MB)"
    )

    driver = make_driver()
    requests: list[str] = []
    try:
        with serve(site, requests) as url:
            fetched = "return document.readyState === 'complete' && performance.getEntriesByType('resource').map(r => new URL(r.name).pathname)"
            driver.get(f"{url}/{SECTION}/{GAME}/10-round.html")
            plain = WebDriverWait(driver, 10).until(lambda d: d.execute_script(fetched))
            extra = [p for p in plain if "kb-calc" in p or "/calc/" in p]
            print(f"a page without a calculator: {len(plain)} files fetched by the page, calculator files among them: {len(extra)}")
            before = len(requests)
            cold = first_answer(driver, url)
            moved = sum((site / unquote(path.split("?")[0]).lstrip("/")).stat().st_size for path in requests[before:] if "/assets/calc/" in path)
            print(f"the first answer, cold, from a host that does not compress: {moved / 1e6:.1f} MB of the runtime transferred (target <= 15)")
            later = [
                answer_seconds(driver, driver.find_element("css selector", f".kb-calc[data-check='{CHECK}']"), {"dice": str(n), "hits": str(k)})
                for n, k in ((4, 2), (6, 3), (8, 5), (10, 1), (3, 3), (7, 4))
            ]
            WebDriverWait(driver, 180).until(lambda d: d.execute_script("return navigator.serviceWorker.controller !== null"))
            cached = first_answer(driver, url)
        print(
            f"first answer after opening ({GAME} {CHECK}): cold {cold[0]:.2f} s (target <= 5), runtime cached {cached[0]:.2f} s"
            f" (target <= 1); the worker's start, cold: {cold[1]}, cached: {cached[1]}"
        )
        print(f"later answers: median {statistics.median(later) * 1000:.0f} ms, max {max(later) * 1000:.0f} ms (target <= 200)")
        answered, total, failures = every_calculator_offline(driver, url, site)
        print(f"with the network off after the first visit: {answered}/{total} calculators of /{SECTION}/ answer")
        for failure in failures:
            print(f"  {failure}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "site")
