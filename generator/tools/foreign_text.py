"""Finds English on a page of another language that is not marked `lang="en"`.

A screen reader reads a passage in the voice of its element's language, and a reader of the Russian or
Polish section should meet no English left over: every English passage that stays (a quoted English
term, a published English name) carries `lang="en"`. This reads a written page's HTML: the visible text
of `<body>` (scripts, styles and hidden templates skipped), each text run with the language of its
nearest element that names one, and reports the runs in the page's language that read as English.

English is recognised as `textmatch.reads_as_english` recognises it (two English function words);
the renderer marks English it finds in quotation marks the same way. `python -m generator.tools.foreign_text SITE` prints the count per section.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path

from ..base.textmatch import reads_as_english

SKIPPED = {"script", "style", "template", "noscript", "svg"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Runs(HTMLParser):
    """Text runs of a page with the language in force at each (the nearest `lang`, else the page's)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str | None, bool]] = []  # (tag, lang, skipped)
        self.page_lang = ""
        self.runs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "html":
            self.page_lang = attributes.get("lang") or ""
        if tag in VOID:
            return
        hidden = "hidden" in attributes or tag in SKIPPED
        self.stack.append((tag, attributes.get("lang"), hidden))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        if not data.strip() or any(hidden for _, _, hidden in self.stack):
            return
        lang = next((lang for _, lang, _ in reversed(self.stack) if lang), self.page_lang)
        self.runs.append((lang, " ".join(data.split())))


def unmarked_english(html: str) -> list[str]:
    """The text runs of a page that read as English while their language is the page's (not en)."""
    parser = _Runs()
    parser.feed(html)
    page = parser.page_lang.split("-")[0]
    if page in ("", "en"):
        return []
    return [text for lang, text in parser.runs if lang.split("-")[0] == page and reads_as_english(text, page)]


def report(site: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for page in sorted(site.glob("*/**/*.html")):
        section = page.relative_to(site).parts[0]
        counts[section] = counts.get(section, 0) + len(unmarked_english(page.read_text(encoding="utf-8")))
    return counts


if __name__ == "__main__":
    site = Path(sys.argv[1] if len(sys.argv) > 1 else "site")
    for section, count in report(site).items():
        print(f'{section}: {count} English text run(s) not marked lang="en"')
