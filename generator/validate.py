"""Stage 2, validate: shape (JSON Schema) and meaning (named checks), all problems collected.

`build_knowledge_base` turns loaded documents into a KnowledgeBase, skipping only items
that already have a reported problem. `check_meaning` then runs the semantic checks.
"""
from __future__ import annotations

import difflib
import hashlib
from collections import Counter
from pathlib import Path

from . import textmatch, validate_languages, validate_markup, validate_text
from .linerange import parse_ranges, range_lines
from .load import LoadedData, load
from .model import Chapter, KnowledgeBase, Source, Where, plain
from .problems import DataError, Problems
from .schema import check_shape, is_inside_failed
from .validate_checks import check_catalogues, known_checks  # rules-check catalogues (checks.yaml)

# How much of an entry's words must be found in its cited lines, and how much of the
# cited lines' words must be carried by the entry (see E033). Inflection and repaired
# typos keep these below 1.
MIN_TEXT_IN_SOURCE = 0.6
MIN_SOURCE_IN_TEXT = 0.6


def _at(problems: Problems, where: Where, sub_path: list, code: str, message: str) -> None:
    path = where.path + sub_path
    problems.add(where.document.path, where.document.positions.of(path), code, message)


def build_knowledge_base(loaded: LoadedData, problems: Problems) -> KnowledgeBase:
    kb = KnowledgeBase()
    failed_by_doc = {id(doc): check_shape(doc.kind, doc.data, doc.path, doc.positions, problems) for doc in loaded.documents}

    def ok(doc, path) -> bool:
        return not is_inside_failed(tuple(path), failed_by_doc[id(doc)])

    manifests = [d for d in loaded.documents if d.kind == "manifest"]
    listed_files = set()
    for doc in manifests:
        for i, item in enumerate(doc.data.get("sources", []) if ok(doc, []) else []):
            where = Where(doc, ["sources", i])
            if not ok(doc, where.path):
                continue
            listed_files.add(item["file"])
            path = loaded.source_files.get(item["file"])
            if path is None:
                _at(problems, where, ["file"], "E036", f"source file data/sources/{item['file']} is missing")
                continue
            raw = path.read_bytes()
            if hashlib.sha256(raw).hexdigest() != item["sha256"]:
                _at(problems, where, ["sha256"], "E035", f"{item['file']} does not match its sha256")
            text = raw.decode("utf-8", errors="replace")
            lines = text.split("\n")
            if text.endswith("\n"):
                lines.pop()
            if item["id"] in kb.sources:
                _at(problems, where, ["id"], "E020", f"source id '{item['id']}' is listed twice")
                continue
            kb.sources[item["id"]] = Source(
                item["id"], item["file"], item["game"], item["language"], item["kind"], str(item["title"]),
                item["precedence"], str(item["precedence_reason"]), lines)
    for name in sorted(set(loaded.source_files) - listed_files):
        problems.add(f"{loaded.root.name}/sources/{name}", (1, 1), "E006", "source text not listed in manifest.yaml")

    def claim_id(item_id: str, where: Where) -> bool:
        if item_id in kb.where:
            first = kb.where[item_id]
            line, _ = first.document.positions.of(first.path)
            _at(problems, where, ["id"], "E020", f"id '{item_id}' is already used at {first.document.path}:{line}")
            return False
        kb.where[item_id] = where
        return True

    for doc in (d for d in loaded.documents if d.kind == "game"):
        if not ok(doc, ["game"]):
            continue
        game = plain(doc.data["game"])
        if game["id"] != doc.game:
            _at(problems, Where(doc, ["game"]), ["id"], "E034", f"game id '{game['id']}' is in folder '{doc.game}'")
            continue
        kb.games[game["id"]] = game
        kb.where[game["id"]] = Where(doc, ["game"])

    seen_orders: dict[tuple, str] = {}
    for doc in loaded.documents:
        if doc.kind in ("manifest", "game", "language", "ui"):
            continue
        if doc.game not in kb.games:
            problems.add(doc.path, (1, 1), "E037", f"no game.yaml for game folder '{doc.game}'")
            continue
        if doc.kind == "chapter":
            if (doc.game, doc.order) in seen_orders:
                problems.add(doc.path, (1, 1), "E038", f"order {doc.order:02d} is also used by {seen_orders[(doc.game, doc.order)]}")
            seen_orders[(doc.game, doc.order)] = doc.path
            if not ok(doc, ["chapter"]) or "entries" not in doc.data:
                continue
            chapter_data = plain(doc.data["chapter"])
            where = Where(doc, ["chapter"])
            if not _own_game(chapter_data["id"], doc.game, where, problems) or not claim_id(chapter_data["id"], where):
                continue
            chapter = Chapter(chapter_data["id"], doc.game, doc.order, chapter_data)
            kb.chapters[chapter.id] = chapter
            for i, raw_entry in enumerate(doc.data["entries"] or []):
                where = Where(doc, ["entries", i])
                if not ok(doc, where.path):
                    if isinstance(raw_entry, dict) and isinstance(raw_entry.get("id"), str):
                        kb.broken_ids.add(raw_entry["id"])  # reported already; don't report references to it
                    continue
                entry = plain(raw_entry)
                if _own_game(entry["id"], doc.game, where, problems) and claim_id(entry["id"], where):
                    kb.entries[entry["id"]] = entry
                    kb.entry_chapter[entry["id"]] = chapter.id
                    chapter.entry_ids.append(entry["id"])
        elif doc.kind == "glossary":
            for i, raw_term in enumerate(doc.data.get("terms", []) if ok(doc, []) else []):
                where = Where(doc, ["terms", i])
                if ok(doc, where.path):
                    term = plain(raw_term)
                    if _own_game(term["id"], doc.game, where, problems) and claim_id(term["id"], where):
                        kb.terms[term["id"]] = term
        elif doc.kind == "cards":
            if ok(doc, ["aid"]):
                kb.aids[doc.game] = plain(doc.data["aid"])
                kb.where[f"{doc.game}:aid"] = Where(doc, ["aid"])
        elif doc.kind == "noise":
            for i, raw_item in enumerate(doc.data.get("noise", []) if ok(doc, []) else []):
                where = Where(doc, ["noise", i])
                if ok(doc, where.path):
                    item = plain(raw_item)
                    item["game"] = doc.game
                    item["_where"] = where
                    kb.noise.append(item)
    sound = {id(doc) for doc in loaded.documents if doc.kind in ("language", "ui") and ok(doc, [doc.kind])}
    validate_languages.check(loaded, kb, problems, sound)  # E062-E063: data/languages/
    return kb


def _own_game(item_id: str, game: str, where: Where, problems: Problems) -> bool:
    if item_id.split("/", 1)[0] != game:
        _at(problems, where, ["id"], "E034", f"id '{item_id}' does not start with '{game}/'")
        return False
    return True


class MeaningChecks:
    """The named semantic checks. Each method looks at one aspect and reports problems."""

    def __init__(self, kb: KnowledgeBase, problems: Problems):
        self.kb = kb
        self.problems = problems
        self.known_ids = set(kb.entries) | set(kb.chapters) | set(kb.terms) | kb.broken_ids
        self.known_checks = known_checks(kb)
        self.noise_lines: dict[str, set[int]] = {}
        for item in kb.noise:
            self.noise_lines.setdefault(item["source"], set()).update(range_lines(item["lines"]))

    def run(self) -> None:
        for game_id, game in self.kb.games.items():
            where = self.kb.where[game_id]
            for i, source_id in enumerate(game["sources"]):
                self.check_source_ref(source_id, game_id, None, where, ["sources", i])
            for i, ref in enumerate(game.get("at_a_glance", [])):
                self.check_reference(ref, where, ["at_a_glance", i])
        for chapter in self.kb.chapters.values():
            where = self.kb.where[chapter.id]
            self.check_origin(chapter.data, chapter.game, where, text_check=False)
            self.check_languages(chapter.data, chapter.game, where, fields=("title",))
        for entry_id, entry in self.kb.entries.items():
            self.check_entry(entry_id, entry)
        for term_id, term in self.kb.terms.items():
            where = self.kb.where[term_id]
            self.require_languages(term["names"], self.kb.game_of(term_id), where, ["names"], "name")
            if "definition" in term:
                self.check_reference(term["definition"], where, ["definition"])
        for game_id, aid in self.kb.aids.items():
            where = self.kb.where[f"{game_id}:aid"]
            for i, section in enumerate(aid["sections"]):
                self.require_languages(section["title"], game_id, where, ["sections", i, "title"], "section title")
                for j, ref in enumerate(section["entries"]):
                    self.check_reference(ref, where, ["sections", i, "entries", j])
        for item in self.kb.noise:
            self.check_source_ref(item["source"], item["game"], None, item["_where"], ["source"], lines=item["lines"])
            if "duplicate_of" in item and item["source"] in self.kb.sources:
                self.check_lines(self.kb.sources[item["source"]], item["duplicate_of"], item["_where"], ["duplicate_of"])

    # -- entries -------------------------------------------------------------------------
    def check_entry(self, entry_id: str, entry: dict) -> None:
        where = self.kb.where[entry_id]
        game = self.kb.game_of(entry_id)
        self.check_languages(entry, game, where, fields=("title", "text"))
        self.check_origin(entry, game, where, text_check=entry["kind"] != "clarification")
        for i, ref in enumerate(entry.get("see", [])):
            self.check_reference(ref, where, ["see", i])
        for i, ref in enumerate(entry.get("terms", [])):
            self.check_reference(ref, where, ["terms", i])
        for lang, text in entry["text"].items():
            for match in textmatch.LINK.finditer(text):
                self.check_reference(match.group(1).strip(), where, ["text", lang])
        self.check_numbers(entry, where)
        check_name = entry.get("example", {}).get("check")
        if check_name and check_name not in self.known_checks:
            hint = difflib.get_close_matches(check_name, sorted(self.known_checks), n=1)
            _at(self.problems, where, ["example", "check"], "E039",
                f"unknown rules-check '{check_name}'" + (f" (did you mean '{hint[0]}'?)" if hint else ""))
        self.check_corrections(entry, where)
        clarification = entry.get("clarification")
        if clarification:
            for i, statement in enumerate(clarification["statements"]):
                path = ["clarification", "statements", i]
                source = self.check_source_ref(statement["source"], game, None, where, path + ["source"],
                                               lines=statement["lines"])
                if source and self.check_lines(source, statement["lines"], where, path + ["lines"]):
                    cited = textmatch.normalise(self.cited_text(source, statement["lines"]))
                    if textmatch.normalise(statement["quote"]) not in cited:
                        _at(self.problems, where, path + ["quote"], "E031",
                            f"quote not found in {source.id} lines {statement['lines']}")
            for i, ref in enumerate(clarification.get("affects", [])):
                self.check_reference(ref, where, ["clarification", "affects", i])
        differ = entry.get("numbers_differ", {})
        if "clarification" in differ:
            self.check_reference(differ["clarification"], where, ["numbers_differ", "clarification"])

    def check_languages(self, item: dict, game: str, where: Where, fields: tuple) -> None:
        languages = {field: set(item[field]) for field in fields}
        if "origin" in item:
            languages["origin"] = set(item["origin"])
        first = fields[0]
        for field, langs in languages.items():
            if langs != languages[first]:
                missing = sorted(languages[first] - langs)
                extra = sorted(langs - languages[first])
                detail = (f"lacks {', '.join(missing)}" if missing else "") + (" and " if missing and extra else "") + \
                         (f"has {', '.join(extra)} that {first} lacks" if extra else "")
                _at(self.problems, where, [field], "E025", f"{field} {detail}")
        self.require_languages(item[first], game, where, [first], first)

    def require_languages(self, mapping: dict, game: str, where: Where, path: list, what: str) -> None:
        required = self.kb.games.get(game, {}).get("required_languages", [])
        missing = [lang for lang in required if lang not in mapping]
        if missing:
            _at(self.problems, where, path, "E024", f"{what} lacks required language(s): {', '.join(missing)}")

    def check_origin(self, item: dict, game: str, where: Where, text_check: bool) -> None:
        origin = item.get("origin", {})
        if origin and all("translated_from" in o for o in origin.values()):
            _at(self.problems, where, ["origin"], "E026", "every version is marked as translated: which one is the original?")
        for lang, one in origin.items():
            path = ["origin", lang]
            if "translated_from" in one:
                source_lang = one["translated_from"]
                if source_lang == lang or source_lang not in origin:
                    _at(self.problems, where, path + ["translated_from"], "E026",
                        f"{lang} is translated from '{source_lang}', which this item does not have")
            elif "source" in one:
                source = self.check_source_ref(one["source"], game, lang, where, path + ["source"], lines=one["lines"])
                if source and self.check_lines(source, one["lines"], where, path + ["lines"]) and text_check:
                    self.check_text_matches(item, lang, source, one["lines"], where, path + ["lines"])

    def check_source_ref(self, source_id, game, lang, where, path, lines=None) -> Source | None:
        source = self.kb.sources.get(source_id)
        if source is None:
            hint = difflib.get_close_matches(source_id, list(self.kb.sources), n=1)
            _at(self.problems, where, path, "E022",
                f"unknown source '{source_id}'" + (f" (did you mean '{hint[0]}'?)" if hint else ""))
            return None
        if source.game != game:
            _at(self.problems, where, path, "E028", f"source '{source_id}' is a source of '{source.game}', not '{game}'")
            return None
        if lang and source.language != lang:
            _at(self.problems, where, path, "E027", f"the {lang} version cites '{source_id}', which is in {source.language}")
            return None
        if lines is not None:
            self.check_lines(source, lines, where, path[:-1] + ["lines"])
        return source

    def check_lines(self, source: Source, spec: str, where: Where, path: list) -> bool:
        for first, last in parse_ranges(spec):
            if first < 1 or last < first or last > len(source.lines):
                _at(self.problems, where, path, "E023",
                    f"lines {first}-{last} are outside {source.file} (1-{len(source.lines)})" if last >= first
                    else f"range {first}-{last} runs backwards")
                return False
        return True

    def cited_text(self, source: Source, spec: str, skip_noise: bool = False) -> str:
        noise = self.noise_lines.get(source.id, set()) if skip_noise else set()
        return "\n".join(source.lines[n - 1] for n in range_lines(spec) if n not in noise)

    def check_text_matches(self, item: dict, lang: str, source: Source, spec: str, where: Where, path: list) -> None:
        cited_words = textmatch.words(self.cited_text(source, spec, skip_noise=True))
        corrections = " ".join(c["from"] for c in item.get("corrections", []) if c["lang"] == lang)
        carried = f"{item['title'][lang]} {item['text'][lang]} {corrections}"
        carried_words = textmatch.words(carried)
        text_in_source = textmatch.share_found(textmatch.words(item["text"][lang]), set(cited_words) | set(textmatch.words(corrections)))
        source_in_text = textmatch.share_found(cited_words, set(carried_words))
        if text_in_source < MIN_TEXT_IN_SOURCE:
            _at(self.problems, where, path, "E033",
                f"only {text_in_source:.0%} of the {lang} text's words are in {source.id} lines {spec}")
        if source_in_text < MIN_SOURCE_IN_TEXT:
            _at(self.problems, where, path, "E033",
                f"only {source_in_text:.0%} of the words of {source.id} lines {spec} are in the {lang} title and text")

    def check_reference(self, ref: str, where: Where, path: list) -> None:
        if ref not in self.known_ids:
            hint = difflib.get_close_matches(ref, sorted(self.known_ids), n=1)
            _at(self.problems, where, path, "E021",
                f"unknown reference '{ref}'" + (f" (did you mean '{hint[0]}'?)" if hint else ""))

    def check_numbers(self, entry: dict, where: Where) -> None:
        """A translation states the numbers of its original; two sources' versions agree."""
        if "numbers_differ" in entry:
            return
        by_lang = {lang: textmatch.numbers(text) for lang, text in entry["text"].items()}
        originals = sorted(lang for lang, o in entry["origin"].items() if "translated_from" not in o)
        pairs = [(o["translated_from"], lang) for lang, o in entry["origin"].items() if "translated_from" in o]
        pairs += [(originals[0], other) for other in originals[1:]]
        for first, other in pairs:
            if first in by_lang and other in by_lang and by_lang[first] != by_lang[other]:
                a, b = Counter(by_lang[first]), Counter(by_lang[other])
                only_a = sorted((a - b).elements())
                only_b = sorted((b - a).elements())
                _at(self.problems, where, ["text", other], "E030",
                    f"numbers differ: {first} has {only_a or 'none'} that {other} lacks; {other} has {only_b or 'none'} that {first} lacks")

    def check_corrections(self, entry: dict, where: Where) -> None:
        for i, correction in enumerate(entry.get("corrections", [])):
            origin = entry["origin"].get(correction["lang"], {})
            source = self.kb.sources.get(origin.get("source", ""))
            if source is None or not self.check_lines(source, origin["lines"], where, ["origin", correction["lang"], "lines"]):
                continue
            cited = self.cited_text(source, origin["lines"])
            if correction["from"] not in cited and textmatch.normalise(correction["from"]) not in textmatch.normalise(cited):
                _at(self.problems, where, ["corrections", i, "from"], "E032",
                    f"'{correction['from']}' is not in {source.id} lines {origin['lines']}")


def validate(data_dir: Path) -> tuple[KnowledgeBase, Problems]:
    """Load and check everything; never raises for bad data."""
    problems = Problems()
    return check(load(data_dir, problems), problems), problems


def check(loaded: LoadedData, problems: Problems) -> KnowledgeBase:
    """The knowledge base of loaded files, every problem in its shape and meaning recorded."""
    kb = build_knowledge_base(loaded, problems)
    check_catalogues(loaded, kb, problems)  # before MeaningChecks: examples' `check:` are looked up in kb.checks
    MeaningChecks(kb, problems).run()
    validate_text.check(kb, problems)  # E050-E052: text against its sources, corrections, working notes
    validate_markup.check(kb, problems)  # E060-E061: links and images the renderer would refuse
    return kb


def load_valid(data_dir: Path) -> KnowledgeBase:
    """For the later stages: the knowledge base, or DataError with every problem."""
    kb, problems = validate(data_dir)
    if problems:
        raise DataError(problems)
    return kb
