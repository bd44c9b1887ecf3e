"""Turn a raw rulebook text into draft entries and noise for an editor to curate.

The drafts are shaped like a chapter file (docs/data-format.md) so an editor can move them
into data/games/<game>/chapters/ and fill in ids, translations and kinds. What it does:
  - splits headings, paragraphs and list items, each with its source line range;
  - joins a paragraph broken by a page break or an inserted caption (the first part ends
    without sentence punctuation and the next paragraph starts in lower case);
  - labels noise: web cruft, e-mail addresses, duplicated lines/blocks, image captions
    inserted mid-sentence, credits, legal text, stray table rules.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import TextIO

from ruamel.yaml import YAML

from ..base.errors import KbError
from ..base.jsontypes import JSONObject
from ..base.languages import read_languages
from ..base.linerange import format_lines
from ..base.paths import DATA
from ..load.model import Entry

WEB = re.compile(
    r"(https?://|www\.|кибер\w*|cyberpedia|\.(ru|su|com|pl)\b|©|Поделиться|Заказать работу|"
    r"\[email\s*protected\]|оценок|\d+\.\d+ с\.$)",
    re.I,
)
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
LEGAL = re.compile(r"(all rights reserved|wszelkie prawa|все права|trademark|™|®|copyright)", re.I)
CREDITS_HEADING = re.compile(r"^(#+\s*)?(авторы|twórcy gry|credits|локализация|от games workshop|games workshop)\b", re.I)
TEASER = re.compile(r"^[^.:]{5,80}: .*(\.\.\.|…)$")
TABLE_RULE = re.compile(r"^[\s\-–—|=_]+$")
LIST_ITEM = re.compile(r"^\s*([-*•·o]\s+|\d+[.)]\s+)")
SENTENCE_END = re.compile(r"[.!?:;»”\")]\s*$")


@dataclass
class Block:
    first: int
    last: int
    lines: list[str]
    kind: str = "paragraph"  # heading | paragraph | list
    noise: str | None = None
    note: str = ""
    extra_lines: list[int] = field(default_factory=list)  # joined continuation lines

    @property
    def text(self) -> str:
        return " ".join(line.strip() for line in self.lines)


def _is_heading(line: str) -> bool:
    stripped = line.strip().lstrip("#").strip()
    if line.lstrip().startswith("#"):
        return True
    letters = [c for c in stripped if c.isalpha()]
    return (
        bool(letters)
        and len(stripped) <= 80
        and (
            all(c.isupper() for c in letters)
            or (not SENTENCE_END.search(stripped) and len(stripped.split()) <= 6 and stripped[0].isupper() and stripped.endswith(".") is False)
        )
    )


def split_blocks(lines: list[str]) -> list[Block]:
    """Runs of non-blank lines, one block per heading, list item or paragraph line group."""
    blocks: list[Block] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        kind = "heading" if _is_heading(line) else "list" if LIST_ITEM.match(line) else "paragraph"
        previous = blocks[-1] if blocks else None
        if previous and previous.last == number - 1 and kind == "paragraph" == previous.kind:
            previous.lines.append(line)
            previous.last = number
        else:
            blocks.append(Block(number, number, [line], kind))
    return blocks


def label_noise(blocks: list[Block]) -> None:
    seen_lines: dict[str, int] = {}
    in_credits = False
    for block in blocks:
        text = block.text
        if block.kind == "heading":
            in_credits = bool(CREDITS_HEADING.match(text))
        keys = [" ".join(line.lower().split()) for line in block.lines]
        repeated = [seen_lines[k] for k in keys if len(k) > 3 and k in seen_lines]
        if TABLE_RULE.match(text):
            block.noise, block.note = "markup", "stray table rule"
        elif (WEB.search(text) and len(text) < 400) or (len(block.lines) == 1 and TEASER.match(text)):
            # site chrome, or a "Title: first words..." teaser of another article
            block.noise, block.note = "web", "web-page cruft"
        elif EMAIL.search(text) and len(text) < 120:
            block.noise, block.note = "personal-data", "e-mail address"
        elif LEGAL.search(text):
            block.noise, block.note = "legal", "legal notice"
        elif in_credits:
            block.noise, block.note = "credits", "credits section"
        elif len(text) > 20 and len(repeated) >= 0.8 * len(keys):
            block.noise, block.note = "duplicate", f"repeats line(s) {format_lines(repeated)}"
        for number, key in enumerate(keys, block.first):
            if len(key) > 3:
                seen_lines.setdefault(key, number)


def join_split_paragraphs(blocks: list[Block]) -> list[Block]:
    """A paragraph that stops mid-sentence continues in the next lower-case paragraph;
    short blocks in between (image captions) become caption noise."""
    result: list[Block] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        if block.kind == "paragraph" and not block.noise and not SENTENCE_END.search(block.text):
            j = i + 1
            captions = []
            while j < len(blocks) and j - i <= 4 and (blocks[j].kind == "heading" or len(blocks[j].text) < 60) and not (blocks[j].text[:1].islower()):
                captions.append(blocks[j])
                j += 1
            if j < len(blocks) and blocks[j].kind == "paragraph" and blocks[j].text[:1].islower():
                for caption in captions:
                    caption.noise, caption.note = "caption", f"inserted into the paragraph at line {block.first}"
                continuation = blocks[j]
                block.lines += continuation.lines
                block.extra_lines += list(range(continuation.first, continuation.last + 1))
                result.append(block)
                result.extend(captions)
                i = j + 1
                continue
        result.append(block)
        i += 1
    return result


def drafts(lines: list[str], source_id: str, language: str, game: str) -> tuple[JSONObject, JSONObject]:
    blocks = join_split_paragraphs(split_blocks(lines))
    label_noise(blocks)
    entries: list[Entry] = []
    noise: list[dict[str, str]] = []
    heading = None
    for block in sorted(blocks, key=lambda b: b.first):
        spec = (
            format_lines(list(range(block.first, block.last + 1)) + block.extra_lines)
            if not block.extra_lines
            else format_lines([n for n in range(block.first, block.last + 1)] + block.extra_lines)
        )
        if block.noise:
            noise.append({"source": source_id, "lines": spec, "class": block.noise, "note": block.note})
            continue
        if block.kind == "heading":
            heading = block
            continue
        title = heading.text.lstrip("#").strip() if heading else block.text[:60]
        if heading:
            spec = format_lines([heading.first] + [n for n in range(block.first, block.last + 1)] + block.extra_lines)
            heading = None
        entries.append(
            {
                "id": f"{game}/draft-{len(entries) + 1:03d}",
                "kind": "procedure" if block.kind == "list" else "rule",
                "title": {language: title},
                "text": {language: block.text},
                "origin": {language: {"source": source_id, "lines": spec}},
            }
        )
    chapter = {"chapter": {"id": f"{game}/draft", "title": {language: "Draft"}}, "entries": entries}
    return chapter, {"noise": noise}


def _source_info(path: Path) -> JSONObject:
    manifest = path.parent / "manifest.yaml"
    if manifest.exists():
        for source in YAML(typ="safe").load(manifest.read_text(encoding="utf-8")).get("sources", []):
            if source.get("file") == path.name:
                found: JSONObject = source  # the manifest's item of this file
                return found
    return {}


class IngestError(KbError):
    """A source text ingest cannot read; its own codes (I…), not validate's."""

    def __init__(self, code: str, message: str, location: tuple[str, int, int], hint: str | None = None):
        self.code = code
        super().__init__(message, location, hint)


def ingest_file(path: Path, source_id: str | None, language: str | None, out: TextIO = sys.stdout, data_dir: Path = DATA) -> int:
    if not path.is_file():
        raise IngestError("I001", "no such source file", (str(path), 1, 1))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise IngestError("I002", f"not UTF-8 (byte {err.start})", (str(path), 1, 1)) from None
    info = _source_info(path)
    source_id = source_id or info.get("id") or re.sub(r"[^a-z0-9-]+", "-", path.stem.lower()).strip("-")
    language = language or info.get("language")
    known = read_languages(data_dir).codes
    if language not in known:
        raise IngestError(
            "I003",
            f"unknown language {language!r}",
            (str(path), 1, 1),
            f"Pass --language with one of {', '.join(known)} (the languages defined in data/languages/).",
        )
    game = info.get("game", source_id.split("-")[0])
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    chapter, noise = drafts(lines, source_id, language, game)
    yaml = YAML()
    yaml.width = 100
    buffer = StringIO()
    buffer.write(f"# Drafts from {path.name}: {len(chapter['entries'])} entries, {len(noise['noise'])} noise ranges.\n")
    buffer.write("# Curate: set ids and kinds, split or merge entries, add translations; then move the\n")
    buffer.write("# first document to data/games/<game>/chapters/NN-slug.yaml and the second to noise/.\n")
    yaml.dump(chapter, buffer)
    buffer.write("---\n")
    yaml.dump(noise, buffer)
    out.write(buffer.getvalue())
    return 0
