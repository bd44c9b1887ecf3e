"""Stage 2, validate: shape (JSON Schema) and meaning (named checks), all problems collected.

`build_knowledge_base` turns loaded documents into a KnowledgeBase, skipping only items that
already have a reported problem. `MeaningChecks` then runs the semantic checks.

One mistake, one error: an item skipped for a problem (an entry of the wrong shape) leaves its ids
in `kb.unchecked_ids`, and a file that does not parse (or a broken game.yaml) its whole game in
`kb.unchecked_games` (which ids it would define is only a guess); references to them are not
reported as dangling, and the root problem says in a note how many references were left unchecked.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from jsonschema.exceptions import best_match

from rules_check import core as rules_input
from rules_check.core import CheckId

from ..base import colours, textmatch
from ..base.jsontypes import JSON, JSONPath
from ..base.kept import Answers
from ..base.linerange import parse_ranges, range_lines
from ..base.problems import DataError, Problems
from ..load.load import Document, LoadedData, load
from ..load.model import Aid, Chapter, Entry, KnowledgeBase, Noise, PerLanguage, Source, Where, aid_place
from . import validate_calculators, validate_languages, validate_markup, validate_terms, validate_text
from .schema import check_shape, describe, explained, is_inside_failed, part_at, swallowed_keys
from .validate_calculators import check_calculators  # the calculators' words (calculators.yaml)
from .validate_checks import check_catalogues, known_checks  # rules-check catalogues (checks.yaml)

# How much of an entry's words must be found in its cited lines, and how much of the
# cited lines' words must be carried by the entry (see E033). Inflection and repaired
# typos keep these below 1.
MIN_TEXT_IN_SOURCE = 0.6
MIN_SOURCE_IN_TEXT = 0.6
# A text's last lines are another language's run on into it (its `xx: |` line lost) when fewer than
# this share of their words (at least RUN_ON_MIN_WORDS of them) are in the cited lines.
RUN_ON_SHARE = 0.2
RUN_ON_MIN_WORDS = 4


def _at(problems: Problems, where: Where, sub_path: Sequence[str | int], code: str, message: str) -> None:
    """Report a problem at a place inside an item, named in words: "entry citow/x: see, item 2: …"."""
    path = [*where.path, *sub_path]
    place = describe(where.document.data, path).removeprefix("the file: ")
    problems.add(where.document.path, where.document.positions.of(path), code, f"{place}: {message}")


def ids_within(node: JSON) -> set[str]:
    """Every `id` of the mappings in a loaded document (or part of one)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("id"), str):
                found.add(node["id"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


SOUND_SHAPES: Answers[tuple[str, bytes], bool] = Answers(1 << 14)  # (kind, digest) of files whose shape passed without a problem


def shape_failures(doc: Document, problems: Problems) -> set[JSONPath]:
    """The JSON paths of a document's items whose shape failed (reported). A file of the same kind
    and bytes that passed before is not checked again: its shape depends on them alone, and under
    `serve` most files are the same from one rebuild to the next."""
    key = (doc.kind, doc.digest)
    if key in SOUND_SHAPES:
        return set()
    before = len(problems)
    failed = check_shape(doc.kind, doc.data, doc.path, doc.positions, problems) | swallowed_keys(doc.data, doc.path, doc.positions, problems)
    if not failed and len(problems) == before:
        SOUND_SHAPES.keep(key, True)
    return failed


ITEM_LISTS = ("entries", "terms", "sources", "noise")  # lists whose items are skipped one by one
ITEM_LISTS_ITSELF = {(name,) for name in ITEM_LISTS}


class KnowledgeBaseBuilder:
    """Fills a KnowledgeBase from loaded documents whose shape was checked, file kind by file kind."""

    def __init__(self, loaded: LoadedData, problems: Problems) -> None:
        self.loaded, self.problems = loaded, problems
        self.kb = KnowledgeBase()
        self.failed = {doc.path: shape_failures(doc, problems) for doc in loaded.documents}

    def ok(self, doc: Document, path: Sequence[str | int]) -> bool:
        """Whether the item at `path` passed the shape check: nothing at, above or below it failed."""
        return not is_inside_failed(tuple(path), self.failed[doc.path])

    def list_ok(self, doc: Document, path: Sequence[str | int]) -> bool:
        """Whether the list at `path` itself passed (its items are checked one by one)."""
        return not any(tuple(path)[: len(failed)] == failed for failed in self.failed[doc.path])

    def unchecked(self, ids: set[str], blame: str) -> None:
        for item_id in ids:
            self.kb.unchecked_ids.setdefault(item_id, blame)

    def build(self) -> KnowledgeBase:
        self.add_unloaded()
        self.add_sources()
        self.add_games()
        self.add_game_files()
        for doc in self.loaded.documents:  # items skipped for a shape problem: a list's item, or the whole file
            for path in self.failed[doc.path]:
                self.mark_skipped(doc, path)
        sound = {id(doc) for doc in self.loaded.documents if doc.kind in ("language", "ui", "synonyms") and self.ok(doc, [doc.kind])}
        validate_languages.check(self.loaded, self.kb, self.problems, sound)  # E062-E063, E065-E068: data/languages/
        return self.kb

    def add_game_files(self) -> None:
        """Chapters, glossaries, player aids and noise, each into its game (set up by add_games first)."""
        seen_orders: dict[tuple[str | None, int | None], str] = {}
        missing_game: dict[str, str] = {}  # game folder without game.yaml -> its first file
        for doc in self.loaded.documents:
            if doc.kind in ("manifest", "game", "language", "ui", "synonyms", "checks", "calculators"):
                continue  # sources and games first (above); languages and check catalogues after (below, and check())
            if doc.game not in self.kb.games:
                self.skip_without_game(doc, missing_game)
            elif doc.kind == "chapter":
                self.check_order(doc, seen_orders)
                self.add_chapter(doc)
            elif doc.kind == "glossary":
                self.add_items(doc, "terms", self.kb.terms)
            elif doc.kind == "cards" and self.ok(doc, ["aid"]):
                self.kb.aids[doc.game] = doc.data["aid"]
                self.kb.where[aid_place(doc.game)] = Where(doc, ["aid"])
            elif doc.kind == "noise":
                self.add_noise(doc)

    def mark_skipped(self, doc: Document, path: JSONPath) -> None:
        """What was skipped for the shape problem at `path` (a list's item, or the whole file): its
        ids are not checked as references, nor, where which ids it held is unknown, its game's."""
        skipped = path[:2] if len(path) >= 2 and path[0] in ITEM_LISTS else ()
        ids = ids_within(part_at(doc.data, skipped))
        self.unchecked(ids, doc.path)
        # a file of no recognisable shape, or an item that lost its id (which, is unknown): anything of its game
        # ... or a list of items that is no list (`entries:` left empty): which ids it held is unknown
        if doc.game and ((not ids and not skipped) or path in ITEM_LISTS_ITSELF or _lost_its_id(doc.data, skipped or path[:1])):
            self.kb.unchecked_games.setdefault(doc.game, doc.path)
        if doc.kind == "noise" and doc.game:
            self.unread_noise(doc, part_at(doc.data, skipped) if skipped else None)

    def unread_noise(self, doc: Document, item: JSON) -> None:
        """A noise range skipped for its problem: the lines it names, if it still names them, else any of its game's."""
        try:
            lines = range_lines(item.get("lines", "")) if isinstance(item, dict) and isinstance(item.get("source"), str) else []
        except (TypeError, ValueError):
            lines = []
        for n in lines:
            self.kb.unread_noise_lines.setdefault((item["source"], n), doc.path)
        if not lines:
            self.kb.unread_noise.setdefault(str(doc.game), doc.path)

    def add_unloaded(self) -> None:
        for unloaded in self.loaded.unloaded:
            if unloaded.kind == "source":
                continue  # see add_source
            if unloaded.kind == "manifest" and unloaded.ids is None:
                self.kb.all_sources_unchecked = self.kb.all_sources_unchecked or unloaded.path
            elif unloaded.kind == "manifest":
                self.kb.unchecked_sources.update(dict.fromkeys(unloaded.ids or (), unloaded.path))
            else:
                if unloaded.game:  # which ids it defines is a guess (a lost `- id:` line defines none): any of its game's
                    self.kb.unchecked_games.setdefault(unloaded.game, unloaded.path)
                if unloaded.game and unloaded.kind == "noise":
                    self.kb.unread_noise.setdefault(unloaded.game, unloaded.path)
                self.unchecked(unloaded.ids or set(), unloaded.path)

    def add_sources(self) -> None:
        """The sources of the manifest's list, each with its text; E006 for a source text the list
        does not name."""
        manifest_path = self.loaded.shown("sources", "manifest.yaml")
        manifests = [d for d in self.loaded.documents if d.kind == "manifest"]
        if not manifests and not any(u.kind == "manifest" for u in self.loaded.unloaded) and self.loaded.documents:
            self.problems.add(manifest_path, (1, 1), "E008", "the source manifest is missing")
        lists = [doc for doc in manifests if self.list_ok(doc, ["sources"])]  # manifests whose `sources` is a list
        if not lists:
            self.kb.all_sources_unchecked = manifest_path  # no list of sources to check against
            return
        unlisted = sorted(set(self.loaded.source_texts) - _listed_files(lists))
        for doc in lists:
            for i, item in enumerate(doc.data["sources"]):
                where = Where(doc, ["sources", i])
                if self.ok(doc, where.path):
                    self.add_source(item, where, unlisted)
                elif isinstance(item, dict) and isinstance(item.get("id"), str):
                    self.kb.unchecked_sources.setdefault(item["id"], doc.path)
        for name in unlisted:
            self.problems.add(self.loaded.shown("sources", name), (1, 1), "E006", "source text not listed in manifest.yaml")

    def add_source(self, item: Mapping[str, Any], where: Where, unlisted: list[str]) -> None:
        raw = self.loaded.source_texts.get(item["file"])
        unreadable = [u.path for u in self.loaded.unloaded if u.kind == "source" and Path(u.path).name == item["file"]]
        if unreadable:
            self.kb.unchecked_sources.setdefault(item["id"], unreadable[0])
            return
        if raw is None:
            guess = difflib.get_close_matches(item["file"], unlisted, n=1)
            if guess:
                unlisted.remove(guess[0])  # the same slip: not reported again as an unlisted file
            _at(
                self.problems,
                where,
                ["file"],
                "E036",
                f"source file data/sources/{item['file']} is missing" + (f" (did you mean {guess[0]}?)" if guess else ""),
            )
            self.kb.unchecked_sources.setdefault(item["id"], where.document.path)
            return
        sha256 = hashlib.sha256(raw).hexdigest()
        if sha256 != item["sha256"]:
            _at(self.problems, where, ["sha256"], "E035", f"{item['file']} does not match its sha256")
        if item["id"] in self.kb.sources:
            _at(self.problems, where, ["id"], "E020", f"source id '{item['id']}' is listed twice")
            return
        text = raw.decode("utf-8", errors="replace")
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        self.kb.sources[item["id"]] = Source(
            item["id"],
            item["file"],
            item["game"],
            item["language"],
            item["kind"],
            str(item["title"]),
            item["precedence"],
            _per_language(item["precedence_reason"]),
            lines,
            sha256,
        )

    def add_games(self) -> None:
        for doc in (d for d in self.loaded.documents if d.kind == "game"):
            if not self.ok(doc, ["game"]):
                continue
            game = doc.data["game"]
            if game["id"] != doc.game:
                _at(self.problems, Where(doc, ["game"]), ["id"], "E034", f"game id '{game['id']}' is in folder '{doc.game}'")
                continue
            self.kb.games[game["id"]] = game
            self.kb.where[game["id"]] = Where(doc, ["game"])

    def skip_without_game(self, doc: Document, missing_game: dict[str, str]) -> None:
        """A file of a game that is not set up: said once per game folder; its ids are not checked."""
        game_file = self.loaded.shown("games", str(doc.game), "game.yaml")
        broken = any(u.path == game_file for u in self.loaded.unloaded) or any(d.path == game_file for d in self.loaded.documents if d.kind == "game")
        blame = game_file if broken else missing_game.setdefault(str(doc.game), doc.path)
        if not broken and blame == doc.path:
            self.problems.add(doc.path, (1, 1), "E037", f"no game.yaml for game folder '{doc.game}'")
        self.unchecked(ids_within(doc.data), blame)

    def check_order(self, doc: Document, seen_orders: dict[tuple[str | None, int | None], str]) -> None:
        if (doc.game, doc.order) in seen_orders:
            self.problems.add(doc.path, (1, 1), "E038", f"order {doc.order:02d} is also used by {seen_orders[(doc.game, doc.order)]}")
        seen_orders[(doc.game, doc.order)] = doc.path

    def claim_id(self, item_id: str, game: str, where: Where) -> bool:
        """Register an item's id; False (with the problem reported) if it is another game's or taken."""
        if item_id.split("/", 1)[0] != game:
            _at(self.problems, where, ["id"], "E034", f"'{item_id}' does not start with '{game}/'")
            self.unchecked({f"{game}/{item_id.split('/', 1)[-1]}"}, where.document.path)  # the id it was meant to have
            return False
        if item_id in self.kb.where:
            first = self.kb.where[item_id]
            line, _ = first.document.positions.of(first.path)
            _at(self.problems, where, ["id"], "E020", f"'{item_id}' is already used at {first.document.path}:{line}")
            return False
        self.kb.where[item_id] = where
        return True

    def add_chapter(self, doc: Document) -> None:
        if not self.ok(doc, ["chapter"]) or not self.list_ok(doc, ["entries"]):
            return  # reported; its ids are marked unchecked in build()
        game = str(doc.game)
        where = Where(doc, ["chapter"])
        chapter_data = doc.data["chapter"]
        if not self.claim_id(chapter_data["id"], game, where):
            self.unchecked(ids_within(doc.data["entries"]), doc.path)
            return
        if not doc.data["entries"]:
            # one slip, one problem: which ids the emptied list held is unknown, so references into the game are not checked
            self.problems.add(doc.path, doc.positions.of(["entries"]), "E086", f"chapter '{chapter_data['id']}' has no entries")
            self.kb.unchecked_games.setdefault(game, doc.path)
        chapter = Chapter(chapter_data["id"], game, doc.order or 0, chapter_data)
        self.kb.chapters[chapter.id] = chapter
        for entry_id in self.add_items(doc, "entries", self.kb.entries):
            self.kb.entry_chapter[entry_id] = chapter.id
            chapter.entry_ids.append(entry_id)

    def add_items(self, doc: Document, key: str, into: dict[str, Any]) -> list[str]:
        """The items of a list with ids (entries, terms) that passed the shape check; their ids."""
        added = []
        for i, item in enumerate(doc.data[key] or [] if self.list_ok(doc, [key]) else []):
            where = Where(doc, [key, i])
            if self.ok(doc, where.path) and self.claim_id(item["id"], str(doc.game), where):
                into[item["id"]] = item
                added.append(item["id"])
        return added

    def add_noise(self, doc: Document) -> None:
        for i, item in enumerate(doc.data["noise"] or [] if self.list_ok(doc, ["noise"]) else []):
            where = Where(doc, ["noise", i])
            if self.ok(doc, where.path):
                self.kb.noise.append(
                    Noise(str(doc.game), item["source"], item["lines"], item["class"], item["note"], item.get("duplicate_of"), where)
                )


def _listed_files(manifests: list[Document]) -> set[str]:
    """The source text files the manifests' lists name (items of any shape: a file is listed even
    if its item has a problem)."""
    return {item["file"] for doc in manifests for item in doc.data["sources"] if isinstance(item, dict) and isinstance(item.get("file"), str)}


def _lost_its_id(document: JSON, item: JSONPath) -> bool:
    """Whether the item at `item` (a chapter, an entry or a glossary term) is there without its `id`."""
    node = part_at(document, item)
    return item[:1] in (("chapter",), ("entries",), ("terms",)) and isinstance(node, dict) and not isinstance(node.get("id"), str)


def build_knowledge_base(loaded: LoadedData, problems: Problems) -> KnowledgeBase:
    return KnowledgeBaseBuilder(loaded, problems).build()


class MeaningChecks:
    """The named semantic checks. Each method looks at one aspect and reports problems."""

    def __init__(self, kb: KnowledgeBase, problems: Problems):
        self.kb = kb
        self.problems = problems
        self.known_ids = set(kb.entries) | set(kb.chapters) | set(kb.terms)
        self.known_checks = known_checks(kb)
        self.mismatched: set[tuple[str, str]] = set()  # (entry id, language) reported by E033
        self.noise_lines: dict[str, set[int]] = {}  # filled by check_noise, used by check_text_matches
        self.not_checked: Counter[str] = Counter()  # file of a root problem -> references not checked for it
        self.texts_not_compared: Counter[str] = Counter()  # noise file of a root problem -> texts not compared with their lines
        self.context: object | None = None  # see entries_context

    def run(self) -> None:
        for item in self.kb.noise:
            self.check_noise(item)
        self.context = self.entries_context()  # after check_noise: noise_lines
        for game_id, game in self.kb.games.items():
            where = self.kb.where[game_id]
            for i, source_id in enumerate(game["sources"]):
                self.check_source_ref(source_id, game_id, None, where, ["sources", i])
            for i, ref in enumerate(game.get("at_a_glance", [])):
                self.check_reference(ref, where, ["at_a_glance", i])
        for chapter in self.kb.chapters.values():
            where = self.kb.where[chapter.id]
            self.check_languages(chapter.data, chapter.game, where, fields=("title",))
            self.check_origin(chapter.data, chapter.game, where, text_check=False)
            self.check_numbers(chapter.data["title"], _translations_only(chapter.data.get("origin", {})), where, ["title"])
        for entry_id, entry in self.kb.entries.items():
            self.check_entry(entry_id, entry)
        for term_id, term in self.kb.terms.items():
            where = self.kb.where[term_id]
            self.require_languages(term["names"], self.kb.game_of(term_id), where, ["names"])
            if "gloss" in term:
                self.require_languages(term["gloss"], self.kb.game_of(term_id), where, ["gloss"])
                self.check_numbers(term["gloss"], dict.fromkeys(term["gloss"], {}), where, ["gloss"])  # one sentence per language: the same numbers
            if "definition" in term:
                self.check_reference(term["definition"], where, ["definition"])
        for game_id, aid in self.kb.aids.items():
            self.check_aid(game_id, aid, self.kb.where[aid_place(game_id)])
        for path in sorted(set(self.not_checked) | set(self.texts_not_compared)):
            notes = [f"{self.not_checked[path]} reference(s) to what it defines were not checked"] if self.not_checked[path] else []
            if self.texts_not_compared[path]:
                notes.append(f"{self.texts_not_compared[path]} text(s) were not compared with their source lines, as it may name some of them noise")
            self.problems.add_note(path, "; ".join(notes))

    def check_aid(self, game_id: str, aid: Aid, where: Where) -> None:
        """Every id an aid names exists (E021); the tables and columns it picks exist (E064)."""
        for i, section in enumerate(aid["sections"]):
            self.require_languages(section["title"], game_id, where, ["sections", i, "title"])
            for j, ref in enumerate(section["entries"]):
                self.check_reference(ref, where, ["sections", i, "entries", j])
            for j, faction in enumerate(section.get("factions", [])):
                path: list[str | int] = ["sections", i, "factions", j]
                self.require_languages(faction["name"], game_id, where, path + ["name"])
                for k, ref in enumerate(faction.get("entries", [])):
                    self.check_reference(ref, where, path + ["entries", k])
                if "rows" in faction:
                    rows = faction["rows"]
                    table = self.aid_table(rows["table"], where, path + ["rows", "table"])
                    if table is not None and self.check_columns(table, list(rows["where"]), rows["table"], where, path + ["rows", "where"]):
                        if not any(all(_english(row.get(k)) == v for k, v in rows["where"].items()) for row in table["rows"]):
                            _at(self.problems, where, path + ["rows", "where"], "E064", f"no row of '{rows['table']}' has {rows['where']}")
        for ref, columns in aid.get("hide_columns", {}).items():
            table = self.aid_table(ref, where, ["hide_columns", ref])
            if table is not None:
                self.check_columns(table, columns, ref, where, ["hide_columns", ref])
        self.check_checklist(game_id, aid, where)
        self.check_colours(aid, where)

    def check_colours(self, aid: Aid, where: Where) -> None:
        """Colours read apart (E072): each section's from each earlier section's and from the aids' fixed
        colours; then each faction's (its band on the sheet and its card) from those, every section's
        and each earlier faction's."""
        seen: list[tuple[str, str]] = [(name, colour) for name, colour in colours.FIXED.items()]
        coloured: list[tuple[list[str | int], str, PerLanguage, JSON]] = [
            (["sections", i], "section", section["title"], section.get("colour")) for i, section in enumerate(aid["sections"])
        ]
        coloured += [
            (["sections", i, "factions", j], "faction", faction["name"], faction.get("colour"))
            for i, section in enumerate(aid["sections"])
            for j, faction in enumerate(section.get("factions", []))
        ]
        for path, kind, names, colour in coloured:
            if not isinstance(colour, str) or not re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
                continue  # the schema reports it
            name = f"{kind} '{names.get('en') or next(iter(names.values()), '')}'"
            for other_name, other in seen:
                if colours.distance(colour, other) < colours.MIN_DISTANCE:
                    _at(
                        self.problems,
                        where,
                        [*path, "colour"],
                        "E072",
                        f"{name}: {colour} is too like {other_name} {other} "
                        f"(ΔE {colours.distance(colour, other):.0f}, at least {colours.MIN_DISTANCE:.0f})",
                    )
                    break
            seen.append((name, colour))

    def check_checklist(self, game_id: str, aid: Aid, where: Where) -> None:
        """A play checklist names entries of this game (E071), and the aid prints every one of them (E070)."""
        printed = aid_entries(aid)
        entries = sorted(entry["id"] for entry in self.kb.entries_of(game_id))
        for topic, refs in aid.get("checklist", {}).items():
            for i, ref in enumerate(refs):
                path: list[str | int] = ["checklist", topic, i]
                if ref not in entries:
                    if not self.blamed(ref):
                        hint = difflib.get_close_matches(ref, entries, n=1)
                        _at(
                            self.problems,
                            where,
                            path,
                            "E071",
                            f"'{ref}' is no entry of {game_id}" + (f" (did you mean '{hint[0]}'?)" if hint else ""),
                        )
                elif ref not in printed:
                    printed.add(ref)  # one problem per entry, where the checklist first needs it
                    _at(self.problems, where, path, "E070", f"'{ref}' is needed for {topic}, but no section of the aid prints it")

    def aid_table(self, ref: str, where: Where, path: Sequence[str | int]) -> dict[str, Any] | None:
        """The table of the entry `ref` that an aid picks from, or None with the problem reported."""
        if ref not in self.kb.entries:
            self.check_reference(ref, where, path)
            return None
        if "table" not in self.kb.entries[ref]:
            _at(self.problems, where, path, "E064", f"'{ref}' has no table")
            return None
        return dict(self.kb.entries[ref]["table"])

    def check_columns(self, table: dict[str, Any], keys: list[str], ref: str, where: Where, path: Sequence[str | int]) -> bool:
        have = [c["key"] for c in table["columns"]]
        for key in keys:
            if key not in have:
                _at(self.problems, where, path, "E064", f"'{ref}' has no column '{key}' (its columns: {', '.join(have)})")
        return all(key in have for key in keys)

    def check_noise(self, item: Noise) -> None:
        source = self.check_source_ref(item.source, item.game, None, item.where, ["source"], lines=item.lines)
        if source is None:
            return
        self.noise_lines.setdefault(source.id, set()).update(range_lines(item.lines))
        if item.duplicate_of is not None:
            self.check_lines(source, item.duplicate_of, item.where, ["duplicate_of"])

    # -- entries -------------------------------------------------------------------------
    def entries_context(self) -> object | None:
        """A token for everything `check_entry` reads besides the entry: the sources (their texts' digests), the
        lines named noise, the ids a reference may name, each game's required languages, the known checks and the
        languages. None when anything is unread or unchecked: then a check has effects beyond its own problems
        (notes counted on another file's problem), and nothing is kept."""
        kb = self.kb
        if kb.unchecked_ids or kb.unchecked_sources or kb.all_sources_unchecked or kb.unchecked_games or kb.unchecked_checks:
            return None
        if kb.unread_noise or kb.unread_noise_lines:
            return None
        return _ENTRY_CONTEXTS.of(
            (
                tuple(sorted((s.id, s.file, s.game, s.language, s.sha256) for s in kb.sources.values())),
                tuple(sorted((source_id, frozenset(lines)) for source_id, lines in self.noise_lines.items())),
                frozenset(self.known_ids),
                tuple(sorted((game_id, tuple(game["required_languages"])) for game_id, game in kb.games.items())),
                frozenset(self.known_checks),
                tuple(kb.languages.codes),
            ),
            object,
        )

    def check_entry(self, entry_id: str, entry: Entry) -> None:
        """The entry's checks; not again for an entry that passed them with nothing else noted, while it and
        what else they read (`entries_context`) are the same: under `serve`, most entries are."""
        where = self.kb.where[entry_id]
        kept = (where.content_key(), self.context) if self.context is not None else None
        if kept is not None and kept in _SOUND_ENTRIES:
            return
        before = (len(self.problems), len(self.mismatched), sum(self.not_checked.values()), sum(self.texts_not_compared.values()))
        self.run_entry_checks(entry_id, entry, where)
        after = (len(self.problems), len(self.mismatched), sum(self.not_checked.values()), sum(self.texts_not_compared.values()))
        if kept is not None and after == before:
            _SOUND_ENTRIES.keep(kept, True)

    def run_entry_checks(self, entry_id: str, entry: Entry, where: Where) -> None:
        game = self.kb.game_of(entry_id)
        run_on = self.text_run_on(entry_id, entry, where)
        if run_on is None:
            self.check_languages(entry, game, where, fields=("title", "text"))
        else:
            self.mismatched.add((entry_id, run_on))  # its words differ from the source: said by the E007
        self.check_origin(entry, game, where, text_check=entry["kind"] != "clarification" and run_on is None)
        for i, ref in enumerate(entry.get("see", [])):
            self.check_reference(ref, where, ["see", i])
        for field_name, refs in (("terms", entry.get("terms", [])), ("not_terms", entry.get("not_terms", []))):
            for i, ref in enumerate(refs):
                self.check_reference(ref, where, [field_name, i])
        for lang, text in entry["text"].items():
            for match in textmatch.LINK.finditer(text):
                self.check_reference(match.group(1).strip(), where, ["text", lang])
        if "numbers_differ" not in entry and run_on is None:
            self.check_numbers(entry["text"], entry["origin"], where, ["text"])
            self.check_translated_numbers(entry, where)
        if "summary" in entry:
            self.check_summary(entry, game, where)
        if check_name := entry.get("example", {}).get("check"):
            self.check_example_check(entry["example"], check_name, where)
        self.check_corrections(entry, where)
        if "clarification" in entry:
            self.check_clarification(entry["clarification"], game, where)
        differ: dict[str, Any] = entry.get("numbers_differ", {})
        if "clarification" in differ:
            self.check_reference(differ["clarification"], where, ["numbers_differ", "clarification"])

    def check_example_check(self, example: Mapping[str, Any], check_name: str, where: Where) -> None:
        """E039: a worked example's `check:` names a check of a catalogue (unless its catalogue is unread)."""
        check = CheckId.parse(check_name)
        if check in self.known_checks:
            self.check_example_inputs(example, check, where)
        elif unread_catalogue := self.kb.unchecked_checks.get(check.game):  # its checks.yaml has a problem: its checks are not known
            self.not_checked[unread_catalogue] += 1
        else:
            hint = difflib.get_close_matches(check_name, sorted(map(str, self.known_checks)), n=1)
            _at(
                self.problems,
                where,
                ["example", "check"],
                "E039",
                f"unknown rules-check '{check_name}'" + (f" (did you mean '{hint[0]}'?)" if hint else ""),
            )

    def check_example_inputs(self, example: Mapping[str, Any], check: CheckId, where: Where) -> None:
        """E043: a worked example's inputs fit its check's input schema, as the calculator's "Fill in the
        example" and the command line will be given them (an oversized list would freeze the page)."""
        misfit = inputs_misfit(check, example["inputs"])
        if misfit is not None:
            _at(self.problems, where, ["example", "inputs"], "E043", f"the inputs do not fit {example['check']}'s input schema: {misfit}")

    def text_run_on(self, entry_id: str, entry: Entry, where: Where) -> str | None:
        """A text that runs on into the next language's, whose `en: |` line was lost: the next
        language is missing from the text (the title or origin has it), and the text's lines from one
        on are not its own while those before it are: their words are not in its cited source lines,
        or (a translated text) they are in the missing language's script. One E007 at that line says
        so (the missing language, the numbers and the words that differ from the source all follow
        from it); returns the language whose text ran on, else None."""
        missing = sorted((set(entry["title"]) | set(entry["origin"])) - set(entry["text"]))
        if not missing:
            return None
        for lang, text in entry["text"].items():
            lines = text.split("\n")
            for own_words, what in self._own_words(entry, lang, missing):
                found_by_line = [[own_words(word) for word in textmatch.words(line)] for line in lines]
                k = _change_point(found_by_line)
                head, tail = sum(found_by_line[:k], []), sum(found_by_line[k:], [])
                if head and len(tail) >= RUN_ON_MIN_WORDS and sum(head) >= MIN_TEXT_IN_SOURCE * len(head) and sum(tail) < RUN_ON_SHARE * len(tail):
                    named = f"'{missing[0]}: |'" if len(missing) == 1 else f"the line of one of {', '.join(missing)}"
                    at = where.document.positions.of_text_line([*where.path, "text"], lang, text, sum(len(line) + 1 for line in lines[:k]))
                    self.problems.add(
                        where.document.path,
                        at,
                        "E007",
                        f"{describe(where.document.data, tuple(where.path))}: text: the {lang} text runs on here into "
                        f"{what}: {named} above this line seems lost; write it at the level of '{lang}:'",
                    )
                    return lang
        return None

    def _own_words(self, entry: Entry, lang: str, missing: list[str]) -> Iterator[tuple[Callable[[str], bool], str]]:
        """Tests of whether a word of the `lang` text is its own, with what the others are: found in its
        cited source lines; written in its title's script where a missing language's title has another."""
        origin = entry["origin"].get(lang, {})
        source = self.kb.sources.get(origin.get("source", ""))
        if source is not None and source.language == lang and not _lines_problem(source, origin["lines"]):
            cited = set(textmatch.words(self.cited_text(source, origin["lines"], skip_noise=True)))
            yield cited.__contains__, f"text that is not in {source.id} lines {origin['lines']}"
        own = _script(entry["title"].get(lang, ""))
        others = {_script(entry["title"][other]) for other in missing if other in entry["title"]} - {own, None}
        if own is not None and others:
            yield (lambda word: _script(word) == own), f"text in another script ({lang} is written in {own})"

    def check_clarification(self, clarification: dict[str, Any], game: str, where: Where) -> None:
        for i, statement in enumerate(clarification["statements"]):
            path: list[str | int] = ["clarification", "statements", i]
            source = self.check_source_ref(statement["source"], game, None, where, path + ["source"], lines=statement["lines"])
            if source:
                cited = textmatch.normalise(self.cited_text(source, statement["lines"]))
                if textmatch.normalise(statement["quote"]) not in cited:
                    _at(self.problems, where, path + ["quote"], "E031", f"quote not found in {source.id} lines {statement['lines']}")
        for i, ref in enumerate(clarification.get("affects", [])):
            self.check_reference(ref, where, ["clarification", "affects", i])
        if "ruling" in clarification:
            self.require_languages(clarification["ruling"], game, where, ["clarification", "ruling"])
            self.check_numbers(clarification["ruling"], dict.fromkeys(clarification["ruling"], {}), where, ["clarification", "ruling"])

    def check_languages(self, item: Mapping[str, Any], game: str, where: Where, fields: tuple[str, ...]) -> None:
        """One E024 for the required languages an item lacks anywhere, one E025 for languages some
        of its fields have and others lack: an item's missing languages are reported together."""
        have = {field: set(item[field]) for field in (*fields, "origin") if field in item}
        required = set(self.kb.games[game]["required_languages"] if game in self.kb.games else [])
        lacking = {field: sorted(required - langs) for field, langs in have.items() if required - langs}
        if lacking:
            if len({tuple(langs) for langs in lacking.values()}) == 1:
                detail = f"{', '.join(next(iter(lacking.values())))} (in {_and(list(lacking))})"
            else:
                detail = "; ".join(f"{', '.join(langs)} in {field}" for field, langs in lacking.items())
            _at(self.problems, where, [], "E024", f"lacks required language(s): {detail}")
        every = set().union(*have.values()) - required
        gaps = []
        for lang in sorted(every):
            with_it = [field for field, langs in have.items() if lang in langs]
            without = [field for field, langs in have.items() if lang not in langs]
            if without:
                gaps.append(f"{lang} is in {_and(with_it)} but not in {_and(without)}")
        if gaps:
            _at(self.problems, where, [], "E025", "; ".join(gaps))

    def require_languages(self, mapping: Mapping[str, Any], game: str, where: Where, path: Sequence[str | int]) -> None:
        required = self.kb.games[game]["required_languages"] if game in self.kb.games else []
        missing = [lang for lang in required if lang not in mapping]
        if missing:
            _at(self.problems, where, path, "E024", f"lacks required language(s): {', '.join(missing)}")

    def check_origin(self, item: Mapping[str, Any], game: str, where: Where, text_check: bool) -> None:
        origin = item.get("origin", {})
        # a version the title or text has and the origin lacks: check_languages says so; what is translated from it is not wrong
        unstated = {lang for field in ("title", "text") for lang in item.get(field, {}) if lang not in origin}
        if origin and all("translated_from" in o for o in origin.values()) and not unstated:
            _at(self.problems, where, ["origin"], "E026", "every version is marked as translated: which one is the original?")
        for lang, one in origin.items():
            path = ["origin", lang]
            if "translated_from" in one:
                source_lang = one["translated_from"]
                if source_lang == lang or (source_lang not in origin and source_lang not in unstated):
                    _at(
                        self.problems,
                        where,
                        path + ["translated_from"],
                        "E026",
                        f"{lang} is translated from '{source_lang}', which this item does not have",
                    )
            elif "source" in one:
                source = self.check_source_ref(one["source"], game, lang, where, path + ["source"], lines=one["lines"])
                if not (source and text_check and lang in item.get("text", {})):
                    continue
                noise_blame = self.unread_noise_in(game, source.id, one["lines"])
                if noise_blame:
                    self.texts_not_compared[noise_blame] += 1  # which of its lines are noise is not known
                    self.mismatched.add((item["id"], lang))  # nor checked word for word (E050)
                else:
                    self.check_text_matches(item, lang, source, one["lines"], where, path + ["lines"])

    def unread_noise_in(self, game: str, source_id: str, spec: str) -> str | None:
        """The noise file with a problem that may have named some of these lines noise, if any."""
        if game in self.kb.unread_noise or not self.kb.unread_noise_lines:
            return self.kb.unread_noise.get(game)
        return next((self.kb.unread_noise_lines[(source_id, n)] for n in range_lines(spec) if (source_id, n) in self.kb.unread_noise_lines), None)

    def check_source_ref(
        self, source_id: str, game: str, lang: str | None, where: Where, path: list[str | int], lines: str | None = None
    ) -> Source | None:
        """The source, if it exists, belongs to the game, is in `lang` and holds `lines`; else None
        with the problem reported (or, for a source whose manifest entry is broken, counted)."""
        source = self.kb.sources.get(source_id)
        blame = self.kb.unchecked_sources.get(source_id, self.kb.all_sources_unchecked)
        if source is None and blame:
            self.not_checked[blame] += 1
            return None
        if source is None:
            hint = difflib.get_close_matches(source_id, list(self.kb.sources), n=1)
            _at(self.problems, where, path, "E022", f"unknown source '{source_id}'" + (f" (did you mean '{hint[0]}'?)" if hint else ""))
            return None
        if source.game != game:
            _at(self.problems, where, path, "E028", f"source '{source_id}' is a source of '{source.game}', not '{game}'")
            return None
        if lang and source.language != lang:
            _at(self.problems, where, path, "E027", f"the {lang} version cites '{source_id}', which is in {source.language}")
            return None
        if lines is not None and not self.check_lines(source, lines, where, path[:-1] + ["lines"]):
            return None
        return source

    def check_lines(self, source: Source, spec: str, where: Where, path: Sequence[str | int]) -> bool:
        problem = _lines_problem(source, spec)
        if problem:
            _at(self.problems, where, path, "E023", problem)
        return problem is None

    def cited_text(self, source: Source, spec: str, skip_noise: bool = False) -> str:
        noise = self.noise_lines.get(source.id, set()) if skip_noise else set()
        return "\n".join(source.lines[n - 1] for n in range_lines(spec) if n not in noise)

    def check_text_matches(self, item: Mapping[str, Any], lang: str, source: Source, spec: str, where: Where, path: Sequence[str | int]) -> None:
        corrections = " ".join(c["from"] for c in item.get("corrections", []) if c["lang"] == lang)
        text_in_source, source_in_text = textmatch.shares_found(
            self.cited_text(source, spec, skip_noise=True), item["title"].get(lang, ""), item["text"][lang], corrections
        )
        shortfalls = []
        if text_in_source < MIN_TEXT_IN_SOURCE:
            shortfalls.append(f"only {text_in_source:.0%} of the {lang} text's words are in {source.id} lines {spec}")
        if source_in_text < MIN_SOURCE_IN_TEXT:
            shortfalls.append(f"only {source_in_text:.0%} of the words of {source.id} lines {spec} are in the {lang} title and text")
        if shortfalls:
            self.mismatched.add((item["id"], lang))
            _at(self.problems, where, path, "E033", "; ".join(shortfalls))

    def check_reference(self, ref: str, where: Where, path: Sequence[str | int]) -> None:
        if ref in self.known_ids or self.blamed(ref):
            return
        hint = difflib.get_close_matches(ref, sorted(self.known_ids), n=1)
        _at(self.problems, where, path, "E021", f"unknown reference '{ref}'" + (f" (did you mean '{hint[0]}'?)" if hint else ""))

    def blamed(self, ref: str) -> bool:
        """Whether `ref` may be defined in a file that could not be read; that file's note counts it as not checked."""
        blame = self.kb.unchecked_ids.get(ref) or self.kb.unchecked_games.get(self.kb.game_of(ref))
        if blame:
            self.not_checked[blame] += 1
        return bool(blame)

    def check_summary(self, entry: Entry, game: str, where: Where) -> None:
        """An aid summary is text players read: it gets the text's checks (languages, origin,
        numbers across languages, references), and it states no number its entry's text lacks (E053)."""
        summary = entry["summary"]
        at = Where(where.document, [*where.path, "summary"])
        self.check_languages(summary, game, at, fields=("text",))
        self.check_origin(summary, game, at, text_check=False)
        if "numbers_differ" not in entry:
            self.check_numbers(summary["text"], summary["origin"], at, ["text"])
        for lang, text in summary["text"].items():
            for match in textmatch.LINK.finditer(text):
                self.check_reference(match.group(1).strip(), at, ["text", lang])
            said = set(textmatch.numbers(entry["text"][lang] if lang in entry["text"] else ""))
            said |= {n for other in entry["text"].values() for n in textmatch.numbers(other)}
            said |= set(textmatch.numbers(" ".join(map(str, _values([entry.get("params", {}), entry.get("table", {}).get("rows", [])])))))
            extra = sorted(set(textmatch.numbers(LIST_NUMBER.sub("", text))) - said - WORDED, key=float)
            if extra:
                _at(
                    self.problems,
                    at,
                    ["text", lang],
                    "E053",
                    f"the {lang} summary states {', '.join(extra)}, which the entry's text, params and table do not",
                )

    def check_numbers(self, texts: Mapping[str, str], origins: Mapping[str, Any], where: Where, path: Sequence[str | int]) -> None:
        """A translation states the numbers of its original; two sources' versions agree."""
        by_lang = {lang: textmatch.numbers(text) for lang, text in texts.items()}
        originals = sorted(lang for lang, o in origins.items() if "translated_from" not in o)
        pairs = [(o["translated_from"], lang) for lang, o in origins.items() if "translated_from" in o]
        pairs += [(originals[0], other) for other in originals[1:]]
        for first, other in pairs:
            if first in by_lang and other in by_lang and by_lang[first] != by_lang[other]:
                a, b = Counter(by_lang[first]), Counter(by_lang[other])
                only_a = sorted((a - b).elements())
                only_b = sorted((b - a).elements())
                _at(
                    self.problems,
                    where,
                    [*path, other],
                    "E030",
                    f"numbers differ: {first} has {only_a or 'none'} that {other} lacks; {other} has {only_b or 'none'} that {first} lacks",
                )

    def check_translated_numbers(self, entry: Entry, where: Where) -> None:
        """E030 beyond the text: a translated title, table heading, cell or note, and a statement's
        rendering state the numbers of what they translate (two sources' own titles may differ)."""
        translations = _translations_only(entry["origin"])
        self.check_numbers(entry["title"], translations, where, ["title"])
        table = entry.get("table", {})
        for i, column in enumerate(table.get("columns", [])):
            if isinstance(column["title"], Mapping):
                self.check_numbers(column["title"], translations, where, ["table", "columns", i, "title"])
        for i, row in enumerate(table.get("rows", [])):
            for key, cell in row.items():
                if isinstance(cell, Mapping):
                    self.check_numbers(cell, translations, where, ["table", "rows", i, key])
        if isinstance(table.get("note"), Mapping):
            self.check_numbers(table["note"], translations, where, ["table", "note"])
        for i, statement in enumerate(entry.get("clarification", {}).get("statements", [])):
            renderings = {lang: text for lang, text in statement.items() if lang in self.kb.languages and isinstance(text, str)}
            self.check_numbers(
                {"quote": statement["quote"], **renderings},
                dict.fromkeys(renderings, {"translated_from": "quote"}),
                where,
                ["clarification", "statements", i],
            )

    def check_corrections(self, entry: Entry, where: Where) -> None:
        for i, correction in enumerate(entry.get("corrections", [])):
            origin = entry["origin"].get(correction["lang"], {})
            source = self.kb.sources.get(origin.get("source", ""))
            if source is None or _lines_problem(source, origin["lines"]):
                continue  # the origin's own problem is reported by check_origin
            cited = self.cited_text(source, origin["lines"])
            if correction["from"] not in cited and textmatch.normalise(correction["from"]) not in textmatch.normalise(cited):
                _at(self.problems, where, ["corrections", i, "from"], "E032", f"'{correction['from']}' is not in {source.id} lines {origin['lines']}")


CYRILLIC_LETTER = re.compile(r"[\u0400-\u04ff]")
LATIN_LETTER = re.compile(r"[a-zA-Z\u00c0-\u024f]")


def _script(text: str) -> str | None:
    """The script most of a text's letters are in (Cyrillic or Latin), or None without letters."""
    cyrillic, latin = len(CYRILLIC_LETTER.findall(text)), len(LATIN_LETTER.findall(text))
    return None if cyrillic == latin == 0 else "Cyrillic" if cyrillic > latin else "Latin"


def _change_point(found_by_line: list[list[bool]]) -> int:
    """The line at which a text best splits into words found in its source (above) and words not
    found (from there on): the fewest words on the wrong side; the first such line, blank lines skipped."""
    wrong = sum(found for line in found_by_line for found in line)  # split at 0: every found word is on the wrong side
    best, best_wrong = 0, wrong
    for k, line in enumerate(found_by_line[:-1]):
        wrong += sum(not found for found in line) - sum(line)
        if wrong < best_wrong and found_by_line[k + 1]:
            best, best_wrong = k + 1, wrong
    return best


def _english(cell: JSON) -> str | None:
    """A table cell's English value (cells are plain or per language), as a faction's `where` names it."""
    return cell.get("en") if isinstance(cell, dict) else cell


# An ordered list's item number at a line start ("1. Roll"): the summary's layout, not a rule's number.
LIST_NUMBER = re.compile(r"^\s*\d+[.)](?=\s)", re.MULTILINE)


# 0 and 1 a rule says in words and articles ("a hit", "no limit"), which a summary may write as digits.
WORDED = {"0", "1"}


def _values(node: JSON) -> list[JSON]:
    """Every scalar inside params or table rows (numbers a summary may restate)."""
    if isinstance(node, dict):
        return [v for item in node.values() for v in _values(item)]
    if isinstance(node, list):
        return [v for item in node for v in _values(item)]
    return [node]


def _lines_problem(source: Source, spec: str) -> str | None:
    """What is wrong with a line range of `source`, or None if every line is in it."""
    for first, last in parse_ranges(spec):
        if last < first:
            return f"range {first}-{last} runs backwards"
        if first < 1 or last > len(source.lines):
            return f"lines {first}-{last} are outside {source.file} (1-{len(source.lines)})"
    return None


def _translations_only(origins: Mapping[str, Any]) -> dict[str, Any]:
    """The origins of the translated languages only (with their originals): numbers are compared
    translation against original, not between two sources' own wordings."""
    translated = {lang: o for lang, o in origins.items() if isinstance(o, Mapping) and "translated_from" in o}
    return {**{o["translated_from"]: {} for o in translated.values()}, **translated}


def inputs_misfit(check: CheckId, inputs: JSON) -> str | None:
    """Where and how a worked example's inputs miss its check's input schema, or None (also without a schema: the
    catalogue's and the calculators' checks say so). Kept per check and inputs: `serve` asks again on every rebuild
    (jsonschema took 0.12 s of each at 10×)."""
    return _MISFITS.of((check, json.dumps(inputs, default=repr)), lambda: _misfit(check, inputs))  # inputs in their order: see _misfit


def _misfit(check: CheckId, inputs: JSON) -> str | None:
    """See `inputs_misfit`; which of several errors jsonschema reports first may depend on the inputs' order."""
    schema = (validate_calculators.check_schemas(check.game) or {}).get(f"{check.name}_input")
    error = best_match(rules_input.StrictValidator(schema).iter_errors(inputs)) if schema is not None else None
    if error is None:
        return None
    field = "/".join(map(str, error.absolute_path)) or "(inputs)"
    return _shortened(f"{field}: {explained(error)[1]}")


_MISFITS: Answers[tuple[CheckId, str], str | None] = Answers()
_ENTRY_CONTEXTS: Answers[tuple[object, ...], object] = Answers(1 << 4)  # what check_entry reads besides the entry -> its token
_SOUND_ENTRIES: Answers[tuple[object, ...], bool] = Answers()  # (the entry's content key, context token) of entries that passed


def _shortened(text: str, limit: int = 200) -> str:
    """A message quoting data, cut to a readable length (a refused value may be a megabyte long)."""
    return text if len(text) <= limit else text[:limit] + "…"


def _per_language(value: JSON) -> dict[str, str]:
    """A text given per language, or one English text, as a mapping."""
    return {lang: str(text) for lang, text in value.items()} if isinstance(value, Mapping) else {"en": str(value)}


def _and(words: list[str]) -> str:
    """["title", "text", "origin"] -> "title, text and origin"."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def aid_entries(aid: Aid) -> set[str]:
    """Every entry an aid prints: its sections' and their factions'."""
    printed = {ref for section in aid["sections"] for ref in section["entries"]}
    return printed | {ref for section in aid["sections"] for faction in section.get("factions", []) for ref in faction.get("entries", [])}


def validate(data_dir: Path) -> tuple[KnowledgeBase, Problems]:
    """Load and check everything; never raises for bad data."""
    problems = Problems()
    return check(load(data_dir, problems), problems), problems


def check(loaded: LoadedData, problems: Problems) -> KnowledgeBase:
    """The knowledge base of loaded files, every problem in its shape and meaning recorded."""
    kb = build_knowledge_base(loaded, problems)
    check_catalogues(loaded, kb, problems)  # before MeaningChecks: examples' `check:` are looked up in kb.checks
    check_calculators(loaded, kb, problems)  # E080-E083: calculators.yaml
    meaning = MeaningChecks(kb, problems)
    meaning.run()
    validate_text.check(kb, problems, meaning.mismatched)  # E050-E052: text against its sources, corrections, working notes
    validate_markup.check(kb, problems)  # E060-E061: links and images the renderer would refuse
    validate_terms.check(kb, lambda where, path, code, message: _at(problems, where, path, code, message))  # E054-E055
    return kb


def load_valid(data_dir: Path) -> KnowledgeBase:
    """For the later stages: the knowledge base, or DataError with every problem."""
    kb, problems = validate(data_dir)
    if problems:
        raise DataError(problems)
    return kb
