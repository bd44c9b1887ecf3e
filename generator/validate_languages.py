"""The languages as data: each `data/languages/<code>/` folder holds a definition and its interface
texts; they become `kb.languages`. Problems: a folder missing one of its two files, a code that is
not its folder's name, a fallback to an undefined language (E062), and a game offered in a language
with no definition (E063). No language at all is E062 too: nothing could be shown."""
from __future__ import annotations

from .languages import Language, Languages, language_from
from .load import LoadedData
from .model import KnowledgeBase
from .problems import Problems


def check(loaded: LoadedData, kb: KnowledgeBase, problems: Problems, sound: set[int]) -> None:
    """Build kb.languages from the loaded language files whose shape is sound (ids in `sound`)."""
    folders: dict[str, dict] = {}
    for doc in loaded.documents:
        if id(doc) in sound:
            folders.setdefault(doc.path.replace("\\", "/").split("/")[-2], {})[doc.kind] = doc
    found: list[Language] = []
    for folder, docs in sorted(folders.items()):
        if set(docs) != {"language", "ui"}:
            present = next(iter(docs.values()))
            missing = "ui.yaml" if "ui" not in docs else "language.yaml"
            problems.add(present.path, (1, 1), "E062", f"language folder '{folder}' has no {missing}")
            continue
        definition, ui = docs["language"].data["language"], docs["ui"].data["ui"]
        if definition["code"] != folder:
            problems.add(docs["language"].path, docs["language"].positions.of(["language", "code"]), "E062",
                         f"code '{definition['code']}' is not the folder's name '{folder}'")
            continue
        found.append(language_from(definition, ui))
    kb.languages = Languages(found)
    for language in kb.languages:
        for fallback in language.fallback:
            if fallback not in kb.languages:
                doc = folders[language.code]["language"]
                problems.add(doc.path, doc.positions.of(["language", "fallback"]), "E062",
                             f"language '{language.code}' falls back to '{fallback}', which has no definition")
    if kb.games and not len(kb.languages) and not any(d.kind in ("language", "ui") for d in loaded.documents):
        problems.add(str(loaded.root / "languages"), (1, 1), "E062", "no language is defined (data/languages/<code>/)")
    for game_id, game in kb.games.items():
        where = kb.where[game_id]
        for lang in game.get("languages", []):
            if len(kb.languages) and lang not in kb.languages:
                problems.add(where.document.path, where.document.positions.of(where.path + ["languages"]), "E063",
                             f"game '{game_id}' is offered in '{lang}', which has no definition in data/languages/")
