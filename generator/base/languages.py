"""The languages of the knowledge base, read from data: `data/languages/<code>/language.yaml` (the
definition) and `ui.yaml` (the interface texts). Every output asks this module, so adding a language
is adding its two files and translated data — no code.

One fallback policy for everything a reader sees (`pick`): the reader's language, then the
languages its definition names as fallbacks, then the item's original languages, then any
language, in the order of the language codes. Which language a section falls back to (English for
Polish and Russian) is each definition's `fallback`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .escaping import js_literal

PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Language:
    code: str
    name: str  # in the language itself
    theme: str  # Material for MkDocs' theme language
    fallback: tuple[str, ...]  # shown instead, in order, when an item lacks this language
    folding: Mapping[str, str]  # search: letter -> the letter it is matched as
    resolution_label: str  # the bold word opening a clarification's ruling in this language's text
    ui: Mapping[str, Any] = field(default_factory=dict)  # interface texts; "language_names" maps codes to names
    alphabet: str = ""  # its letters in dictionary order (lists sort by it)
    synonyms: Mapping[str, Any] = field(default_factory=dict)  # synonyms.yaml: words players use (terms: {term id: [words]}, words: {word: [words]})

    def collation_key(self, title: str) -> tuple[tuple[int, int], ...]:
        """A title's place in this language's alphabetical lists: spaces, digits and marks first (as a
        dictionary puts "Line of sight" before "Lines"), then the letters in the alphabet's order (Polish ł
        after l, ą after a; a letter outside the alphabet as its search folding: Russian ё as е), then other
        scripts' letters; leading quotes and punctuation skipped."""
        text = re.sub(r"^\W+", "", unicodedata.normalize("NFC", title.lower()))
        rank = {letter: i for i, letter in enumerate(self.alphabet)}

        def place(c: str) -> tuple[int, int]:
            folded = c if c in rank else self.folding.get(c, c)
            if folded in rank:
                return (1, rank[folded])
            return (2, ord(folded)) if folded.isalpha() else (0, ord(folded))

        return tuple(place(c) for c in text)

    def initial(self, title: str) -> str:
        """The letter a title is listed under (upper case): its first letter, folded when the alphabet lacks it."""
        text = re.sub(r"^\W+", "", unicodedata.normalize("NFC", title.lower()))
        if not text:
            return "#"
        first = text[0] if text[0] in self.alphabet else self.folding.get(text[0], text[0])
        return first.upper()


class Languages:
    """The defined languages, in the order of their codes (for the root page and the last fallback)."""

    def __init__(self, languages: Iterable[Language]):
        self._by_code = {lang.code: lang for lang in sorted(languages, key=lambda lang: lang.code)}

    def __iter__(self) -> Iterator[Language]:
        return iter(self._by_code.values())

    def __getitem__(self, code: str) -> Language:
        return self._by_code[code]

    def __contains__(self, code: object) -> bool:
        return code in self._by_code

    def __len__(self) -> int:
        return len(self._by_code)

    @property
    def codes(self) -> list[str]:
        return list(self._by_code)

    def ui(self, reader: str) -> Mapping[str, Any]:
        return self._by_code[reader].ui

    def name_in(self, lang: str, reader: str) -> str:
        """The name of `lang` in the reader's language ("angielski"), else in itself ("English")."""
        return self._by_code[reader].ui.get("language_names", {}).get(lang) or self._by_code[lang].name

    def pick(self, available: Iterable[str], reader: str, originals: Iterable[str] = ()) -> str:
        """Which language a reader is shown of something available in `available` languages."""
        present = set(available)
        preference = [reader, *(self._by_code[reader].fallback if reader in self._by_code else ()), *originals, *self._by_code]
        for lang in preference:
            if lang in present:
                return lang
        if present:
            return sorted(present)[0]
        raise ValueError("nothing to show: no language available")

    def text(self, values: Mapping[str, Any], reader: str) -> Any:
        """A per-language value (a title, a summary, a table cell) for a reader; other values as they are."""
        if not isinstance(values, Mapping):
            return values
        return values[self.pick(values, reader)]

    def shown(self, values: Mapping[str, Any], reader: str) -> tuple[Any, str]:
        """A per-language value for a reader, with the language it is in (to mark `lang` where it is not theirs)."""
        lang = self.pick(values, reader)
        return values[lang], lang

    def folding(self) -> dict[str, str]:
        """Every language's search folding together: each section's index holds every language's
        glossary forms, so a query is folded the same way in every section."""
        folded: dict[str, str] = {}
        for lang in self:
            folded.update(lang.folding)
        return folded

    def script_config(self, games: dict[str, list[str]]) -> str:
        """The languages as the site's script needs them (assets/kb-languages.js): codes, search folding
        and labels, and which games each section holds (so the language switch can stay on the page);
        `offline`: the notices of kb-offline.js."""
        labels = ("search", "search_placeholder", "no_results", "search_scope_game", "search_scope_all", "search_section", "link_copied", "copy_link")
        config = {
            "languages": self.codes,
            "fold": self.folding(),
            "games": games,
            "names": {lang.code: lang.name for lang in self},
            "offline": {lang.code: {key: lang.ui["calculator"][key] for key in OFFLINE_WORDS} for lang in self},
            "labels": {lang.code: {key: lang.ui[key] for key in labels} for lang in self},
        }
        return f"window.kbLanguages = {js_literal(config, sort_keys=True)};\n"


OFFLINE_WORDS = ("offline_ready", "update_ready", "reload", "megabytes", "decimal")  # ui.calculator's words kb-offline.js says


def fill(text: str, **values: str) -> str:
    """An interface text with its `{name}` places filled in. Any other brace stays as written, and a
    place with no value is left as it is: what `validate` allows in a text (E08x) never breaks a build."""
    return PLACEHOLDER.sub(lambda m: values.get(m[1], m[0]), text)


LANGUAGES_FOLDER = "languages"


def language_from(definition: Mapping[str, Any], ui: Mapping[str, Any], synonyms: Mapping[str, Any] | None = None) -> Language:
    """A Language from its loaded (and validated) definition, UI texts and synonyms (if any)."""
    return Language(
        code=definition["code"],
        name=definition["name"],
        theme=definition["theme"],
        fallback=tuple(definition.get("fallback", [])),
        folding=dict(definition.get("folding", {})),
        resolution_label=definition["resolution_label"],
        ui=dict(ui),
        alphabet=definition.get("alphabet", ""),
        synonyms=dict(synonyms or {}),
    )


def read_languages(data_dir: Path) -> Languages:
    """The languages of a data folder, read directly (for tools that do not run the pipeline: ingest).
    The pipeline loads and validates the same files through load/validate."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe")
    found = []
    for folder in sorted((data_dir / LANGUAGES_FOLDER).iterdir()):
        definition = yaml.load((folder / "language.yaml").read_text(encoding="utf-8"))["language"]
        ui = yaml.load((folder / "ui.yaml").read_text(encoding="utf-8"))["ui"]
        synonyms = folder / "synonyms.yaml"
        found.append(language_from(definition, ui, yaml.load(synonyms.read_text(encoding="utf-8"))["synonyms"] if synonyms.is_file() else None))
    return Languages(found)
