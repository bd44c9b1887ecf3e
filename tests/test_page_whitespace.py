"""Pages are written without the indentation of Material's templates (mkdocs_hooks.squeezed): a run of whitespace
that holds a line break, at a tag, becomes one line break, except where whitespace is shown as it is or is code.
The page must look the same: a browser shows such a run as one space, or nothing, whatever it holds."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from browser import serve

from generator.render.mkdocs_hooks import KEPT_AS_WRITTEN, outside_kept, squeezed


@pytest.mark.unit
def test_runs_at_tags_become_one_line_break_and_shown_whitespace_stays():
    page = (
        '<nav>\n      <ul>\n        \n        <li class="a">\n          <span>\n            Rules   reference\n          </span>\n'
        "        </li>\n      </ul>\n    </nav>\n"
        "<pre>  keep\n\n     this  </pre>\n<textarea>\n  as typed\n</textarea>\n"
        "<script>const row = `>\n   <td>`;\n   run();</script>\n<style>\n  a > b { }\n</style>\n"
        "<p>Inline <code>x\n    y</code> and <!-- a\n\n   comment --> text</p>\n"
        '<a title="first line\n      second &gt;\n   line">a link</a>   <b>two  spaces</b>\n'
    )
    assert squeezed(page) == (
        '<nav>\n<ul>\n<li class="a">\n<span>\nRules   reference\n</span>\n</li>\n</ul>\n</nav>\n'
        "<pre>  keep\n\n     this  </pre>\n<textarea>\n  as typed\n</textarea>\n"
        "<script>const row = `>\n   <td>`;\n   run();</script>\n<style>\n  a > b { }\n</style>\n"
        "<p>Inline <code>x\n    y</code> and <!-- a\n\n   comment --> text</p>\n"
        '<a title="first line\n      second &gt;\n   line">a link</a>   <b>two  spaces</b>\n'
    )
    assert squeezed(squeezed(page)) == squeezed(page)


def site_pages(site: Path) -> list[Path]:
    return sorted(path for path in site.rglob("*.html") if "cards" not in path.relative_to(site).parts)


@pytest.mark.integration
def test_every_page_and_404_page_is_written_squeezed(mini_build: Path):
    """The pages mkdocs renders (on_post_page), the root 404 page (on_post_template) and each section's
    (on_post_build): none has a run left to squeeze, and their indentation is gone."""
    pages = site_pages(mini_build / "site")
    names = {path.relative_to(mini_build / "site").as_posix() for path in pages}
    assert {"404.html", "en/404.html", "ru/404.html", "pl/404.html", "en/mini/10-rules.html"} <= names
    for path in pages:
        html = path.read_text(encoding="utf-8")
        assert squeezed(html) == html, path
        shown = KEPT_AS_WRITTEN.sub("", html)  # what is squeezed: not pre, textarea, script, style, code or comments
        assert not re.search(r">\n[ \t]", shown), path


# Whitespace as Material's templates write it, put back: each line break after or before a tag as a run of blank
# lines and indentation.
INDENTED = "\n            \n        \n    "


def indented(html: str) -> str:
    """A squeezed page with its runs at tags made long again (the inverse of `squeezed`, but for its length)."""
    return outside_kept(html, lambda text: text.replace(">\n", ">" + INDENTED).replace("\n<", INDENTED + "<"))


LAYOUT = """
const boxes = [];
for (const element of document.querySelectorAll('body *')) {
  const box = element.getBoundingClientRect();
  boxes.push([element.tagName, element.className.baseVal === undefined ? element.className : '',
              Math.round(box.x * 100), Math.round(box.y * 100), Math.round(box.width * 100), Math.round(box.height * 100)]);
}
return [document.body.innerText, boxes];
"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1280])
def test_a_squeezed_page_looks_as_it_did_indented(mini_build: Path, tmp_path: Path, driver, width: int):
    """Each page of the mini site (the root's home and 404; each section's home, 404, offline page and clarifications of
    every game; the game's page, chapter, glossary, A–Z, clarifications, examples and changes) and the same page with
    its runs at tags long again, as Material's templates wrote them: the same text as the reader sees it (innerText)
    and every element in the same place and size. The pages find no service worker (browser.make_driver): a page that
    installs one says so, and the second of the two would say it differently."""
    site = tmp_path / "site"
    shutil.copytree(mini_build / "site", site, copy_function=os.link)  # the mini build is shared: only new files go in
    pages = [path.relative_to(site).as_posix() for path in site_pages(site)]
    assert len(pages) >= 20
    for page in pages:
        squeezed_page = (site / page).read_text(encoding="utf-8")
        (site / indented_name(page)).write_text(indented(squeezed_page), encoding="utf-8")
        assert (site / indented_name(page)).stat().st_size > (site / page).stat().st_size + 1000, page
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": width < 600})
    try:
        with serve(site) as url:
            for page in pages:
                seen = []
                for name in (page, indented_name(page)):
                    driver.get(f"{url}/{name}")
                    seen.append(driver.execute_script(LAYOUT))
                assert seen[0][0] == seen[1][0], page
                assert seen[0][1] == seen[1][1], page
    finally:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})


def indented_name(page: str) -> str:
    return page.removesuffix(".html") + ".indented.html"
