"""The kinds of page every game has in a language section, in one table, and the section's own pages: the
site renderer (its pages, the game's home and the navigation), resolve (a glossary term's URL), the
calculators, the aids, the offline files and the tests read it.

A kind's page is `<lang>/<game>/<stem>.md` in the docs folder the site engine reads and
`<lang>/<game>/<stem>.html` on the site; `label` names its title in ui.yaml (dotted: a nested text).
The chapters' pages are named by their data (`Resolved.page_of`), not here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PageKind:
    name: str  # how code and templates name it
    stem: str  # its file name, without the extension
    label: str | None  # its title in ui.yaml; None: the page is titled otherwise (the game's index: the game's name)

    @property
    def md(self) -> str:
        """Its file in a game's folder of the docs the site engine reads."""
        return f"{self.stem}.md"

    @property
    def html(self) -> str:
        """Its URL from the game's folder."""
        return f"{self.stem}.html"

    def title(self, labels: Mapping[str, Any]) -> str:
        """Its title among a language's interface texts."""
        assert self.label is not None, f"the {self.name} page has no title of its own"
        text: Any = labels
        for key in self.label.split("."):
            text = text[key]
        return str(text)


GAME_INDEX = PageKind("index", "index", None)
A_TO_Z = PageKind("a_to_z", "a-z", "a_to_z")
GLOSSARY = PageKind("glossary", "glossary", "glossary")
CLARIFICATIONS = PageKind("clarifications", "clarifications", "clarifications")
EXAMPLES = PageKind("examples", "examples", "examples")
CHANGES = PageKind("changes", "changes", "aid_changes")  # the rulings by review date: what changed since a printed aid
CALCULATORS = PageKind("calculators", "calculators", "calculator.calculators")  # only for a game with calculators

GAME_PAGES = (GAME_INDEX, A_TO_Z, GLOSSARY, CLARIFICATIONS, EXAMPLES, CHANGES, CALCULATORS)  # the navigation's order (chapters after the index)
REFERENCE_PAGES = (A_TO_Z, GLOSSARY, CLARIFICATIONS, EXAMPLES, CHANGES)  # every game has them, after its chapters


# A language section's own pages, beside its games' folders: `<lang>/<stem>.md`, `<lang>/<stem>.html`
SECTION_HOME = PageKind("home", "index", "home")
ALL_CLARIFICATIONS = PageKind("all_clarifications", "clarifications", "all_clarifications")  # every game's, by game
OFFLINE = PageKind("offline", "offline", "offline_title")  # where the service worker sends an address it does not hold


def game_hrefs() -> dict[str, str]:
    """Each kind's URL from the game's folder, by name (for the templates)."""
    return {kind.name: kind.html for kind in GAME_PAGES}
