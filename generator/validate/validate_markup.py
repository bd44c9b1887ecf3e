"""Checks that the renderer's safety rules are heard before a build: a link or image destination in
an entry's text or aid summary that `safe_markdown` would drop (E060), and an image in an entry that a
player aid prints (E061: aids fetch nothing, so the build would fail there), and a character in such an
entry that the aids' fonts cannot draw (E087: the build would stop at the aid, naming neither file nor entry)."""

from __future__ import annotations

from ..base import fonts
from ..base.kept import kept_function
from ..base.problems import Problems
from ..base.safe_markdown import has_image, refused_destinations
from ..load.model import KnowledgeBase


def check(kb: KnowledgeBase, problems: Problems) -> None:
    on_aids = {
        entry_id
        for aid in kb.aids.values()
        for section in aid["sections"]
        for entry_id in [*section["entries"], *(ref for faction in section.get("factions", []) for ref in faction.get("entries", []))]
    }
    drawable = _aid_fonts_known()
    for entry_id, entry in kb.entries.items():
        where = kb.where[entry_id]
        texts = [(["title", lang], lang, text) for lang, text in entry["title"].items()]
        texts += [(["text", lang], lang, text) for lang, text in entry["text"].items()]
        texts += [(["summary", "text", lang], lang, text) for lang, text in entry.get("summary", {}).get("text", {}).items()]
        for path, lang, text in texts:
            for code, what in _text_problems(text, entry_id in on_aids, drawable):  # a position costs a look into the file: only for a problem
                problems.add(
                    where.document.path, where.document.positions.of([*where.path, *path]), code, f"entry '{entry_id}', {lang} {path[0]}: {what}"
                )


@kept_function()
def _text_problems(text: str, on_aid: bool, drawable: bool) -> tuple[tuple[str, str], ...]:
    """(code, what is wrong) of one text; kept per text, as `serve` asks again of every text on every rebuild."""
    found = [("E060", f"link or image to {refused}") for refused in refused_destinations(text)]
    if on_aid and has_image(text):
        found.append(("E061", "an image in an entry printed on a player aid"))
    if on_aid and drawable and (missing := fonts.uncovered(text)):
        shown = ", ".join(f"U+{ord(ch):04X} {ch}" for ch in missing[:5])
        found.append(("E087", f"printed on a player aid, {shown} has no glyph in {fonts.FONT_FAMILY}"))
    return tuple(found)


def _aid_fonts_known() -> bool:
    """Whether this machine can tell what the aids' fonts draw (fontconfig and the fonts installed);
    where it cannot, the build's own guard before layout still stops at such a character."""
    try:
        fonts.font_coverage()
    except Exception:  # noqa: BLE001 - no fc-match, no font file, an unreadable font: nothing to check against
        return False
    return True
