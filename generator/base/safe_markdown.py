"""The one way text from the data becomes HTML: CommonMark in a safe configuration.

Data is untrusted. Escaping is done by construction, not by patterns on the text:
- markdown-it-py with raw HTML switched off, so `<script>` in the data is text;
- no attribute lists or other extensions that let text set attributes;
- every link and image destination passes `refusal()`: the site's own pages (relative links) and
  `https:` only, so `javascript:`, `file:` or `data:` can neither run nor be fetched (the aids'
  URL fetcher is a second wall: see cards.py);
- `[[id]]` / `[[id|label]]` references and glossary-term links are added as link tokens with hrefs
  the generator computes, never spliced into the text.

`validate` calls `refused_destinations()` (the same rule) so that an editor hears about a link the
renderer would drop, with a code, before any build.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markupsafe import Markup

from .textmatch import QUOTED, reads_as_english

REFERENCE = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]*))?\]\]")
SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
URL_INVISIBLES = re.compile(r"[\t\n\r]")  # browsers drop these anywhere in a URL before reading it


def refusal(destination: str) -> str | None:
    """Why a link or image destination from the data is refused, or None if it is allowed.

    Allowed: `https://…`, and relative references with no scheme (the site's own pages and
    anchors). Anything else — another scheme, a protocol-relative `//host`, leading control
    characters or spaces that a browser would strip — is refused."""
    url = URL_INVISIBLES.sub("", destination)
    if url != url.strip() or any(ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        return "it has control characters or spaces around it"
    if url.startswith(("//", "\\\\", "/\\", "\\/")):
        return "a link to another host must start with https://"
    scheme = SCHEME.match(url)
    if scheme is None:
        return None
    if scheme.group(1).lower() == "https" and url[scheme.end() :].startswith("//"):
        return None
    return f"the scheme '{scheme.group(1)}:' is not allowed (only https: and the site's own pages)"


@dataclass
class Linker:
    """What a render needs from the knowledge base: where a reference points and what it is called,
    and (optionally) the glossary terms to link in plain text."""

    reference_href: Callable[[str], str | None]  # id -> URL, or None to show the label as text
    reference_label: Callable[[str], str]  # id -> title in the reader's language
    find_terms: Callable[[str], Sequence[tuple[int, int, str]]] | None = None  # text -> (start, end, term id)
    term_href: Callable[[str], str | None] | None = None
    linked_terms: set[str] = field(default_factory=set)  # terms linked so far on this page (first mention only)
    refused: list[str] = field(default_factory=list)  # destinations dropped, with the reason
    language: str | None = None  # the text's language: English it quotes is marked lang="en"
    paragraphs: tuple[str, str] | None = None  # (anchor, number) of the entry: each paragraph and bullet gets
    # an id and a mark ("30.4b") linking to itself (see _number_paragraphs)


def _reference_rule(state: StateInline, silent: bool) -> bool:
    """`[[id]]` or `[[id|label]]` as a link whose href and label come from the Linker."""
    if not state.src.startswith("[[", state.pos):
        return False
    match = REFERENCE.match(state.src, state.pos)
    if match is None:
        return False
    if not silent:
        linker: Linker | None = state.env.get("linker")
        target, label = match.group(1).strip(), match.group(2)
        text = label if label is not None else (linker.reference_label(target) if linker else target)
        href = linker.reference_href(target) if linker else None
        if href is not None:
            token = state.push("link_open", "a", 1)
            token.attrs = {"href": href}
        state.push("text", "", 0).content = text
        if href is not None:
            state.push("link_close", "a", -1)
    state.pos = match.end()
    return True


def _link_terms(children: list[Token], linker: Linker) -> list[Token]:
    """Split plain text tokens (outside links) so that the first mention of each glossary term links it."""
    if linker.find_terms is None or linker.term_href is None:
        return children
    out: list[Token] = []
    depth = 0
    for token in children:
        if token.type == "link_open":
            depth += 1
        elif token.type == "link_close":
            depth -= 1
        if token.type != "text" or depth > 0:
            out.append(token)
            continue
        text, position = token.content, 0
        for start, end, term in linker.find_terms(text):
            href = linker.term_href(term) if term not in linker.linked_terms else None
            if href is None:
                continue
            linker.linked_terms.add(term)
            if start > position:
                out.append(_text(text[position:start]))
            link = Token("link_open", "a", 1)
            link.attrs = {"href": href, "class": "kb-term"}
            out += [link, _text(text[start:end]), Token("link_close", "a", -1)]
            position = end
        if position < len(text):
            out.append(_text(text[position:]))
    return out


def _mark_english_quotes(children: list[Token], language: str | None) -> list[Token]:
    """In text of another language, an English phrase in quotation marks is wrapped in
    `<span lang="en">` (a screen reader then reads it in English)."""
    if language in (None, "en"):
        return children
    out: list[Token] = []
    for token in children:
        if token.type != "text":
            out.append(token)
            continue
        text, position = token.content, 0
        for quoted in QUOTED.finditer(text):
            if not reads_as_english(quoted[0][1:-1], language):
                continue
            out.append(_text(text[position : quoted.start() + 1]))
            span = Token("span_open", "span", 1)
            span.attrs = {"lang": "en"}
            out += [span, _text(quoted[0][1:-1]), Token("span_close", "span", -1)]
            position = quoted.end() - 1
        out.append(_text(text[position:]))
    return out


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _drop_refused(children: list[Token], linker: Linker | None, refused: list[str]) -> list[Token]:
    """Links and images whose destination `refusal()` rejects become their plain text."""
    out: list[Token] = []
    skip_close = 0
    for token in children:
        if token.type in ("link_open", "image"):
            destination = str(token.attrGet("href" if token.type == "link_open" else "src") or "")
            reason = refusal(destination)
            if reason is not None:
                refused.append(f"{destination!r}: {reason}")
                if token.type == "image":
                    out.append(_text(token.content))
                else:
                    skip_close += 1
                continue
        if token.type == "link_close" and skip_close:
            skip_close -= 1
            continue
        out.append(token)
    return out


def paragraph_letter(index: int) -> str:
    """a, b, … z, then aa, ab, …: the paragraph's letter in its number."""
    return paragraph_letter(index // 26 - 1) + chr(ord("a") + index % 26) if index >= 26 else chr(ord("a") + index)


def _number_paragraphs(tokens: list[Token], anchor: str, number: str) -> None:
    """Each top-level paragraph and each item of a top-level list gets the id `<anchor>-<letter>` and ends
    with a mark showing `<number><letter>` that links to it (kb.js copies the link when tapped)."""
    index, depth = 0, 0
    target: Token | None = None
    for token in tokens:
        if token.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif (token.type == "paragraph_open" and depth == 0) or (token.type == "list_item_open" and depth == 1):
            target = token
        elif token.type == "inline" and target is not None and token.children is not None:
            letter = paragraph_letter(index)
            target.attrSet("id", f"{anchor}-{letter}")
            mark = Token("link_open", "a", 1, attrs={"class": "kb-para", "href": f"#{anchor}-{letter}"})
            token.children += [_text(" "), mark, _text(f"{number}{letter}"), Token("link_close", "a", -1)]
            index, target = index + 1, None


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # every destination reaches `refusal()`, which decides
    md.inline.ruler.before("link", "kb_reference", _reference_rule)
    return md


_MD = _parser()


def _tokens(text: str, linker: Linker | None, refused: list[str]) -> list[Token]:
    tokens = _MD.parse(text, {"linker": linker})
    for token in tokens:
        if token.type == "inline" and token.children is not None:
            # generated links (references, terms) are checked too: nothing bypasses the rule
            children = _drop_refused(token.children, linker, refused)
            token.children = _link_terms(_mark_english_quotes(children, linker.language), linker) if linker else children
    if linker is not None and linker.paragraphs is not None:
        _number_paragraphs(tokens, *linker.paragraphs)
    return tokens


def render(text: str, linker: Linker | None = None) -> Markup:
    """Safe HTML of data Markdown (entry texts; titles and table cells are plain text, escaped)."""
    refused: list[str] = []
    tokens = _tokens(text, linker, refused)
    if linker is not None:
        linker.refused += refused
    return Markup(_MD.renderer.render(tokens, _MD.options, {}))


LINK_SYNTAX = ("](", "]:", "<", "![")  # what any link or image needs; text without them is not parsed


def refused_destinations(text: str) -> list[str]:
    """The link and image destinations of `text` that rendering would drop, each with the reason."""
    if not any(mark in text for mark in LINK_SYNTAX):
        return []
    refused: list[str] = []
    _tokens(text, None, refused)
    return refused


def without_tables(text: str) -> str:
    """Text minus its Markdown table rows: used where the entry's `table` data is shown instead,
    localised, so the table is not printed twice."""
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("|")).strip()


def has_image(text: str) -> bool:
    """Whether the text shows an image (whatever its destination)."""
    if "![" not in text:
        return False
    return any(child.type == "image" for token in _MD.parse(text, {"linker": None}) for child in token.children or [])
