"""Hostile text for the security tests: XSS payloads and a way to place them in every field.

Each payload, if it ever ran, would set `localStorage.kbxss` to its own name; the browser tests
assert that it stays unset on every page, aid and link of a site built with payloads everywhere.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import generator.pipeline as pipeline
from generator.base.languages import Languages

MARK = "localStorage.kbxss"
WORKER_MARK = "kbxss-ran"  # a service worker has no localStorage: a payload that ran there asks the server for this

PAYLOADS = [
    f"<script>{MARK}='script'</script>",
    f"<img src=x onerror=\"{MARK}='img'\">",
    f"<svg onload=\"{MARK}='svg'\">",
    f"\"><script>{MARK}='attr-break'</script>",
    f"'><img src=x onerror={MARK}='quote-break'>",
    f"<iframe srcdoc=\"<script>parent.{MARK}='iframe'</script>\"></iframe>",
    f"<details open ontoggle=\"{MARK}='details'\">",
    f"</title></style><img src=x onerror=\"{MARK}='title-break'\">",
    f"[click me](javascript:{MARK}='link')",
    f"[ref link][r]\n\n[r]: javascript:{MARK}='reference'",
    f"[spaced]( javascript:{MARK}='spaced-link')",
    f"**bold**{{ tabindex=0 autofocus onfocus=\"{MARK}='attr-list'\" }}",
    f"unclosed {{ #x tabindex=0 autofocus onfocus=\"{MARK}='brace'\"",
    f"<a href=\"javascript:{MARK}='anchor'\">anchor</a>",
    f"<body onload=\"{MARK}='body'\">",
    f"<math><mtext><table><mglyph><style><img src=x onerror=\"{MARK}='mxss'\">",
    "{{ 7*7 }} {% if true %}jinja{% endif %} ${7*7}",
    f"</style><style>body{{background:url(\"javascript:{MARK}='css'\")}}</style>",
    f"\"); {MARK}='css-string'; /* \\\" */",
    f"\u2028</script><script>{MARK}='separator'</script>",
    f"<object data=\"javascript:{MARK}='object'\"></object>",
    f'<meta http-equiv="refresh" content="0;url=javascript:{MARK}=\'meta\'">',
    f"![image](javascript:{MARK}='image')",
    f"<javascript:{MARK}='autolink'>",
    f"[x](JaVaScRiPt:{MARK}='mixed-case')",
    f"[data](data:text/html,<script>{MARK}='data'</script>)",
    f"*/ fetch('/{WORKER_MARK}'); {MARK}='comment-break'; /*",  # for scripts: ends a comment, then runs
]

SEARCH_WORDS = ["script", "onerror", "javascript", "svg", "iframe", "ontoggle"]

# Inline scripts Material writes into every page (its scope, its config); nothing else may be inline.
MATERIAL_INLINE = ("__md_scope", "__tabbed_", "__palette")

# What a page holds that could run (beyond "nothing ran"): an on* attribute, a javascript: or data: URL, an iframe,
# object or embed, or an inline script that is not Material's own (arguments[0]).
UNSAFE = """
const found = [];
for (const el of document.querySelectorAll('*')) {
  for (const attr of el.attributes) {
    if (attr.name.startsWith('on')) found.push(el.tagName + ' ' + attr.name);
    if (/^\\s*(javascript|data|vbscript):/i.test(attr.value) && ['href', 'src', 'action', 'data', 'srcdoc'].includes(attr.name))
      found.push(el.tagName + ' ' + attr.name + '=' + attr.value.slice(0, 40));
  }
}
for (const el of document.querySelectorAll('iframe, object, embed, base, meta[http-equiv]')) found.push(el.tagName);
for (const el of document.querySelectorAll('script:not([src])'))
  if (!arguments[0].some(m => el.textContent.includes(m)) && el.type !== 'application/json') found.push('inline script');
return found;"""


def ran(driver) -> str | None:
    """The payload that ran on the current page, if any (after giving focus and timers a moment)."""
    return driver.execute_async_script("const done = arguments[0]; setTimeout(() => done(localStorage.getItem('kbxss')), 50);")


class Slots:
    """The (container, key) of every text field to spoil, by kind of field, in the order they are found."""

    def __init__(self) -> None:
        self.by_kind: dict[str, list[tuple[dict | list, str | int]]] = {}

    def add(self, kind: str, container, key) -> None:
        self.by_kind.setdefault(kind, []).append((container, key))

    def per_language(self, kind: str, values: dict) -> None:
        for lang, value in values.items():
            if isinstance(value, str):
                self.add(kind, values, lang)
            elif isinstance(value, list):
                for index in range(len(value)):
                    self.add(kind, value, index)


def place_payloads(kb) -> int:
    """Place every payload in every kind of text field of the loaded knowledge base, in every
    language: game, chapter, entry and glossary titles (and a term's variants, forms and its
    variants' forms), term definitions (gloss), summaries (the game's and the aids' entry summaries),
    entry texts, keywords, table titles, cells and notes, example inputs, clarification rulings, quotes
    and renderings, external references, source titles, aid titles and faction names. The payloads
    of a kind are shared out over the fields of that kind, so each field carries a few. Entries get a
    table and an example if they have none, a term a definition, a clarification a ruling and the aid
    a faction's card, so that every kind of field is there. Returns how many (field, payload) placements were made."""
    slots = Slots()
    for game in kb.games.values():
        slots.per_language("game title", game["title"])
        slots.per_language("game summary", game["summary"])
    for chapter in kb.chapters.values():
        slots.per_language("chapter title", chapter.data["title"])
    for entry in kb.entries.values():
        entry_slots(entry, slots)
    for term in kb.terms.values():
        slots.per_language("glossary name", term["names"])
        slots.per_language("glossary definition", term.setdefault("gloss", {lang: "gloss" for lang in term["names"]}))
        for field, word in (("variants", "variant"), ("forms", "form"), ("variant_forms", "variant form")):
            spellings = term.setdefault(field, {})  # one more in every language: the mini data lists no variants
            for lang in term["names"]:
                spellings.setdefault(lang, []).append(f"{word} {lang}")
            slots.per_language(f"glossary {field}", spellings)
    for game, aid in kb.aids.items():
        if "title" in aid:
            slots.per_language("aid title", aid["title"])
        for section in aid["sections"]:
            slots.per_language("aid section title", section["title"])
        faction = {"name": dict.fromkeys(kb.games[game]["languages"], "faction"), "colour": "#7f1010", "icon": "khorne"}
        faction["entries"] = aid["sections"][0]["entries"][:1]  # a faction's card, as the mini aid has none
        aid["sections"][0].setdefault("factions", []).append(faction)
        slots.per_language("aid faction name", faction["name"])
    placed = 0
    for fields in slots.by_kind.values():
        for index, payload in enumerate(PAYLOADS):
            container, key = fields[index % len(fields)]
            container[key] = f"{container[key]} {payload}"
            placed += 1
    placed += spoil_languages(kb)
    for source in kb.sources.values():  # a dataclass: every payload in every source's title
        source.title += " " + " ".join(PAYLOADS)
        source.precedence_reason = {lang: f"{reason} {' '.join(PAYLOADS)}" for lang, reason in source.precedence_reason.items()}
        placed += 2 * len(PAYLOADS)
    return placed


def entry_slots(entry: dict, slots: Slots) -> None:
    """An entry's fields: title, text, aid summary, keywords, table, example, clarification, external references."""
    slots.per_language("entry title", entry["title"])
    slots.per_language("entry text", entry["text"])
    summary = entry.setdefault(
        "summary", {"text": {lang: "summary" for lang in entry["text"]}, "origin": {lang: {"authored": True} for lang in entry["text"]}}
    )
    summary.setdefault("title", {lang: "summary title" for lang in summary["text"]})
    slots.per_language("aid summary", summary["text"])
    slots.per_language("aid summary title", summary["title"])
    keywords = entry.setdefault("keywords", {})
    for lang in entry["text"]:
        keywords.setdefault(lang, []).append("keyword")
    slots.per_language("keyword", keywords)
    table_slots(entry, slots)
    example = entry.setdefault("example", {"inputs": {}, "expected": {}})
    example["inputs"]["hostile"] = "input"
    slots.add("example input", example["inputs"], "hostile")
    if "clarification" in entry:
        slots.per_language("clarification ruling", entry["clarification"].setdefault("ruling", {lang: "ruling" for lang in entry["text"]}))
    for statement in entry.get("clarification", {}).get("statements", []):
        statement.setdefault("en", "rendering")
        slots.add("clarification quote", statement, "quote")
        slots.add("quote rendering", statement, "en")
    entry["refs_external"] = [{"what": "what", "lang": "en", "quote": "quote"}]
    slots.add("external reference", entry["refs_external"][0], "what")
    slots.add("external quote", entry["refs_external"][0], "quote")


def table_slots(entry: dict, slots: Slots) -> None:
    """An entry's table (one is given to an entry without): column titles, cells and its note."""
    table = entry.setdefault(
        "table",
        {
            "columns": [{"key": "a", "title": {"en": "A", "pl": "A", "ru": "А"}}, {"key": "b", "title": "B"}],
            "rows": [{"a": {"en": "cell", "pl": "komórka", "ru": "ячейка"}, "b": "plain"}],
        },
    )
    for column in table["columns"]:
        slots.per_language("table title", column["title"]) if isinstance(column["title"], dict) else slots.add("table title", column, "title")
    for row in table["rows"]:
        for key, value in row.items():
            slots.per_language("table cell", value) if isinstance(value, dict) else slots.add("table cell", row, key)
    table["note"] = "note"
    slots.add("table note", table, "note")


def spoil_languages(kb) -> int:
    """Every payload in each language's name and its resolution label, and one in every interface
    text (ui.yaml, nested ones and the language names included), shared out in turn. Returns the count."""
    placed = 0

    def spoil(value, index: int):
        nonlocal placed
        if isinstance(value, str):
            placed += 1
            return f"{value} {PAYLOADS[index % len(PAYLOADS)]}"
        if isinstance(value, dict):
            return {key: spoil(item, index + n) for n, (key, item) in enumerate(value.items())}
        return value

    languages = []
    for language in kb.languages:
        languages.append(
            replace(
                language,
                name=f"{language.name} {' '.join(PAYLOADS)}",
                resolution_label=f"{language.resolution_label} {PAYLOADS[-1]}",
                ui=spoil(dict(language.ui), 0),
            )
        )
        placed += 2
    kb.languages = Languages(languages)
    return placed


def spoil_calculators(kb) -> int:
    """Every payload in the calculators' texts of every game (calculators.yaml, after validation): each label given
    as text, each check's title and answer sentence, in every language, a payload each in turn. An answer gets only
    the payloads without a brace (`{…}` there is a place for a value: validate refuses an unknown one). Returns the
    count."""
    placed = 0
    plain = [payload for payload in PAYLOADS if "{" not in payload]
    for calculators in kb.calculators.values():
        texts = [(label, PAYLOADS) for label in calculators["labels"].values() if "term" not in label]
        texts += [(check["title"], PAYLOADS) for check in calculators["checks"].values() if "title" in check]
        texts += [(check["answer"], plain) for check in calculators["checks"].values() if "answer" in check]
        for n, (per_language, payloads) in enumerate(texts):
            for lang in per_language:
                per_language[lang] = f"{per_language[lang]} {payloads[(n + placed) % len(payloads)]}"
                placed += 1
    return placed


def build_spoiled(data, out, spoil) -> list[int]:
    """Build `data` into `out` with `spoil(kb)` run on the knowledge base once it has passed validation (as if the
    data had held the payloads and validate had let them through); returns what `spoil` returned (a count)."""
    validated_check = pipeline.check
    placed: list[int] = []

    def check_then_spoil(loaded, problems):
        kb = validated_check(loaded, problems)
        if not problems:
            placed.append(spoil(kb))
        return kb

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "check", check_then_spoil)
        pipeline.build(data, out)
    return placed
