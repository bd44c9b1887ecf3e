"""Stage 1, load: read every file under data/ into documents, refusing what is out of place.

Known places (see docs/data-format.md):
  data/languages/<code>/language.yaml   a language: code, name, fallback, search folding
  data/languages/<code>/ui.yaml         its interface texts
  data/sources/manifest.yaml            the source manifest
  data/sources/<file>.txt               raw rulebook texts named in the manifest
  data/games/<game>/game.yaml           a game
  data/games/<game>/glossary.yaml       its glossary
  data/games/<game>/cards.yaml          which entries its player aid carries
  data/games/<game>/checks.yaml         its rules-check catalogue (rules_check, see generator/validate_checks.py)
  data/games/<game>/noise/<name>.yaml   source lines deliberately not carried into entries
  data/games/<game>/chapters/NN-*.yaml  a chapter with its entries
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .problems import Problems
from .yamlio import Positions, load_yaml

GAME_FILES = {"game.yaml": "game", "glossary.yaml": "glossary", "cards.yaml": "cards", "checks.yaml": "checks"}
NAMED_FILE = re.compile(r"^[a-z0-9][a-z0-9-]*\.yaml$")
CHAPTER_FILE = re.compile(r"^(\d\d)-[a-z0-9-]+\.yaml$")


@dataclass
class Document:
    """One loaded YAML file: plain `data`, and `positions` to find where a problem stands."""
    path: str          # as shown in messages (relative to the data folder's parent)
    kind: str          # manifest | game | glossary | noise | chapter
    data: Any
    positions: Positions
    game: str | None = None
    order: int | None = None  # chapters: the NN- prefix


@dataclass
class LoadedData:
    root: Path
    documents: list[Document] = field(default_factory=list)
    source_files: dict[str, Path] = field(default_factory=dict)  # file name -> path


LANGUAGE_FILES = {"language.yaml": "language", "ui.yaml": "ui"}  # data/languages/<code>/


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent))
    except ValueError:
        return str(path)


def _place_of(relative: tuple[str, ...]) -> tuple[str, str | None, int | None] | None:
    """(kind, game, order) for a YAML file's path relative to data/, or None if unknown."""
    if relative == ("sources", "manifest.yaml"):
        return "manifest", None, None
    if len(relative) == 3 and relative[0] == "languages" and relative[2] in LANGUAGE_FILES:
        return LANGUAGE_FILES[relative[2]], None, None
    if len(relative) == 3 and relative[0] == "games" and relative[2] in GAME_FILES:
        return GAME_FILES[relative[2]], relative[1], None
    if len(relative) == 4 and relative[0] == "games" and relative[2] == "noise" and NAMED_FILE.match(relative[3]):
        return "noise", relative[1], None
    if len(relative) == 4 and relative[0] == "games" and relative[2] == "chapters":
        match = CHAPTER_FILE.match(relative[3])
        if match:
            return "chapter", relative[1], int(match.group(1))
    return None


def load(root: Path, problems: Problems) -> LoadedData:
    """Read all files; every file is either loaded or reported (E006), never skipped."""
    loaded = LoadedData(root=root)
    if not root.is_dir():
        problems.add(str(root), (1, 1), "E006", "the data folder does not exist")
        return loaded
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root).parts
        shown = _shown(path, root)
        if relative[0] == "sources" and len(relative) == 2 and path.suffix == ".txt":
            loaded.source_files[path.name] = path
            continue
        if path.suffix not in (".yaml", ".yml"):
            if path.name in ("README.md",) or path.name.startswith("."):
                continue
            problems.add(shown, (1, 1), "E006", "not a YAML file nor a source text; the loader does not read it")
            continue
        place = _place_of(relative)
        if place is None:
            problems.add(shown, (1, 1), "E006", "the loader does not know this place for a YAML file")
            continue
        data = load_yaml(path, shown, problems)
        if data is None:
            continue
        kind, game, order = place
        loaded.documents.append(Document(shown, kind, data, Positions(path), game, order))
    return loaded
