"""Stage 4a, render the site: one page per chapter (an anchor per entry) per language, as HTML.

Pages live at <lang>/<game>/<NN-chapter>.md, so every link is computed from that shape. A page's
content is HTML made by autoescaping Jinja templates, with data Markdown rendered by
`safe_markdown.render` — the one path by which text from the data reaches a page. mkdocs receives
that HTML as the page's Markdown (one raw HTML block, passed through untouched); titles, the
table of contents and the navigation go to mkdocs' hooks already escaped (`page_meta`, `nav`),
because Material prints them without escaping.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from ..base.jsontypes import JSONObject
from ..base.languages import fill
from ..base.paths import TEMPLATES
from ..base.safe_markdown import Linker, render, without_tables
from ..base.termmatch import found_in
from ..base.textmatch import reads_as_english
from ..load.model import Chapter, Entry, Game, Source, Term
from ..resolve.pages import (
    A_TO_Z,
    ALL_CLARIFICATIONS,
    CALCULATORS,
    CHANGES,
    CLARIFICATIONS,
    EXAMPLES,
    GAME_INDEX,
    GLOSSARY,
    OFFLINE,
    REFERENCE_PAGES,
    SECTION_HOME,
    game_hrefs,
)
from ..resolve.resolve import Reading, Resolved, first_paragraph
from .answer_tables import AnswerTable, AnswerTables
from .calculators import CalculatorBlocks, game_checks

if TYPE_CHECKING:
    from .aids.cards import AidLinks  # the aids import this module (its template environment)

View: TypeAlias = dict[str, Any]  # what a template reads of one thing (an entry, a callout, a list item), by name
Page: TypeAlias = tuple[str, str]  # (path under the docs folder, its HTML or JSON)
NavItem: TypeAlias = dict[str, "str | list[NavItem]"]  # mkdocs' nav: a title -> a page, or a section's items


class Link(TypedDict):
    title: str
    href: str


class ListGroup(TypedDict):
    """A group of a list page (list.html.j2): its heading, anchor and links."""

    title: str | None  # None: the page's one group, without a heading
    anchor: str | None
    items: list[View]


EDITORIAL_TOPICS = ("extraction-damage", "reference")  # clarifications that are editors' notes, not rulings


def environment(sub: str, autoescape: bool = True) -> Environment:
    """Templates of one output (site, cards) plus the shared ones; autoescaping HTML unless told otherwise.
    The same environment, its templates compiled once, while no template file changes (`serve` builds again and
    again in one process: compiling the site's templates took a tenth of a second of each rebuild)."""
    folders = (TEMPLATES / sub, TEMPLATES / "shared")
    stats = ((path, path.stat()) for folder in folders for path in sorted(folder.rglob("*")))
    files = tuple((str(path), stat.st_mtime_ns, stat.st_size) for path, stat in stats)
    return _environment(sub, autoescape, files)


@functools.lru_cache(maxsize=4)
def _environment(sub: str, autoescape: bool, files: tuple[tuple[str, int, int], ...]) -> Environment:
    """`environment` made anew; `files` (each template's path, time and size) tells the versions of the templates apart."""
    return Environment(
        loader=FileSystemLoader([str(TEMPLATES / sub), str(TEMPLATES / "shared")]),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=autoescape,
        auto_reload=False,
    )  # the files are looked at by `environment`, once a build


@dataclass
class PageMeta:
    """What mkdocs' hooks give Material for a page: its title and table of contents, as escaped HTML."""

    title: str
    toc: list[tuple[str, str]]  # (anchor, title as escaped HTML)


RenderedTexts = dict[tuple[str, str, str, tuple[str, str] | None], tuple[Markup, frozenset[str]]]  # see text_html


class SiteRenderer:
    def __init__(self, resolved: Resolved, aid_links: dict[tuple[str, str], AidLinks], rendered_before: dict[str, RenderedTexts] | None = None):
        self.r = resolved
        self.kb = resolved.kb
        self.env = environment("site")
        self.langs = resolved.languages
        self.aid_links = aid_links  # (game, lang) -> cards.AidLinks (paths relative to the site root)
        self.page_meta: dict[str, PageMeta] = {}  # docs path -> title and toc, filled as pages are made
        self._rendered: RenderedTexts = {}  # of the game being rendered: see text_html
        # serve: each game's texts as its last rebuild rendered them, taken again where a text is the same (a rebuild
        # of some games only changes no link target, title or term: incremental.games_to_render); and this build's
        self.rendered_before = rendered_before
        self.rendered: dict[str, RenderedTexts] | None = {} if rendered_before is not None else None
        self._before: RenderedTexts = {}
        self.calculators = CalculatorBlocks(resolved, self.fragment)
        self._page_terms: set[str] = set()  # glossary terms linked anywhere on the page being made (their previews)
        self._previews: dict[tuple[str, str, str], View] = {}  # see _term_preview
        self.answer_tables = AnswerTables(resolved)  # on each game's Calculators page

    # -- links -----------------------------------------------------------------------------
    def href(self, target_id: str, from_game: str, reader: str | None = None, from_lang: str | None = None) -> str:
        """Relative URL from a page <from_lang>/<from_game>/x.html to an entry, chapter or term
        (in the `reader`'s section when that differs from `from_lang`)."""
        if reader and from_lang and reader != from_lang:
            return "../../" + self.r.url_of(target_id, reader)
        path = self.r.path_in_section(target_id)
        own = f"{from_game}/"
        return path[len(own) :] if path.startswith(own) else "../" + path

    def fragment(self, template: str, **context: Any) -> Markup:
        """A piece of a page (an entry, a table…): HTML from an autoescaping template, safe to nest."""
        return Markup(self.env.get_template(template).render(**context))

    def link(self, target_id: str, game: str, reading: Reading) -> Link:
        return {"title": reading.link_title(target_id), "href": self.href(target_id, game)}

    def text_html(self, text: str, game: str, lang: str, linked_terms: set[str], paragraphs: tuple[str, str] | None = None) -> Markup:
        """Entry text as safe HTML with links; adds the glossary terms it linked to `linked_terms`;
        `paragraphs`: (anchor, number) to give each paragraph an id and a number.

        The same text is rendered for every reader (its own page and the other languages' "compare"
        panels), so results are kept for the game being rendered (see `pages`)."""
        key = (game, lang, text, paragraphs)
        if not linked_terms and key not in self._rendered and key in self._before:
            self._rendered[key] = self._before[key]
        if not linked_terms and key in self._rendered:
            html, linked = self._rendered[key]
            linked_terms.update(linked)
            self._page_terms.update(linked)
            return html
        fresh = not linked_terms
        matcher = self.r.matchers[(game, lang)]
        linker = Linker(
            reference_href=lambda ref: self.href(ref, game),
            reference_label=lambda ref: self.r.link_title(ref, lang),
            find_terms=functools.partial(found_in, matcher),  # kept per text: the same paragraphs recur on many pages
            term_href=lambda term: self.href(term, game),
            linked_terms=linked_terms,
            language=lang,
            paragraphs=paragraphs,
        )
        html = render(text, linker)
        if fresh:
            self._rendered[key] = (html, frozenset(linked_terms))
        self._page_terms.update(linked_terms)
        return html

    def term_previews(self, game: str, reading: Reading) -> list[View]:
        """What a tap on a linked glossary term shows in place (kb-terms.js): for every term linked on the
        page, its name, the first paragraph of the entry defining it (else its names in the other
        languages) and links to the definition and to the glossary. Definitions link no terms: a
        preview is one step, not a chain."""
        return [self._term_preview(term_id, game, reading) for term_id in sorted(self._page_terms)]

    def _term_preview(self, term_id: str, game: str, reading: Reading) -> View:
        """One term's preview, made once per game and reader (the same on every page of the game)."""
        key = (term_id, game, reading.reader)
        if key in self._previews:
            return self._previews[key]
        term = self.kb.terms[term_id]
        definition = self.kb.entries.get(term.get("definition", ""))
        text = None
        if "gloss" in term:  # the term in one sentence, drawn from the rule that defines it
            gloss, gloss_lang = reading.shown(term["gloss"])
            text = Markup('<p class="kb-gloss"{}>{}</p>').format(
                Markup(' lang="{}"').format(gloss_lang) if gloss_lang != reading.reader else "", gloss
            )
        elif definition is not None:
            shown = reading.shown_language(definition)
            linker = Linker(
                reference_href=lambda ref: self.href(ref, game), reference_label=functools.partial(self.r.link_title, reader=shown), language=shown
            )
            text = render(first_paragraph(without_tables(definition["text"][shown])), linker)
        name_lang = reading.pick(term["names"])
        self._previews[key] = {
            "id": "preview-" + self.r.anchor_of(term_id),
            "name": term["names"][name_lang],
            "text": text,
            "others": [
                {"language": reading.language_name(lang), "name": term["names"][lang], "lang": lang}
                for lang in self.langs.codes
                if lang != name_lang and lang in term["names"]
            ],
            "definition": self.link(definition["id"], game, reading) if definition is not None else None,
            "glossary": self.href(term_id, game),
        }
        return self._previews[key]

    # -- pieces ----------------------------------------------------------------------------
    def citation(self, item: Mapping[str, Any], reading: Reading) -> list[str]:
        """Where an entry's text comes from, language by language (a source's lines, a translation or
        the editors' own words), and how many corrections it has had."""
        labels = reading.labels
        parts = []
        for lang, origin in item["origin"].items():
            name = reading.language_name(lang)
            if "source" in origin:
                source = self.kb.sources[origin["source"]]
                parts.append(f"{labels['source']} ({name}): {source.title}, {labels['lines']} {origin['lines']}")
            elif "translated_from" in origin:
                parts.append(f"{name}: " + fill(labels["translated_from"], lang=reading.language_name(origin["translated_from"])))
            else:
                parts.append(f"{name}: {labels['authored']}")
        if corrections := item.get("corrections"):
            parts.append(f"{labels['corrections']}: {len(corrections)}")
        return parts

    def table_html(self, table: JSONObject, reading: Reading) -> Markup:
        """A data table, every cell plain text (escaped) in the reader's language."""
        text = reading.table(table)
        return self.fragment("table.html.j2", head=text.head, rows=text.rows, note=text.note)

    def example_html(self, example: JSONObject, reading: Reading) -> Markup:
        return self.fragment(
            "example.html.j2",
            labels=reading.labels,
            inputs=json.dumps(example["inputs"], ensure_ascii=False, indent=1),
            expected=json.dumps(example["expected"], ensure_ascii=False, indent=1),
        )

    def clarification_html(self, entry: Entry, game: str, reading: Reading) -> Markup:
        labels = reading.labels
        data = entry["clarification"]
        statements = []
        for s in data["statements"]:
            source = self.kb.sources[s["source"]]
            # the editors' rendering of the quote, in the reader's language where there is one (else English),
            # for a reader who does not read the quote's language
            renderings = {code: s[code] for code in self.langs.codes if code in s and code != source.language}
            shown = reading.pick(renderings) if renderings and source.language != reading.reader else None
            quote = " ".join(s["quote"].split())
            statements.append(
                {
                    "quote": quote,
                    "quote_lang": "en" if reads_as_english(quote, source.language) else source.language,
                    "rendering": renderings[shown] if shown else None,
                    "rendering_lang": shown,
                    "source": source.title,
                    "lines": s["lines"],
                }
            )
        return self.fragment(
            "clarification.html.j2",
            labels=labels,
            statements=statements,
            status=labels[f"status_{data['status']}"],
            basis=labels["bases"][data["basis"]],
            affects=[self.link(a, game, reading) for a in data.get("affects", [])],
        )

    def external_reference(self, reference: Mapping[str, Any], reading: Reading) -> View:
        """Material the text refers to that the knowledge base does not hold: what it is (in the reader's
        language where there is one), and the source's words that refer to it (in theirs)."""
        what = reference["what"] if isinstance(reference["what"], Mapping) else {"en": reference["what"]}
        text, lang = reading.shown(what)
        return {"what": text, "what_lang": lang if lang != reading.reader else None, "quote": reference["quote"], "quote_lang": reference["lang"]}

    def source_line(self, source: Source, reading: Reading) -> View:
        """A source as the game page lists it: title (in its own language), language, kind, precedence and why."""
        reason, reason_lang = reading.shown(source.precedence_reason)
        return {
            "title": source.title,
            "title_lang": source.language,
            "language": reading.language_name(source.language),
            "kind": reading.labels["source_kinds"][source.kind],
            "precedence": source.precedence,
            "reason": reason,
            "reason_lang": reason_lang,
        }

    def clarification_callout(self, clarification: Entry, game: str, reading: Reading) -> View:
        """What an entry shows of a clarification about it: the ruling in the reader's language (else
        the shown language's, marked by the language name), its status and a link to the whole of it.
        Repairs of damaged text and references are editors' notes, not rulings."""
        labels = reading.labels
        ruling = reading.ruling_sentence(clarification)
        shown = ruling[1] if ruling else reading.reader
        return {
            "title": reading.title(clarification["id"]),
            "href": self.href(clarification["id"], game),
            "status": labels[f"status_{clarification['clarification']['status']}"],
            "reviewed": clarification["clarification"].get("reviewed"),
            "ruling": self.text_html(ruling[0], game, shown, set()) if ruling else None,
            "language": None if shown == reading.reader else reading.language_name(shown),
            "lang": shown,
            "editorial": clarification["clarification"].get("topic") in EDITORIAL_TOPICS,
        }

    def entry_html(self, entry: Entry, reading: Reading, titled: bool = True) -> Markup:
        """An entry's section; `titled=False` leaves out its heading (the page's heading says it)."""
        game = self.kb.game_of(entry["id"])
        labels = reading.labels
        shown = reading.shown_language(entry)
        others = self.other_languages(entry, game, shown, reading)
        rulings, editors_notes = self.clarified_by(entry["id"], game, reading)
        view = {
            "id": entry["id"],
            "anchor": self.r.anchor_of(entry["id"]),
            "kind": entry["kind"],
            "titled": titled,
            "title": entry["title"][shown],
            "fallback_note": fill(labels["fallback"], shown=reading.language_name(shown)) if shown != reading.reader else None,
            "text": self.entry_text(entry, game, shown),
            "table": self.table_html(entry["table"], reading) if "table" in entry and entry["table"].get("shown", True) else None,
            "example": self.example_html(entry["example"], reading) if "example" in entry else None,
            "calculators": self.calculators.of_entry(entry["id"], reading),
            "ruling_first": self.clarification_callout(entry, game, reading) if "clarification" in entry else None,
            "clarification": self.clarification_html(entry, game, reading) if "clarification" in entry else None,
            "rulings": rulings,
            "editors_notes": editors_notes,
            "check": ", ".join(self.r.checks_of.get(entry["id"], [])) or None,
            "see": [self.link(s, game, reading) for s in entry.get("see", [])],
            "external": [self.external_reference(x, reading) for x in entry.get("refs_external", [])],
            "citation": self.citation(entry, reading),
            "others": others,
            "read_in": self.read_in(entry["id"], game, reading),
        }
        return self.fragment("entry.html.j2", e=view, labels=labels)

    def entry_text(self, entry: Entry, game: str, shown: str) -> Markup:
        """The entry's text in the language shown, its paragraphs numbered when the entry has a number;
        without the text's Markdown table when the entry's `table` data shows it (`table_html`)."""
        number = self.r.number_of.get(entry["id"])
        numbered = (self.r.anchor_of(entry["id"]), number) if number else None
        text = entry["text"][shown]
        return self.text_html(without_tables(text) if "table" in entry else text, game, shown, set(), numbered)

    def other_languages(self, entry: Entry, game: str, shown: str, reading: Reading) -> list[View]:
        """The entry in each other language it is written in, for the "compare" panel: its title and
        text, and a link to it in that language's section (where the game has one, not the reader's)."""
        sections = self.kb.games[game]["languages"]
        return [
            {
                "lang": lang,
                "name": reading.language_name(lang),
                "href": self.href(entry["id"], game, reader=lang, from_lang=reading.reader) if lang in sections and lang != reading.reader else None,
                "title": entry["title"][lang],
                "text": self.text_html(entry["text"][lang], game, lang, set()),
            }
            for lang in self.langs.codes
            if lang != shown and lang in entry["text"]
        ]

    def clarified_by(self, entry_id: str, game: str, reading: Reading) -> tuple[list[View], list[View]]:
        """The callouts of the clarifications about an entry: (rulings, editors' notes)."""
        callouts = [self.clarification_callout(self.kb.entries[c], game, reading) for c in self.r.clarifications_of.get(entry_id, [])]
        return [c for c in callouts if not c["editorial"]], [c for c in callouts if c["editorial"]]

    def read_in(self, entry_id: str, game: str, reading: Reading) -> list[View]:
        """Links to the entry in the game's other language sections."""
        sections = self.kb.games[game]["languages"]
        return [
            {"lang": language.code, "name": language.name, "href": self.href(entry_id, game, reader=language.code, from_lang=reading.reader)}
            for language in self.langs
            if language.code != reading.reader and language.code in sections
        ]

    # -- pages -----------------------------------------------------------------------------
    def page(self, path: str, template: str, title: str, toc: list[tuple[str, str]] | None = None, **context: Any) -> Page:
        """(path, HTML) of one page; its title and table of contents are kept for mkdocs' hooks."""
        self.page_meta[path] = PageMeta(str(escape(title)), [(anchor, str(escape(text))) for anchor, text in toc or []])
        return path, self.env.get_template(template).render(title=title, **context)

    def game_pages(self, game_id: str, reading: Reading) -> Iterator[Page]:
        """(path, HTML) of a game's pages in one language: its chapters, landing page, glossary and lists."""
        labels = reading.labels
        folder = f"{reading.reader}/{game_id}"
        chapters = self.kb.chapters_of(game_id)
        yield from self.chapter_pages(folder, chapters, game_id, reading)
        entries = self.kb.entries_of(game_id)
        clarifications = [e for e in entries if e["kind"] == "clarification"]
        examples = [e for e in entries if e["kind"] == "example"]
        questions = self.calculators.questions(game_id, reading)
        tables = self.answer_tables.of_game(game_id, reading.reader) if questions else []
        yield self.game_index_page(
            f"{folder}/{GAME_INDEX.md}",
            game_id,
            reading,
            chapters=chapters,
            questions=questions,
            tables=tables,
            n_clarifications=len(clarifications),
            n_examples=len(examples),
        )
        game_title = reading.text(self.kb.games[game_id]["title"])
        yield self.glossary_page(f"{folder}/{GLOSSARY.md}", game_id, reading)
        yield self.a_to_z_page(f"{folder}/{A_TO_Z.md}", game_id, reading)
        yield self.list_page(
            f"{folder}/{CLARIFICATIONS.md}",
            CLARIFICATIONS.title(labels) + f" — {game_title}",
            self.clarifications_by_topic(clarifications, game_id, reading),
        )
        yield self.changes_page(f"{folder}/{CHANGES.md}", game_id, reading, clarifications)
        yield self.list_page(
            f"{folder}/{EXAMPLES.md}",
            EXAMPLES.title(labels) + f" — {game_title}",
            [{"title": None, "anchor": None, "items": [{**self.link(e["id"], game_id, reading), "note": None} for e in examples]}],
        )
        if blocks := self.calculators.of_game(game_id, reading):
            yield self.page(
                f"{folder}/{CALCULATORS.md}",
                "calculators.html.j2",
                CALCULATORS.title(labels) + f" — {game_title}",
                blocks=blocks,
                tables=tables,
                ui=labels["calculator"],
                tables_heading=labels["calculator"]["answer_tables"],
            )
            yield from self.calculators_data(game_id, reading)

    def chapter_links(self, chapters: list[Chapter], game_id: str, reading: Reading) -> list[Link]:
        """Each chapter's title and link, in order."""
        return [{"title": reading.title(c.id), "href": self.href(c.id, game_id)} for c in chapters]

    def chapter_pages(self, folder: str, chapters: list[Chapter], game_id: str, reading: Reading) -> Iterator[Page]:
        """(path, HTML) of each chapter's page: its entries, the previews of the terms they link, and
        links to the previous and next chapters."""
        labels = reading.labels
        links = self.chapter_links(chapters, game_id, reading)
        for place, chapter in enumerate(chapters):
            entries = [self.kb.entries[e] for e in chapter.entry_ids]
            self._page_terms.clear()
            title = reading.title(chapter.id)
            # a chapter of one entry under the same name: the page's heading is the entry's (not said twice)
            alone = len(entries) == 1 and reading.title(entries[0]["id"]) == title
            html = [self.entry_html(e, reading, titled=not alone) for e in entries]
            yield self.page(
                f"{folder}/{self.r.page_of[chapter.id]}",
                "chapter.html.j2",
                title,
                toc=[(self.r.anchor_of(e["id"]), reading.title(e["id"])) for e in entries],
                entries=html,
                previews=self.term_previews(game_id, reading),
                labels=labels,
                previous=links[place - 1] if place else None,
                next=links[place + 1] if place + 1 < len(links) else None,
            )

    def game_index_page(
        self,
        path: str,
        game_id: str,
        reading: Reading,
        *,
        chapters: list[Chapter],
        questions: list[dict[str, str]],
        tables: list[AnswerTable],
        n_clarifications: int,
        n_examples: int,
    ) -> Page:
        """A game's landing page in one language: its summary, the round at a glance, its chapters,
        calculators and answer tables, the sizes of its reference lists, its player aids and sources."""
        game = self.kb.games[game_id]
        labels = reading.labels
        glance = self.at_a_glance(game_id, reading)
        aids = self.aid_links.get((game_id, reading.reader))
        return self.page(
            path,
            "game.html.j2",
            reading.text(game["title"]),
            toc=self.game_toc(labels, glance=bool(glance), calculators=bool(questions)),
            pages=game_hrefs(),
            summary=reading.text(game["summary"]),
            glance=glance,
            labels=labels,
            reader=reading.reader,
            chapters=self.chapter_links(chapters, game_id, reading),
            questions=questions,
            tables=[{"title": t.title, "href": f"{CALCULATORS.html}#{t.id}"} for t in tables],
            n_terms=len(self.kb.terms_of(game_id)),
            n_clarifications=n_clarifications,
            n_examples=n_examples,
            cards=[{"label": label, "href": f"../../{card}"} for label, card in aids.downloads] if aids else [],
            card_preview=f"../../{aids.preview}" if aids else None,
            sources=[self.source_line(s, reading) for s in sorted((self.kb.sources[i] for i in game["sources"]), key=lambda s: s.precedence)],
        )

    def at_a_glance(self, game_id: str, reading: Reading) -> list[View]:
        """The entries the game page shows for a round at a glance: each one's link and whole text."""
        glance = []
        for entry_id in self.kb.games[game_id].get("at_a_glance", []):
            entry = self.kb.entries[entry_id]
            shown = reading.shown_language(entry)
            glance.append({**self.link(entry_id, game_id, reading), "text": self.text_html(entry["text"][shown], game_id, shown, set())})
        return glance

    @staticmethod
    def game_toc(labels: Mapping[str, Any], glance: bool, calculators: bool) -> list[tuple[str, str]]:
        """The game page's table of contents: (anchor, heading) of each of its sections it shows."""
        return (
            ([("round", labels["round"])] if glance else [])
            + [("chapters", labels["chapters"])]
            + ([("calculators", labels["calculator"]["calculators"])] if calculators else [])
            + [
                ("reference", f"{labels['glossary']} · {labels['clarifications']} · {labels['examples']}"),
                ("aids", labels["cards"]),
                ("sources", labels["sources"]),
            ]
        )

    def calculators_data(self, game_id: str, reading: Reading) -> Iterator[Page]:
        """(path, JSON) of the game's calculators.json in one language, if it has calculators."""
        if game_checks(self.r, game_id):
            yield self.calculators.spec_file(game_id, reading, lambda entry_id: self.href(entry_id, game_id))

    def a_to_z_page(self, path: str, game_id: str, reading: Reading) -> tuple[str, str]:
        """Every entry of a game but its clarifications and worked examples (they have their own
        lists), in the alphabetical order of the titles the reader is shown, under initial letters."""
        labels = reading.labels
        language = self.langs[reading.reader]
        items: list[tuple[tuple[tuple[int, int], ...], View]] = []
        for entry in self.kb.entries_of(game_id):
            if entry["kind"] in ("clarification", "example"):
                continue
            link = self.link(entry["id"], game_id, reading)  # two entries of one name say which chapter each is in
            items.append((language.collation_key(link["title"]), {**link, "note": None}))
        items.sort(key=lambda pair: pair[0])
        groups: list[ListGroup] = []
        for _, item in items:
            letter = language.initial(item["title"])
            if not groups or groups[-1]["title"] != letter:
                groups.append({"title": letter, "anchor": f"az-{len(groups) + 1}", "items": []})
            groups[-1]["items"].append(item)
        return self.list_page(path, f"{labels['a_to_z']} — {reading.text(self.kb.games[game_id]['title'])}", groups, letters=True)

    def clarifications_by_topic(self, clarifications: list[Entry], game_id: str, reading: Reading) -> list[ListGroup]:
        """A game's clarifications grouped by the chapter of the rule they concern (in the game's
        chapter order), then those about no rule, then the editors' notes; each with its ruling's
        first sentence."""
        labels = reading.labels
        chapter_order = {c.id: n for n, c in enumerate(self.kb.chapters_of(game_id))}
        groups: dict[str, ListGroup] = {}
        for entry in clarifications:
            data = entry["clarification"]
            if data.get("topic") in EDITORIAL_TOPICS:
                key, title = "~editors", labels["editors_notes"]
            elif data.get("affects"):
                affected = data["affects"][0]
                chapter = self.kb.chapters[affected] if affected in self.kb.chapters else self.r.chapter_of(affected)
                key, title = f"{chapter_order.get(chapter.id, len(chapter_order)):04d}", reading.title(chapter.id)
            else:
                key, title = "~other", labels["other_topics"]
            group = groups.setdefault(key, {"title": title, "anchor": f"topic-{len(groups) + 1}", "items": []})
            group["items"].append({**self.clarification_item(entry, game_id, reading), **self.ruling_summary(entry, game_id, reading)})
        return [groups[key] for key in sorted(groups)]

    def changes_page(self, path: str, game_id: str, reading: Reading, clarifications: list[Entry]) -> tuple[str, str]:
        """Changes since your print: the version an aid prints is the date its rulings stand at (the
        latest `reviewed` of the game's clarifications, cards.rulings_date); this page lists the game's
        rulings under their review dates, newest first, so a reader finds what changed after the date
        on the aid. Each date's heading has the anchor v<date>."""
        labels = reading.labels
        by_date: dict[str, list[View]] = {}
        for entry in clarifications:
            if "reviewed" in entry["clarification"]:
                by_date.setdefault(str(entry["clarification"]["reviewed"]), []).append(
                    {**self.clarification_item(entry, game_id, reading), **self.ruling_summary(entry, game_id, reading)}
                )
        groups: list[ListGroup] = [
            {"title": f"{labels['reviewed']} {date}", "anchor": f"v{date}", "items": by_date[date]} for date in sorted(by_date, reverse=True)
        ]
        title = f"{labels['aid_changes']} — {reading.text(self.kb.games[game_id]['title'])}"
        return self.list_page(path, title, groups, intro=labels["aid_changes_intro"] if groups else labels["aid_changes_none"])

    def ruling_summary(self, clarification: Entry, game: str, reading: Reading) -> View:
        """A clarification's ruling in one sentence (Resolved.ruling_sentence), in the reader's language or
        else marked with the language it is shown in."""
        ruling = reading.ruling_sentence(clarification)
        if not ruling:
            return {"summary": None, "summary_language": None}
        sentence, shown = ruling
        return {
            "summary": self.text_html(sentence, game, shown, set()),
            "summary_language": None if shown == reading.reader else reading.language_name(shown),
            "summary_lang": shown,
        }

    def clarification_item(self, entry: Entry, from_game: str, reading: Reading) -> View:
        labels = reading.labels
        return {**self.link(entry["id"], from_game, reading), "note": labels[f"status_{entry['clarification']['status']}"]}

    def list_page(self, path: str, title: str, groups: list[ListGroup], letters: bool = False, intro: str | None = None) -> tuple[str, str]:
        """A page of links in groups; `letters`: a row of the groups' titles (an A–Z's letters) first;
        `intro`: a paragraph of plain text before them."""
        return self.page(
            path,
            "list.html.j2",
            title,
            toc=[(g["anchor"], g["title"]) for g in groups if g["title"] and g["anchor"] is not None],
            groups=groups,
            letters=letters,
            intro=intro,
        )

    def glossary_page(self, path: str, game_id: str, reading: Reading) -> tuple[str, str]:
        labels = reading.labels
        terms: list[dict[str, Any]] = []
        for term in self.kb.terms_of(game_id):
            name_lang = reading.pick(term["names"])
            others = [
                {"language": reading.language_name(lang), "name": term["names"][lang], "lang": lang}
                for lang in self.langs.codes
                if lang != name_lang and lang in term["names"]
            ]
            # the sources' other words, the reader's own first; each marked with its language
            variants = [
                {"text": v, "lang": lang}
                for lang in sorted(term.get("variants", {}), key=lambda code: code != reading.reader)
                for v in sorted(term["variants"][lang])
            ]
            terms.append(
                {
                    "name": term["names"][name_lang],
                    "name_lang": name_lang,
                    "sort": self.langs[reading.reader].collation_key(term["names"][name_lang]),
                    "anchor": "term-" + term["id"].rsplit("/", 1)[1],
                    "others": others,
                    "variants": variants,
                    "definition": self.link(term["definition"], game_id, reading) if "definition" in term else None,
                    "gloss": reading.shown(term["gloss"]) if "gloss" in term else None,  # (text, its language)
                    "standing": labels[standing] if name_lang == reading.reader and (standing := name_standing(term, reading.reader)) else None,
                }
            )
        terms.sort(key=lambda t: t["sort"])
        letters: list[dict[str, str]] = []  # the letter bar: each initial, linking to its first term
        for t in terms:
            letter = self.langs[reading.reader].initial(t["name"])
            if not letters or letters[-1]["title"] != letter:
                letters.append({"title": letter, "anchor": t["anchor"]})
        return self.page(
            path,
            "glossary.html.j2",
            f"{GLOSSARY.title(labels)} — {reading.text(self.kb.games[game_id]['title'])}",
            toc=[(t["anchor"], t["name"]) for t in terms],
            terms=terms,
            labels=labels,
            reader=reading.reader,
            letters=letters,
        )

    def language_pages(self, reading: Reading) -> Iterator[Page]:
        """(path, HTML) of a language's home and cross-game pages."""
        labels = reading.labels
        games = [g for g in self.r.games() if reading.reader in g["languages"]]
        yield self.page(
            f"{reading.reader}/{SECTION_HOME.md}",
            "home.html.j2",
            SECTION_HOME.title(labels),
            labels=labels,
            clarifications_href=ALL_CLARIFICATIONS.html,
            games=[self.home_item(g, reading) for g in games],
            elsewhere=[self.home_item(g, reading) for g in self.r.games() if reading.reader not in g["languages"]],
        )
        groups: list[ListGroup] = []
        for game in games:
            clarifications = [e for e in self.kb.entries_of(game["id"]) if e["kind"] == "clarification"]
            items = [self.clarification_item(e, "", reading) for e in clarifications]
            for item, entry in zip(items, clarifications, strict=True):
                item["href"] = self.r.path_in_section(entry["id"])
            groups.append({"title": reading.text(game["title"]), "anchor": f"game-{game['id']}", "items": items})
        yield self.list_page(f"{reading.reader}/{ALL_CLARIFICATIONS.md}", ALL_CLARIFICATIONS.title(labels), groups)
        yield self.page(
            f"{reading.reader}/{OFFLINE.md}",
            "offline.html.j2",
            OFFLINE.title(labels),
            labels=labels,
            clarifications_href=ALL_CLARIFICATIONS.html,
            games=[
                {
                    "title": reading.text(game["title"]),
                    "href": f"{game['id']}/{GAME_INDEX.html}",
                    "calculators": f"{game['id']}/{CALCULATORS.html}" if self.calculators.questions(game["id"], reading) else None,
                }
                for game in games
            ],
        )

    def home_item(self, game: Game, reading: Reading) -> View:
        """A game on a section's home: its title and summary (in a fallback language, marked, when the
        section lacks the game), and every language it is available in, each linking to its section."""
        shown = reading.pick(game["title"])
        return {
            "title": game["title"][shown],
            "lang": shown,
            "summary": reading.text(game["summary"]),
            "href": f"{game['id']}/{GAME_INDEX.html}" if reading.reader in game["languages"] else None,
            "languages": [
                {"lang": lang, "name": self.langs[lang].name, "href": f"../{lang}/{game['id']}/{GAME_INDEX.html}"}
                for lang in self.langs.codes
                if lang in game["languages"]
            ],
        }

    def pages(self, games: set[str] | None = None) -> Iterator[Page]:
        """(path under the docs folder, HTML) for every page, generated one game at a time:
        a large corpus never holds all its pages in memory (write them as they come), and each
        text is rendered once for all readers of its game.

        `games`: only the pages of these games (a rebuild that knows the others did not change);
        the titles and tables of contents of the others are then taken from `page_meta` as given."""
        if games is None:
            yield self.page(
                "index.md",
                "root.html.j2",
                self.root_title(),
                languages=[{"code": lang, "name": self.langs[lang].name, "href": f"{lang}/{SECTION_HOME.html}"} for lang in self.langs.codes],
            )
        for game in self.r.games():
            readings = [self.r.reading(lang) for lang in self.langs.codes if lang in game["languages"]]
            if games is not None and game["id"] not in games:
                for reading in readings:  # its pages are as they were, but its calculators' data names the data version
                    yield from self.calculators_data(game["id"], reading)
                continue
            self._rendered, self._before = {}, (self.rendered_before or {}).get(game["id"], {})
            if self.rendered is not None:
                self.rendered[game["id"]] = self._rendered
            for reading in readings:
                yield from self.game_pages(game["id"], reading)
        self._rendered, self._before = {}, {}
        for lang in self.langs.codes if games is None else ():
            yield from self.language_pages(self.r.reading(lang))

    def root_title(self) -> str:
        """The root page's title: every language's name for the site ("Rules reference · Zasady gier · …")."""
        return " · ".join(lang.ui["home"] for lang in self.langs)

    def site_meta(self) -> str:
        """JSON for mkdocs' hooks (mkdocs_hooks.py): the navigation and every page's title and table of
        contents, escaped. Written beside the generated mkdocs.yml after `pages()` has run."""
        sections = {
            lang.code: {
                "theme": lang.theme,
                "site_name": str(escape(lang.ui["home"])),
                "toggles": [str(escape(lang.ui["to_dark"])), str(escape(lang.ui["to_light"]))],
                "not_found": {key: str(escape(lang.ui[key])) for key in ("not_found", "not_found_text", "home")},
            }
            for lang in self.langs
        }
        alternate = [{"name": str(escape(lang.name)), "link": f"{lang.code}/{SECTION_HOME.html}", "lang": lang.code} for lang in self.langs]
        return json.dumps(
            {
                "sections": sections,
                "alternate": alternate,
                "nav": self.nav(),
                "pages": {path: {"title": meta.title, "toc": meta.toc} for path, meta in self.page_meta.items()},
            },
            ensure_ascii=False,
        )

    def nav(self) -> list[NavItem]:
        """mkdocs nav: a tab per language, a section per game (pruned navigation keeps pages small).

        With many games, the games of a language are grouped alphabetically into about √n sections
        of about √n games: every page carries the nav around it, so a flat list of n games would make
        each page, and the site engine's work per page, grow with n."""
        nav: list[NavItem] = [nav_item(self.root_title(), "index.md")]
        for reader in self.langs.codes:
            reading = self.r.reading(reader)
            labels = reading.labels
            games = []
            for game in self.r.games():
                if reader not in game["languages"]:
                    continue
                g = game["id"]
                title = reading.text(game["title"])
                items: list[NavItem] = [nav_item(title, f"{reader}/{g}/{GAME_INDEX.md}")]
                items += [nav_item(reading.title(c.id), f"{reader}/{g}/{self.r.page_of[c.id]}") for c in self.kb.chapters_of(g)]
                items += [nav_item(kind.title(labels), f"{reader}/{g}/{kind.md}") for kind in REFERENCE_PAGES]
                if g in self.kb.calculators:
                    items.append(nav_item(CALCULATORS.title(labels), f"{reader}/{g}/{CALCULATORS.md}"))
                games.append((title, nav_item(title, items)))
            games.sort(key=lambda pair: self.langs[reader].collation_key(pair[0]))
            section: list[NavItem] = [nav_item(SECTION_HOME.title(labels), f"{reader}/{SECTION_HOME.md}")]
            section += [entry for _, entry in games] if len(games) <= NAV_FLAT_GAMES else alphabetical_groups(games)
            section.append(nav_item(ALL_CLARIFICATIONS.title(labels), f"{reader}/{ALL_CLARIFICATIONS.md}"))
            nav.append(nav_item(self.langs[reader].name, section))
        return nav


NAV_FLAT_GAMES = 12  # up to this many games a language's nav lists them directly


def nav_item(title: str, target: str | list[NavItem]) -> NavItem:
    """One item of mkdocs' nav: a page or a section. Material prints nav titles as they are, so every
    title, data or interface text alike, is HTML-escaped here and nowhere else."""
    return {str(escape(title)): target}


def alphabetical_groups(games: list[tuple[str, NavItem]]) -> list[NavItem]:
    """(title, nav entry) pairs in title order -> about √n sections named like a dictionary's guide
    words: the first and last titles cut to the shortest length that tells the sections apart
    ("A–C", "D–F"; "Cha–Che", "Chi–Cy" when many titles share a first letter)."""
    size = math.ceil(math.sqrt(len(games)))
    chunks = [games[start : start + size] for start in range(0, len(games), size)]

    def labels(length: int) -> list[str]:
        out = []
        for chunk in chunks:
            first, last = chunk[0][0][:length].strip(), chunk[-1][0][:length].strip()
            out.append(first if first.lower() == last.lower() else f"{first}–{last}")
        return out

    names = next((labels(n) for n in range(1, 17) if len({x.lower() for x in labels(n)}) == len(chunks)), labels(16))
    return [nav_item(name, [entry for _, entry in chunk]) for name, chunk in zip(names, chunks, strict=True)]


def name_standing(term: Term, reader: str) -> str | None:
    """The label saying where a term's name in the reader's language comes from: English by the
    glossary's `english` (a published edition's term, ours, or a guess to check), another language by
    its `status` where its name is not the game's sources' own; None for a name the sources use."""
    if reader == "en":
        return f"english_{term['english']}"
    status = term.get("status", {}).get(reader)
    return f"name_{status}" if status else None
