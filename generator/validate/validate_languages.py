"""The languages as data: each `data/languages/<code>/` folder holds a definition and its interface
texts; they become `kb.languages`. Problems: a folder missing one of its two files, a code that is
not its folder's name, a fallback to an undefined language (E062), and a game offered in a language
with no definition (E063). No language at all is E062 too: nothing could be shown. An interface text may
use only the {places} the generator fills for it (E065); search folding maps letters to letters (E066);
the theme language is one Material for MkDocs has (E085). The optional synonyms.yaml names known glossary
terms (E067) with words the glossary does not already give them in that language (E068)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from typing import Any

from ..base.jsontypes import JSON, JSONPath
from ..base.languages import PLACEHOLDER, Language, Languages, language_from
from ..base.problems import Problems
from ..base.termmatch import spellings
from ..load.load import LANGUAGE_FILES, Document, LoadedData
from ..load.model import KnowledgeBase


def check(loaded: LoadedData, kb: KnowledgeBase, problems: Problems, sound: set[int]) -> None:
    """Build kb.languages from the loaded language files whose shape is sound (ids in `sound`)."""
    folders, broken = _language_folders(loaded, sound)
    kb.languages = Languages(
        language
        for folder, docs in sorted(folders.items())
        if folder not in broken  # what is wrong in the folder is said once, by its file's problem
        and (language := _language_of(folder, docs, kb, problems)) is not None
    )
    _check_fallbacks(kb, folders, broken, problems)
    if kb.games and not len(kb.languages) and not broken and not any(d.kind in ("language", "ui") for d in loaded.documents):
        problems.add(str(loaded.root / "languages"), (1, 1), "E062", "no language is defined (data/languages/<code>/)")
    _check_game_languages(kb, broken, problems)


def _language_folders(loaded: LoadedData, sound: set[int]) -> tuple[dict[str, dict[str, Document]], set[str]]:
    """The language folders' sound files (folder -> kind -> document), and the folders with a
    language file whose problem is already reported (broken)."""
    folders: dict[str, dict[str, Document]] = {}
    broken: set[str] = set()
    for doc in loaded.documents:
        if id(doc) in sound:
            folders.setdefault(_folder(doc.path), {})[doc.kind] = doc
        elif doc.kind in LANGUAGE_FILES.values():
            broken.add(_folder(doc.path))
    broken |= {_folder(file.path) for file in loaded.unloaded if file.kind in LANGUAGE_FILES.values()}
    return folders, broken


def _check_fallbacks(kb: KnowledgeBase, folders: dict[str, dict[str, Document]], broken: set[str], problems: Problems) -> None:
    """E062: a language falls back to one with no definition (a broken folder's is not said again)."""
    for language in kb.languages:
        for fallback in language.fallback:
            if fallback not in kb.languages and fallback not in broken:
                doc = folders[language.code]["language"]
                problems.add(
                    doc.path,
                    doc.positions.of(["language", "fallback"]),
                    "E062",
                    f"language '{language.code}' falls back to '{fallback}', which has no definition",
                )


def _check_game_languages(kb: KnowledgeBase, broken: set[str], problems: Problems) -> None:
    """E063: a game offered in a language with no definition (said only when some language is defined)."""
    for game_id, game in kb.games.items():
        where = kb.where[game_id]
        for lang in game.get("languages", []):
            if len(kb.languages) and lang not in kb.languages and lang not in broken:
                problems.add(
                    where.document.path,
                    where.document.positions.of([*where.path, "languages"]),
                    "E063",
                    f"game '{game_id}' is offered in '{lang}', which has no definition in data/languages/",
                )


def _language_of(folder: str, docs: dict[str, Document], kb: KnowledgeBase, problems: Problems) -> Language | None:
    """The language a folder's sound files define, its texts checked; None if a file is missing or
    the code is not the folder's name (the problem is added)."""
    if not {"language", "ui"} <= set(docs):
        present = next(iter(docs.values()))
        missing = "ui.yaml" if "ui" not in docs else "language.yaml"
        problems.add(present.path, (1, 1), "E062", f"language folder '{folder}' has no {missing}")
        return None
    definition, ui = docs["language"].data["language"], docs["ui"].data["ui"]
    if definition["code"] != folder:
        problems.add(
            docs["language"].path,
            docs["language"].positions.of(["language", "code"]),
            "E062",
            f"code '{definition['code']}' is not the folder's name '{folder}'",
        )
        return None
    check_places(docs["ui"], ui, problems)
    check_folding(docs["language"], definition, problems)
    check_theme(docs["language"], definition, problems)
    synonyms = docs["synonyms"].data["synonyms"] if "synonyms" in docs else {}
    if synonyms:
        check_synonyms(docs["synonyms"], synonyms, folder, kb, problems)
    return language_from(definition, ui, synonyms)


def _folder(path: str) -> str:
    """The language code a data/languages/<code>/ file's folder names."""
    return path.replace("\\", "/").split("/")[-2]


# The {places} the generator fills in each interface text (by its key path); any other brace is refused.
PLACES: dict[JSONPath, frozenset[str]] = {
    ("translated_from",): frozenset({"lang"}),
    ("fallback",): frozenset({"shown"}),
    ("calculator", "failed"): frozenset({"error"}),
    ("calculator", "offline_ready"): frozenset({"size", "runtime"}),
    ("calculator", "megabytes"): frozenset({"n"}),
    ("calculator", "keep"): frozenset({"size"}),
    ("calculator", "keeping"): frozenset({"done", "size"}),
    **{
        ("calculator", "input", rule): frozenset({"limit"})
        for rule in ("minimum", "maximum", "min_items", "max_items", "min_length", "max_length", "min_properties")
    },
}
BRACE = re.compile(r"[{}]")


def _texts(node: JSON, path: JSONPath) -> Iterator[tuple[JSONPath, str]]:
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, Mapping):
        for key, value in node.items():
            yield from _texts(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _texts(value, (*path, i))


def check_places(doc: Document, ui: Mapping[str, Any], problems: Problems) -> None:
    """E065: a {place} the generator does not fill for that text, or a brace that opens no place."""
    for path, text in _texts(ui, ()):
        allowed = PLACES.get(path, frozenset())
        unknown = [m[1] for m in PLACEHOLDER.finditer(text) if m[1] not in allowed]
        stray = BRACE.findall(PLACEHOLDER.sub("", text))
        if unknown or stray:
            said = f"{{{unknown[0]}}} is not filled in here" if unknown else "a brace opens or closes no {place}"
            may = ", ".join(f"{{{name}}}" for name in sorted(allowed)) or "none"
            problems.add(
                doc.path, doc.positions.of(["ui", *path]), "E065", f"interface text ui.{'.'.join(map(str, path))}: {said} (its places: {may})"
            )


def check_folding(doc: Document, definition: Mapping[str, Any], problems: Problems) -> None:
    """E066: search folding matches a letter as another letter; a mark or digit there would fold away words."""
    for letter, folded in definition.get("folding", {}).items():
        if not (letter.isalpha() and folded.isalpha()):
            problems.add(
                doc.path,
                doc.positions.of(["language", "folding", letter]),
                "E066",
                f"search folding {letter!r}: {folded!r} maps a character that is not a letter",
            )


def check_synonyms(doc: Document, synonyms: Mapping[str, Any], lang: str, kb: KnowledgeBase, problems: Problems) -> None:
    """E067: a synonym for a term no glossary defines (a term in a file that did not load is not
    reported); E068: a word the glossary already gives the term in this language, or a word listed as
    its own synonym: search would find nothing more by it."""
    for term_id, words in synonyms.get("terms", {}).items():
        term = kb.terms.get(term_id)
        if term is None:
            if term_id not in kb.unchecked_ids and kb.game_of(term_id) not in kb.unchecked_games:
                problems.add(
                    doc.path, doc.positions.of(["synonyms", "terms", term_id]), "E067", f"synonyms for '{term_id}', which no glossary defines"
                )
            continue
        given = {_plain(name) for name in spellings(term, lang)}
        for i, word in enumerate(words):
            if _plain(word) in given:
                problems.add(
                    doc.path,
                    doc.positions.of(["synonyms", "terms", term_id, i]),
                    "E068",
                    f"'{word}' is already a name, variant or form of '{term_id}' in the glossary",
                )
    for key, words in synonyms.get("words", {}).items():
        for i, word in enumerate(words):
            if _plain(word) == _plain(key):
                problems.add(doc.path, doc.positions.of(["synonyms", "words", key, i]), "E068", f"'{word}' is listed as a synonym of itself")


def _plain(word: str) -> str:
    return " ".join(word.lower().split())


@cache
def theme_languages() -> frozenset[str]:
    """The languages of Material for MkDocs' interface: its templates/partials/languages/<code>.html."""
    folder = resources.files("material") / "templates" / "partials" / "languages"
    return frozenset(item.name.removesuffix(".html") for item in folder.iterdir() if item.name.endswith(".html"))


def check_theme(doc: Document, definition: Mapping[str, Any], problems: Problems) -> None:
    """E085: a theme language Material does not have (the build would stop on a missing template)."""
    theme = definition.get("theme")
    if isinstance(theme, str) and theme not in theme_languages():
        problems.add(
            doc.path, doc.positions.of(["language", "theme"]), "E085", f"theme language {theme!r} is not one of Material for MkDocs' languages"
        )
