"""Print, over every chapter page of a built site at phone size (390 × 844), the share of the page's
scroll height that is the rules themselves: the entries' titles, texts, tables, rulings and worked
examples, as against the page's chrome, headings and each entry's closed "sources and details".

    .venv/bin/python scripts/answer_share.py [SITE]      (default: site/)
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from browser import make_driver, serve  # noqa: E402  (the test suite's Chromium set-up)

MEASURE = """
const entries = [...document.querySelectorAll('section.kb-entry')];
let rules = 0;
for (const entry of entries)
  for (const child of entry.children)
    if (!child.matches('details.kb-details')) rules += child.getBoundingClientRect().height;
return [rules, document.documentElement.scrollHeight];
"""


def main(site: Path) -> int:
    pages = sorted(p for p in site.glob("*/*/[0-9][0-9]-*.html"))
    driver = make_driver(390, 844)
    shares = []
    with serve(site) as url:
        for page in pages:
            driver.get(f"{url}/{page.relative_to(site).as_posix()}")
            rules, height = driver.execute_script(MEASURE)
            shares.append(rules / height)
    driver.quit()
    print(f"{len(pages)} chapter pages at 390 × 844: rule text is {statistics.mean(shares):.0%} of the scroll height "
          f"on average (median {statistics.median(shares):.0%}, lowest {min(shares):.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "site"))
