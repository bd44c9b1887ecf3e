"""Making data text safe Markdown, and turning [[id]] references and glossary terms into links.

Text from YAML is untrusted: raw HTML is escaped so `<script>` shows as text, and a
Markdown link may only point at http(s) or mailto, so `javascript:` cannot sneak in.
"""
from __future__ import annotations

import re
from typing import Callable

from .textmatch import LINK

MD_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
SAFE_SCHEME = re.compile(r"^(https?:|mailto:)", re.I)
LIST_ITEM = re.compile(r"^ *([-*+]|\d+[.)]) ")


def escape_html(text: str) -> str:
    """Neutralise raw HTML: every '<' becomes an entity, so no tag can open."""
    return text.replace("&", "&amp;").replace("<", "&lt;")


def neutralise_links(text: str) -> str:
    """Keep http(s)/mailto Markdown links; any other link or image becomes its plain label."""
    def replace(match: re.Match) -> str:
        bang, label, url = match.groups()
        if bang or not SAFE_SCHEME.match(url):
            return label
        return match.group(0)
    return MD_LINK.sub(replace, text)


def inline(text: str) -> str:
    """Data text for one line of Markdown (titles, labels): escaped, no line breaks, no heading marks."""
    text = " ".join(escape_html(str(text)).split())
    return text.replace("[", "\\[").replace("]", "\\]").replace("*", "\\*").replace("_", "\\_").replace("#", "\\#")


def normalise_indent(text: str) -> str:
    """Indent list continuations and nested lists by multiples of 4 spaces: CommonMark accepts the
    3 spaces that align with an item's text, Python-Markdown needs 4; 4 works in both."""
    def fix(match: re.Match) -> str:
        width = len(match.group(1))
        return " " * (-(-width // 4) * 4)
    lines = re.sub(r"(?m)^( +)(?=\S)", fix, text).split("\n")
    out: list[str] = []
    for line in lines:
        # Python-Markdown starts a list item only after a blank line or another item.
        if LIST_ITEM.match(line) and out and out[-1].strip() and not LIST_ITEM.match(out[-1]):
            out.append("")
        out.append(line)
    return "\n".join(out)


def render_text(text: str, link_for: Callable[[str, str | None], str],
                term_links: Callable[[str], str] | None = None) -> str:
    """Safe Markdown from entry text: escape, neutralise links, resolve [[id|label]], link terms."""
    text = neutralise_links(escape_html(normalise_indent(text)))
    parts: list[str] = []
    position = 0
    for match in LINK.finditer(text):
        plain = text[position:match.start()]
        parts.append(term_links(plain) if term_links else plain)
        parts.append(link_for(match.group(1).strip(), match.group(2)))
        position = match.end()
    tail = text[position:]
    parts.append(term_links(tail) if term_links else tail)
    return "".join(parts)


def link_terms(text: str, find: Callable[[str], list[tuple[int, int, str]]], href_of: Callable[[str], str],
               already: set[str]) -> str:
    """Link the first occurrence of each glossary term, outside existing Markdown links."""
    protected = [(m.start(), m.end()) for m in MD_LINK.finditer(text)]
    out, position = [], 0
    for start, end, term_id in find(text):
        if term_id in already or any(s <= start < e for s, e in protected):
            continue
        already.add(term_id)
        out.append(text[position:start])
        out.append(f"[{text[start:end]}]({href_of(term_id)})")
        position = end
    out.append(text[position:])
    return "".join(out)


def without_tables(text: str) -> str:
    """Text minus its Markdown table rows: used where the entry's `table` data is shown instead,
    localised, so the table is not printed twice."""
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("|")).strip()
