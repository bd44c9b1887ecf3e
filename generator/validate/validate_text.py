"""Checks of the text itself: source-language text against its cited lines, declared corrections
against the text, and working notes left in published text.

- E050: a `pl`/`ru` version taken from a source must say what its cited lines say, word for word
  and number for number, once the recorded corrections are applied. What is normalised away:
  whitespace, line joins (a word hyphenated across lines), punctuation and case, Markdown
  emphasis and links (`[[id|label]]` counts as its label); what may be left out: the entry's
  heading line (a source line starting with `#`, or one whose words are all in the entry's or
  its chapter's title), the title's words where the cited text opens with them, the source's
  list markers (`·`, `•`, a Latin `o` standing alone in a Cyrillic line), and, at either end of the range,
  words of a shared line that another entry citing that line carries.
- E051: a correction the entry declares (`from` → `to`) whose `to` is not in the text.
- E052: a working note in published text (titles, texts, statement translations, notes):
  "helper", "TODO", "FIXME", "lead engineer", "session 4" and their Polish and Russian kin.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from ..base.jsontypes import JSON
from ..base.kept import Answers, kept_function
from ..base.linerange import range_lines
from ..base.problems import Problems
from ..base.textmatch import strip_links
from ..load.model import Entry, KnowledgeBase, Origin, Where

TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
# A word broken over a line end ("Spustosze-" / "nia") in a text.
LINE_JOIN = re.compile(r"(\w)[-\u00ad]\s*\n\s*(?=\w)")
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
# The Russian sources mark list items with a Latin "o" (or "O"): never a word in Russian text.
LATIN_O_MARKER = re.compile(r"(?<![^\W\d_])[oO](?=\s)")

# Working notes: words an editor or a session leaves behind, in English, Polish and Russian.
WORKING_NOTE = re.compile(
    r"\b(?:helpers?|TODO|FIXME|XXX|TBD|lead engineer|(?:work|working|editing) session|session \d+|"
    r"pomocnik\w*|do zrobienia|sesj[aiię] \d+|помощник\w*|доделать|сделать позже|сесси[яи] \d+)\b",
    re.IGNORECASE | re.UNICODE,
)


def _add(problems: Problems, where: Where, sub_path: Sequence[str | int], code: str, message: str) -> None:
    problems.add(where.document.path, where.document.positions.of([*where.path, *sub_path]), code, message)


@kept_function(1 << 14)
def applies(corrected: str, title: str, text: str) -> bool:
    """Whether a title or text carries a correction's `to` words, in order (kept per content)."""
    wanted = keys(corrected)
    return not wanted or _contains(keys(title) + [""] + keys(text), wanted)


@kept_function(1 << 16)
def working_note(text: str) -> str | None:
    """The first working note in a text, if any (kept per text, like `source_differences`)."""
    match = WORKING_NOTE.search(text)
    return match.group(0) if match else None


Token = tuple[str, str]  # a word: (its key, as compared; its spelling, as written)


def tokens(text: str) -> list[Token]:
    """(comparison key, original spelling) of every word and number, in order."""
    text = LINE_JOIN.sub(r"\1", strip_links(text))
    return [(m.group(0).lower().replace("ё", "е"), m.group(0)) for m in TOKEN.finditer(text)]


def keys(text: str) -> list[str]:
    return [key for key, _ in tokens(text)]


class TextChecks:
    def __init__(self, kb: KnowledgeBase, problems: Problems, mismatched: set[tuple[str, str]]):
        self.kb = kb
        self.problems = problems
        self.mismatched = mismatched  # (entry id, language) whose text E033 found far from its lines
        self.noise: dict[str, set[int]] = {}
        for item in kb.noise:
            self.noise.setdefault(item.source, set()).update(range_lines(item.lines))

    @functools.cached_property
    def citing(self) -> dict[tuple[str, int], list[str]]:
        """(source, line) -> entry ids whose origin cites it: a line shared by two entries. Made
        only when a text leaves out words at an end of its range (rare)."""
        citing: dict[tuple[str, int], list[str]] = {}
        for entry_id, entry in self.kb.entries.items():
            for origin in entry.get("origin", {}).values():
                if "source" in origin and origin["source"] in self.kb.sources:
                    for n in range_lines(origin["lines"]):
                        citing.setdefault((origin["source"], n), []).append(entry_id)
        return citing

    def run(self) -> None:
        for entry_id, entry in self.kb.entries.items():
            where = self.kb.where[entry_id]
            self.check_working_notes(entry, where)
            unapplied = self.check_corrections_applied(entry, where)
            if entry["kind"] == "clarification":
                continue
            for lang, origin in entry.get("origin", {}).items():
                if (
                    "source" in origin and lang not in unapplied and lang in entry.get("text", {}) and (entry_id, lang) not in self.mismatched
                ):  # one mistake, one problem: E033 said it
                    self.check_against_source(entry_id, entry, lang, origin, where)
        for term_id, term in self.kb.terms.items():
            self.check_working_notes(term, self.kb.where[term_id], fields=("names", "variants", "note"))
        for chapter in self.kb.chapters.values():
            self.check_working_notes(chapter.data, self.kb.where[chapter.id], fields=("title",))

    # -- E052 --------------------------------------------------------------------------------
    def check_working_notes(
        self,
        item: Mapping[str, Any],
        where: Where,
        fields: tuple[str, ...] = ("title", "text", "summary", "clarification", "example", "table"),
    ) -> None:
        for path, note in _working_notes(item, where, fields):
            _add(self.problems, where, path, "E052", f"working note «{note}» in published text ({'.'.join(map(str, path))})")

    # -- E051 --------------------------------------------------------------------------------
    def check_corrections_applied(self, entry: Entry, where: Where) -> set[str]:
        unapplied = set()
        for i, correction in enumerate(entry.get("corrections", [])):
            lang = correction["lang"]
            if lang not in entry.get("text", {}):
                continue
            if not applies(correction["to"], entry["title"].get(lang, ""), entry["text"][lang]):
                unapplied.add(lang)
                _add(
                    self.problems,
                    where,
                    ["corrections", i, "to"],
                    "E051",
                    f"the {lang} title and text do not apply the correction '{correction['from']}' → '{correction['to']}'",
                )
        return unapplied

    # -- E050 --------------------------------------------------------------------------------
    def check_against_source(self, entry_id: str, entry: Entry, lang: str, origin: Origin, where: Where) -> None:
        source = self.kb.sources.get(origin["source"])
        if source is None or source.language != lang:
            return
        numbers = [n for n in range_lines(origin["lines"]) if n not in self.noise.get(source.id, set())]
        if any(n < 1 or n > len(source.lines) for n in numbers):
            return
        chapter = self.kb.chapters.get(self.kb.entry_chapter.get(entry_id, ""))
        found = source_differences(
            tuple(source.lines[n - 1] for n in numbers),
            entry["title"].get(lang, ""),
            chapter.data["title"].get(lang, "") if chapter else "",
            tuple((c["from"], c["to"]) for c in entry.get("corrections", []) if c["lang"] == lang),
            entry["text"][lang],
        )
        differences = [
            (said, written)
            for said, written, left_out_at_an_end in found
            if not (left_out_at_an_end and self._carried_elsewhere(entry_id, source.id, numbers, left_out_at_an_end))
        ]
        if differences:
            shown = "; ".join(f"source «{s or '—'}», text «{t or '—'}»" for s, t in differences[:3])
            more = f" (and {len(differences) - 3} more)" if len(differences) > 3 else ""
            _add(
                self.problems,
                where,
                ["text", lang],
                "E050",
                f"the {lang} text differs from {source.id} lines {origin['lines']} without a recorded correction: {shown}{more}",
            )

    def _carried_elsewhere(self, entry_id: str, source_id: str, numbers: list[int], missing: Sequence[Token]) -> bool:
        """Words of a shared line left out here because another entry citing the line carries them
        (as that entry's corrections repair them)."""
        for n in (numbers[0], numbers[-1]):
            for other_id in self.citing.get((source_id, n), []):
                other = self.kb.entries[other_id]
                for lang, origin in other["origin"].items():
                    if other_id == entry_id or origin.get("source") != source_id:
                        continue
                    run = missing
                    for correction in other.get("corrections", []):
                        if correction["lang"] == lang:
                            run, _ = _apply(run, [False] * len(run), keys(correction["from"]), tokens(correction["to"]))
                    if _contains(keys(other["text"][lang]), [k for k, _ in run]):
                        return True
        return False


@kept_function(1 << 14)
def source_differences(
    lines: tuple[str, ...], title: str, chapter_title: str, corrections: tuple[tuple[str, str], ...], text: str
) -> tuple[tuple[str, str, tuple[Token, ...]], ...]:
    """Where a text differs from the source lines it carries, once its corrections (from, to) are
    applied: (the source's words, the text's words, and, for source words left out at either end of
    the range, those words, which another entry citing the shared line may carry; else empty).

    It depends on its arguments alone, so it is kept for the same arguments: under `serve` a
    rebuild compares again only the texts an edit changed."""
    title_words = set(keys(title))
    heading_words = title_words | set(keys(chapter_title))
    source_tokens, optional = source_words(list(lines), title_words, heading_words)
    for old, new in corrections:
        source_tokens, optional = _apply(source_tokens, optional, keys(old), tokens(new))
    text_tokens = tokens(text)
    a = [k for k, _ in source_tokens]
    b = [k for k, _ in text_tokens]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    differences = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "delete" and all(optional[i1:i2])):
            continue
        at_an_end = tag == "delete" and (i1 == 0 or i2 == len(a))
        said = [t for (_, t), heading in zip(source_tokens[i1:i2], optional[i1:i2], strict=True) if not heading]
        differences.append((" ".join(said), " ".join(t for _, t in text_tokens[j1:j2]), tuple(source_tokens[i1:i2]) if at_an_end else ()))
    return tuple(differences)


def source_words(lines: list[str], title: set[str], heading_words: set[str]) -> tuple[list[Token], list[bool]]:
    """The cited lines' words, and for each whether the text may leave it out: words of a heading
    line (`#`, or all its words in the entry's or chapter's title), the opening words where they are
    the title's or chapter's, list markers (dropped outright). A word broken over lines is joined."""
    words: list[Token] = []
    optional: list[bool] = []
    broken = False  # the previous non-blank line ended in a hyphen
    for line in lines:
        if CYRILLIC.search(line):
            line = LATIN_O_MARKER.sub(" ", line)
        line_words = tokens(line)
        if not line_words:
            continue
        line_keys = {key for key, _ in line_words}
        heading = line.lstrip().startswith("#") or line_keys <= title or line_keys <= heading_words
        if broken and words and line.lstrip()[:1].isalnum():
            (key, spelling), first = words.pop(), line_words.pop(0)
            line_words.insert(0, (key + first[0], spelling + first[1]))
            heading = heading and optional.pop()
        words.extend(line_words)
        optional.extend([heading] * len(line_words))
        broken = line.rstrip().endswith(("-", "\u00ad"))
    opening = 0
    while opening < len(words) and words[opening][0] in heading_words:
        optional[opening] = True
        opening += 1
    return words, optional


def _apply(source_tokens: Sequence[Token], optional: Sequence[bool], old: list[str], new: list[Token]) -> tuple[list[Token], list[bool]]:
    out_tokens: list[Token] = []
    out_optional: list[bool] = []
    i = 0
    while i < len(source_tokens):
        if old and [k for k, _ in source_tokens[i : i + len(old)]] == old:
            out_tokens.extend(new)
            out_optional.extend([all(optional[i : i + len(old)])] * len(new))  # a repaired heading stays a heading
            i += len(old)
        else:
            out_tokens.append(source_tokens[i])
            out_optional.append(optional[i])
            i += 1
    return out_tokens, out_optional


def _contains(seq: list[str], run: list[str]) -> bool:
    n = len(run)
    return any(seq[i : i + n] == run for i in range(len(seq) - n + 1))


def _working_notes(item: Mapping[str, Any], where: Where, fields: tuple[str, ...]) -> list[tuple[list[str | int], str]]:
    """(path, note) of each working note in the item's fields; kept per item (`Where.content_key`)."""
    return _NOTES.of(
        (*where.content_key(), fields),
        lambda: [
            (path, note) for field in fields if field in item for path, value in _strings(item[field], [field]) if (note := working_note(value))
        ],
    )


_NOTES: Answers[tuple[object, ...], list[tuple[list[str | int], str]]] = Answers()


def _strings(value: JSON, path: list[str | int]) -> Iterator[tuple[list[str | int], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in ("source", "lines", "quote", "lang", "from", "check", "affects", "key"):
                yield from _strings(item, path + [key])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, path + [i])


def check(kb: KnowledgeBase, problems: Problems, mismatched: Collection[tuple[str, str]] = ()) -> None:
    """`mismatched`: (entry id, language) pairs E033 already reported: their word-for-word check is skipped."""
    TextChecks(kb, problems, set(mismatched)).run()
