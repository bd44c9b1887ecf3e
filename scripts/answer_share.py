"""Print, over every chapter page of a built site at phone size (390 × 844), the share of the page's
scroll height that is the rules themselves: the entries' titles, texts, tables, rulings and worked
examples, as against the page's chrome, headings, spacing and each entry's closed "sources and details".
It also prints the share of each page's own height, which differs for pages shorter than the screen.

    .venv/bin/python scripts/answer_share.py [SITE]      (default: site/)
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from browser import make_driver, serve  # noqa: E402  (the test suite's Chromium set-up)

LOWEST = 5  # pages named at the end: where the chrome outweighs the rules
MEASURE = """
const entries = [...document.querySelectorAll('section.kb-entry')];
let rules = 0;
for (const entry of entries)
  for (const child of entry.children)
    if (!child.matches('details.kb-details')) rules += child.getBoundingClientRect().height;
if (entries.length === 1 && !entries[0].querySelector('.kb-entry-title'))  // the page's heading is the entry's title
  rules += document.querySelector('.kb-page > h1').getBoundingClientRect().height;
const inner = document.querySelector('.md-main__inner').getBoundingClientRect().bottom + scrollY;
const own = inner + document.querySelector('.md-footer').getBoundingClientRect().height;
return [rules, document.documentElement.scrollHeight, Math.min(own, document.documentElement.scrollHeight)];
"""


def main(site: Path) -> int:
    pages = sorted(p for p in site.glob("*/*/[0-9][0-9]-*.html"))
    driver = make_driver(390, 844)
    shares, own_shares = [], []
    with serve(site) as url:
        for page in pages:
            driver.get(f"{url}/{page.relative_to(site).as_posix()}")
            rules, height, own = driver.execute_script(MEASURE)
            shares.append(rules / height)
            own_shares.append(rules / own)
    driver.quit()
    print(
        f"{len(pages)} chapter pages at 390 × 844: rule text is {statistics.mean(shares):.1%} of the scroll height "
        f"on average (median {statistics.median(shares):.0%}, lowest {min(shares):.0%})"
    )
    # a page shorter than the screen still scrolls the screen's height: blank space, not chrome
    print(
        f"  of the page's own height (blank space below a short page left out): {statistics.mean(own_shares):.1%} "
        f"on average (median {statistics.median(own_shares):.0%}, lowest {min(own_shares):.0%})"
    )
    for share, page in sorted(zip(shares, pages, strict=True))[:LOWEST]:
        print(f"  {share:4.0%}  {page.relative_to(site).as_posix()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "site"))
