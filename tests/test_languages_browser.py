"""Every word a Russian or Polish reader meets is theirs, or marked as English: a browser walks every
page of the ru and pl sections and reads each text node with the language of its nearest `lang`."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import serve

from generator.base.textmatch import reads_as_english

pytestmark = pytest.mark.browser

TEXT_IN_THE_PAGE_LANGUAGE = """
const page = document.documentElement.lang.split('-')[0], found = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode, text = node.textContent.trim(), element = node.parentElement;
  if (!text || element.closest('script, style, template, noscript')) continue;
  const marked = element.closest('[lang]') || document.documentElement;
  if (marked.getAttribute('lang').split('-')[0] === page) found.push(text);
}
return [page, found];"""


def test_no_english_outside_lang_en_on_any_ru_or_pl_page(driver, bundled_build: Path):
    site = bundled_build / "site"
    pages = sorted(p.relative_to(site).as_posix() for section in ("ru", "pl") for p in (site / section).rglob("*.html"))
    assert len(pages) > 200
    english = []
    with serve(site) as url:
        for page in pages:
            driver.get(f"{url}/{page}")
            language, texts = driver.execute_script(TEXT_IN_THE_PAGE_LANGUAGE)
            assert language == page.split("/")[0], page
            english += [(page, text[:120]) for text in texts if reads_as_english(text, language)]
    assert english == []
