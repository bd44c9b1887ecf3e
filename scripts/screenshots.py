"""The README's phone screenshots of issue 27's views, taken anew from a built site in Chromium (390 px).

    .venv/bin/python scripts/screenshots.py [SITE]      (default: site/, after bash scripts/build.sh)

Writes into docs/screenshots/: a calculator answered (ru), a game's page with its calculators (pl), a paragraph's
number tapped (ru), and the offline page with the network gone (ru).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
from browser import calculate, make_driver, open_calculator, press, serve  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

OUT = REPO / "docs" / "screenshots"


def main(site: Path) -> None:
    driver = make_driver()
    try:
        with serve(site) as url:
            driver.get(f"{url}/ru/wizards-quest/calculators.html")
            block = open_calculator(driver, "death_range")
            press(driver, block.find_element("css selector", ".kb-calc-example"))
            calculate(driver, block)
            driver.execute_script("arguments[0].querySelector('.kb-calc-answer').scrollIntoView({block: 'center'})", block)
            driver.save_screenshot(str(OUT / "calculator-ru-phone.png"))
            driver.get(f"{url}/pl/citow/index.html#calculators")
            driver.save_screenshot(str(OUT / "game-calculators-pl-phone.png"))
            driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"], "origin": url})
            driver.get(f"{url}/ru/citow/30-corruption-phase.html")
            mark = driver.find_element("css selector", "section:has(> #dominance-value) a.kb-para")
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", mark)
            mark.click()
            WebDriverWait(driver, 5).until(lambda d: d.find_elements("css selector", ".kb-para-copied"))
            driver.save_screenshot(str(OUT / "cite-ru-phone.png"))
            WebDriverWait(driver, 180).until(
                lambda d: d.execute_script("return navigator.serviceWorker.getRegistrations().then(rs => rs.filter(r => r.active).length)") == 2
            )
        driver.get(f"{url}/ru/citow/no-such-page.html")  # the server is gone
        WebDriverWait(driver, 10).until(lambda d: d.find_element("css selector", ".kb-kept").get_attribute("data-listed"))
        driver.save_screenshot(str(OUT / "offline-ru-phone.png"))
    finally:
        driver.quit()
    print(f"written to {OUT.relative_to(REPO)}/: calculator-ru-phone, game-calculators-pl-phone, cite-ru-phone, offline-ru-phone")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "site")
