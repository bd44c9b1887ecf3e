"""Stage 1, load: read every file under data/ into documents, refusing what is out of place.

Known places (see docs/data-format.md):
  data/languages/<code>/language.yaml   a language: code, name, fallback, search folding
  data/languages/<code>/ui.yaml         its interface texts
  data/languages/<code>/synonyms.yaml   the words its players use for glossary terms (optional; search)
  data/sources/manifest.yaml            the source manifest
  data/sources/<file>.txt               raw rulebook texts named in the manifest
  data/games/<game>/game.yaml           a game
  data/games/<game>/glossary.yaml       its glossary
  data/games/<game>/cards.yaml          which entries its player aid carries
  data/games/<game>/checks.yaml         its rules-check catalogue (rules_check, see generator/validate/validate_checks.py)
  data/games/<game>/calculators.yaml    how its calculators speak: labels and answer sentences (validate_calculators.py)
  data/games/<game>/noise/<name>.yaml   source lines deliberately not carried into entries
  data/games/<game>/chapters/NN-*.yaml  a chapter with its entries

Every file and folder is either read or reported: unreadable ones (E008), links that lead out of
the data folder (E009, never followed), files too large (E010). A file that does not parse is
reported once; the ids it seems to define are kept (`Unloaded`) so that references to them are
not reported as dangling elsewhere.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.problems import Problems
from .yamlio import Positions, parse_yaml, read_bytes

GAME_FILES = {"game.yaml": "game", "glossary.yaml": "glossary", "cards.yaml": "cards", "checks.yaml": "checks", "calculators.yaml": "calculators"}
NAMED_FILE = re.compile(r"^[a-z0-9][a-z0-9-]*\.yaml$")
CHAPTER_FILE = re.compile(r"^(\d\d)-[a-z0-9-]+\.yaml$")
# An `id:` line, as an editor writes it, or with its colon lost (`- id citow/x`, which may be what
# broke the file); used only to guess the ids of a file that does not parse.
ID_LINE = re.compile(r"""^[ \t-]*id(?:[ \t]*:|[ \t]+)[ \t]*["']?([a-z0-9][a-z0-9/-]*)""", re.MULTILINE)


@dataclass
class Document:
    """One loaded YAML file: plain `data`, and `positions` to find where a problem stands."""

    path: str  # as shown in messages (relative to the data folder's parent)
    kind: str  # manifest | game | glossary | noise | chapter | cards | checks | calculators
    data: Any
    positions: Positions
    game: str | None = None
    order: int | None = None  # chapters: the NN- prefix
    digest: bytes = b""  # of the file's bytes: what its data is a function of


@dataclass
class Unloaded:
    """A file in a known place, or a folder, that could not be loaded (its problem is reported),
    and the ids its text seems to define: None when it could not be read at all (then anything of
    its game, or any source if it is a source text or the sources folder, may be in it)."""

    path: str
    kind: str  # as Document.kind, or "source" (a source text), or "folder"
    game: str | None
    ids: set[str] | None


@dataclass
class LoadedData:
    root: Path
    documents: list[Document] = field(default_factory=list)
    unloaded: list[Unloaded] = field(default_factory=list)
    source_texts: dict[str, bytes] = field(default_factory=dict)  # file name -> its bytes

    def shown(self, *parts: str) -> str:
        """A path inside the data folder as messages show it: shown("sources", "manifest.yaml")."""
        return _shown(self.root.joinpath(*parts), self.root)


LANGUAGE_FILES = {"language.yaml": "language", "ui.yaml": "ui", "synonyms.yaml": "synonyms"}  # data/languages/<code>/


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent))
    except ValueError:
        return str(path)


Place = tuple[str, str | None, int | None]  # (kind, game, order) of a YAML file, see Document


def _place_of(relative: tuple[str, ...]) -> Place | None:
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


def _files(folder: Path, root: Path, real_root: str, problems: Problems, seen: set[str], unreadable: list[Path]) -> Iterator[Path]:
    """Every regular file under `folder`, in name order; what cannot be read is reported (and
    added to `unreadable`).

    Links are followed only when they stay inside the data folder (each real folder once, so a
    loop ends); a link out of it is refused without being opened."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as err:
        problems.add(_shown(folder, root), (1, 1), "E008", f"the folder cannot be read ({err.strerror or type(err).__name__})")
        unreadable.append(folder)
        return
    for name in names:
        path = folder / name
        real = os.path.realpath(path)
        if path.is_symlink() and os.path.commonpath([real, real_root]) != real_root:
            problems.add(_shown(path, root), (1, 1), "E009", "a link to a place outside the data folder; it was not followed")
        elif path.is_dir():
            if real not in seen:
                seen.add(real)
                yield from _files(path, root, real_root, problems, seen, unreadable)
        elif path.is_file():
            yield path
        elif path.is_symlink():
            problems.add(_shown(path, root), (1, 1), "E008", "a link to nothing (its target does not exist)")
        else:
            problems.add(_shown(path, root), (1, 1), "E008", "neither a plain file nor a folder")


ParsedFiles = dict[str, tuple[bytes, Any]]  # shown path -> (its bytes, their plain data), see `load`


def load(root: Path, problems: Problems, parsed: ParsedFiles | None = None) -> LoadedData:
    """Read all files; every file is either loaded or reported, never skipped.

    `parsed` (kept by `serve` between rebuilds) holds the files that parsed cleanly last time: a
    file whose bytes are the same is not parsed again (its data is used as it is: no stage changes
    a document). It is updated with this load's files."""
    loaded = LoadedData(root=root)
    if not root.is_dir():
        problems.add(str(root), (1, 1), "E008", "the data folder does not exist or is not a folder")
        return loaded
    real_root = os.path.realpath(root)
    games_seen = False
    unreadable: list[Path] = []  # filled by _files as it walks
    for path in _files(root, root, real_root, problems, {real_root}, unreadable):
        relative = path.relative_to(root).parts
        games_seen = games_seen or relative[0] == "games"
        _load_file(loaded, path, relative, problems, parsed)
    for folder in unreadable:
        relative = folder.relative_to(root).parts
        games_seen = games_seen or relative in ((), ("games",))
        loaded.unloaded.append(_unreadable_folder(folder, relative, root))
    if not games_seen:
        problems.add(_shown(root / "games", root), (1, 1), "E037", "the data folder holds no game")
    if parsed is not None:  # forget the files that are gone
        for shown in set(parsed) - {document.path for document in loaded.documents}:
            del parsed[shown]
    return loaded


def _load_file(loaded: LoadedData, path: Path, relative: tuple[str, ...], problems: Problems, parsed: ParsedFiles | None) -> None:
    """One file found under data/: a source text, or a YAML file in a known place; any other file
    is reported (E006), except README.md and hidden files."""
    shown = _shown(path, loaded.root)
    if relative[0] == "sources" and len(relative) == 2 and path.suffix == ".txt":
        _load_source_text(loaded, path, shown, problems)
    elif path.suffix not in (".yaml", ".yml"):
        if not (path.name in ("README.md",) or path.name.startswith(".")):
            problems.add(shown, (1, 1), "E006", "not a YAML file nor a source text; the loader does not read it")
    else:
        place = _place_of(relative)
        if place is None:
            problems.add(shown, (1, 1), "E006", "the loader does not know this place for a YAML file")
        else:
            _load_yaml_file(loaded, path, shown, place, problems, parsed)


def _load_source_text(loaded: LoadedData, path: Path, shown: str, problems: Problems) -> None:
    """A raw rulebook text of data/sources/, kept as bytes (checked against the manifest later)."""
    raw = read_bytes(path, shown, problems)
    if raw is None:
        loaded.unloaded.append(Unloaded(shown, "source", None, None))
    else:
        loaded.source_texts[path.name] = raw


def _load_yaml_file(loaded: LoadedData, path: Path, shown: str, place: Place, problems: Problems, parsed: ParsedFiles | None) -> None:
    """A YAML file in a known place (`place`: see _place_of) as a Document, or, if it cannot be read
    or parsed, as Unloaded with the ids its text seems to define."""
    kind, game, order = place
    raw = read_bytes(path, shown, problems)
    data = None if raw is None else _parse(raw, shown, problems, parsed)
    if raw is None or data is None:
        ids = set(ID_LINE.findall(raw.decode("utf-8", errors="replace"))) if raw is not None else None
        loaded.unloaded.append(Unloaded(shown, kind, game, ids))
        return
    loaded.documents.append(Document(shown, kind, data, Positions(path), game, order, hashlib.blake2b(raw, digest_size=16).digest()))


def _unreadable_folder(folder: Path, relative: tuple[str, ...], root: Path) -> Unloaded:
    """A folder that could not be listed: anything of its game (or every source, for the sources
    folder, which holds the manifest) may be in it."""
    game = relative[1] if len(relative) >= 2 and relative[0] == "games" else None
    kind = "manifest" if relative == ("sources",) else "folder"  # the manifest is inside the sources folder
    return Unloaded(_shown(folder, root), kind, game, None)


def _parse(raw: bytes, shown: str, problems: Problems, parsed: ParsedFiles | None) -> Any | None:
    """`parse_yaml`, or the data of the same bytes parsed before (see `load`)."""
    if parsed is not None and shown in parsed and parsed[shown][0] == raw:
        return parsed[shown][1]
    before = len(problems)
    data = parse_yaml(raw, shown, problems)
    if parsed is not None and data is not None and len(problems) == before:
        parsed[shown] = (raw, data)
    return data
