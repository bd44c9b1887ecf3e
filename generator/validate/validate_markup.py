"""Checks that the renderer's safety rules are heard before a build: a link or image destination in
an entry's text or aid summary that `safe_markdown` would drop (E060), and an image in an entry that a
player aid prints (E061: aids fetch nothing, so the build would fail there)."""
from __future__ import annotations

from ..base.problems import Problems
from ..base.safe_markdown import has_image, refused_destinations
from ..load.model import KnowledgeBase


def check(kb: KnowledgeBase, problems: Problems) -> None:
    on_aids = {entry_id for aid in kb.aids.values() for section in aid["sections"] for entry_id in section["entries"]}
    for entry_id, entry in kb.entries.items():
        where = kb.where[entry_id]
        texts = [(["text", lang], lang, text) for lang, text in entry["text"].items()]
        texts += [(["summary", "text", lang], lang, text) for lang, text in entry.get("summary", {}).get("text", {}).items()]
        for path, lang, text in texts:
            field = f"{lang} {'summary' if path[0] == 'summary' else 'text'}"
            found = [("E060", f"entry '{entry_id}', {field}: link or image to {refused}") for refused in refused_destinations(text)]
            if entry_id in on_aids and has_image(text):
                found.append(("E061", f"entry '{entry_id}', {field}: an image in an entry printed on a player aid"))
            for code, message in found:  # a position costs a look into the file: only for a problem
                problems.add(where.document.path, where.document.positions.of(where.path + path), code, message)
