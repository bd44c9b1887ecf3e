"""Stage 4a, render the site: Markdown pages (one per chapter, with an anchor per entry) per language.

Pages live at <lang>/<game>/<NN-chapter>.md, so every link is computed from that shape.
Output is plain Markdown plus attr_list anchors, admonitions and md_in_html, the standard
Python-Markdown extensions that any engine reading mkdocs.yml understands.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from .labels import LABELS
from .markdown_text import inline, link_terms, render_text, without_tables
from .resolve import LANGUAGE_NAMES, LANGUAGES, Resolved, localised, slug_of

TEMPLATES = Path(__file__).resolve().parent / "templates"
LANGUAGE_SWITCH_NAMES = {"en": "English", "pl": "Polski", "ru": "Русский"}  # each in its own language


def environment(sub: str) -> Environment:
    return Environment(loader=FileSystemLoader(str(TEMPLATES / sub)), undefined=StrictUndefined,
                       keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)


def as_html(markdown_href: str) -> str:
    """A link for raw HTML, which mkdocs does not rewrite: page.md#anchor -> page.html#anchor."""
    path, hash_mark, anchor = markdown_href.partition("#")
    return (path[:-3] + ".html" if path.endswith(".md") else path) + hash_mark + anchor


class SiteRenderer:
    def __init__(self, resolved: Resolved, aid_links: dict):
        self.r = resolved
        self.kb = resolved.kb
        self.env = environment("site")
        self.aid_links = aid_links  # (game, lang) -> cards.AidLinks (paths relative to the site root)
        self._rendered: dict[tuple[str, str, str], tuple[str, frozenset]] = {}  # see text_markdown

    # -- links -----------------------------------------------------------------------------
    def href(self, target_id: str, from_game: str, reader: str | None = None, from_lang: str | None = None) -> str:
        """Relative link from a page <from_lang>/<from_game>/x.md to an entry, chapter or term."""
        game = self.kb.game_of(target_id)
        prefix = "" if game == from_game else f"../{game}/"
        if reader and from_lang and reader != from_lang:
            prefix = f"../../{reader}/{game}/"
        if target_id in self.kb.terms:
            return f"{prefix}glossary.md#term-{target_id.rsplit('/', 1)[1]}"
        if target_id in self.kb.chapters:
            return f"{prefix}{self.r.page_of[target_id]}"
        return f"{prefix}{self.r.page_of[target_id]}#{slug_of(target_id)}"

    def title_of(self, item_id: str, lang: str) -> str:
        item = self.kb.entries.get(item_id) or (self.kb.chapters[item_id].data if item_id in self.kb.chapters else None)
        if item is None:
            term = self.kb.terms[item_id]
            return term["names"].get(lang) or term["names"]["en"]
        return item["title"][self.r.display_language(item, lang)]

    def text_markdown(self, text: str, game: str, lang: str, linked_terms: set[str]) -> str:
        """Entry text as Markdown with links; adds the glossary terms it linked to `linked_terms`.

        The same text is rendered for every reader (its own page and the other languages' "compare"
        panels), so results are kept for the game being rendered (see `pages`)."""
        key = (game, lang, text)
        if not linked_terms and key in self._rendered:
            markdown, linked = self._rendered[key]
            linked_terms.update(linked)
            return markdown
        fresh = not linked_terms
        markdown = self._render_text(text, game, lang, linked_terms)
        if fresh:
            self._rendered[key] = (markdown, frozenset(linked_terms))
        return markdown

    def _render_text(self, text: str, game: str, lang: str, linked_terms: set[str]) -> str:
        matcher = self.r.matchers[(game, lang)]
        return render_text(
            text,
            link_for=lambda ref, label: f"[{inline(label or self.title_of(ref, lang))}]({self.href(ref, game)})",
            term_links=lambda plain: link_terms(plain, matcher.find, lambda t: self.href(t, game), linked_terms),
        )

    # -- pieces ----------------------------------------------------------------------------
    def citation(self, item: dict, reader: str) -> list[str]:
        labels = LABELS[reader]
        parts = []
        for lang, origin in item["origin"].items():
            name = LANGUAGE_NAMES[lang][reader]
            if "source" in origin:
                source = self.kb.sources[origin["source"]]
                parts.append(f"{labels['source']} ({name}): <cite>{inline(source.title)}</cite>, "
                             f"{labels['lines']} {inline(origin['lines'])}")
            elif "translated_from" in origin:
                parts.append(f"{name}: " + labels["translated_from"].format(lang=LANGUAGE_NAMES[origin['translated_from']][reader]))
            else:
                parts.append(f"{name}: {labels['authored']}")
        return parts

    def table_markdown(self, table: dict, lang: str) -> str:
        def cell(value) -> str:
            value = localised(value, lang)
            return "" if value is None else inline(str(value)).replace("|", "\\|")
        columns = table["columns"]
        head = "| " + " | ".join(cell(c["title"]) for c in columns) + " |"
        rule = "|" + "|".join(" --- " for _ in columns) + "|"
        rows = ["| " + " | ".join(cell(row.get(c["key"])) for c in columns) + " |" for row in table["rows"]]
        note = f"\n\n*{cell(table['note'])}*" if "note" in table else ""
        return "\n".join([head, rule, *rows]) + note

    def example_markdown(self, example: dict, lang: str) -> str:
        labels = LABELS[lang]
        inputs = json.dumps(example["inputs"], ensure_ascii=False, indent=1)
        expected = json.dumps(example["expected"], ensure_ascii=False, indent=1)
        return (f"<details class=\"kb-example-data\" markdown=\"1\">\n<summary>{labels['inputs']} → {labels['expected']}</summary>\n\n"
                f"```json\n{inputs}\n```\n\n```json\n{expected}\n```\n\n</details>")

    def clarification_markdown(self, entry: dict, game: str, lang: str) -> str:
        labels = LABELS[lang]
        data = entry["clarification"]
        lines = [f"**{labels['statements']}:**", ""]
        for s in data["statements"]:
            source = self.kb.sources[s["source"]]
            quote = inline(s["quote"])
            # an English rendering helps a reader who does not read the quote's language
            rendering = f" — *{inline(s['en'])}*" if s.get("en") and source.language != lang else ""
            lines.append(f"> «{quote}»{rendering}  \n> — <cite>{inline(source.title)}</cite>, {labels['lines']} {s['lines']}")
            lines.append("")
        status = labels[f"status_{data['status']}"]
        lines.append(f"**{labels['status']}:** {status} · **{labels['basis']}:** {data['basis']}")
        affects = [f"[{inline(self.title_of(a, lang))}]({self.href(a, game)})" for a in data.get("affects", [])]
        if affects:
            lines += ["", f"**{labels['affects']}:** " + " · ".join(affects)]
        return "\n".join(lines)

    def entry_markdown(self, entry: dict, reader: str) -> str:
        game = self.kb.game_of(entry["id"])
        labels = LABELS[reader]
        shown = self.r.display_language(entry, reader)
        linked_terms: set[str] = set()
        fallback = None
        if shown != reader:
            fallback = labels["fallback"].format(shown=LANGUAGE_NAMES[shown][reader])
        others = []
        for lang in LANGUAGES:
            if lang != shown and lang in entry["text"]:
                others.append({
                    "lang": lang, "name": LANGUAGE_NAMES[lang][reader],
                    "href": self.href(entry["id"], game, reader=lang, from_lang=reader) if lang in self.kb.games[game]["languages"] and lang != reader else None,
                    "title": inline(entry["title"][lang]),
                    "text": self.text_markdown(entry["text"][lang], game, lang, set()),
                })
        clarified_by = [{
            "title": inline(self.title_of(c, reader)), "href": self.href(c, game),
            "status": labels[f"status_{self.kb.entries[c]['clarification']['status']}"],
        } for c in self.r.clarifications_of.get(entry["id"], [])]
        corrections = entry.get("corrections", [])
        external = [inline(f"{x['what']} («{x['quote']}»)") for x in entry.get("refs_external", [])]
        view = {
            "id": entry["id"], "anchor": slug_of(entry["id"]), "kind": entry["kind"],
            "title": inline(entry["title"][shown]),
            "fallback_note": fallback,
            "text": self.text_markdown(without_tables(entry["text"][shown]) if "table" in entry else entry["text"][shown],
                                       game, shown, linked_terms),
            "table": self.table_markdown(entry["table"], reader) if "table" in entry and entry["table"].get("shown", True) else None,
            "example": self.example_markdown(entry["example"], reader) if "example" in entry else None,
            "clarification": self.clarification_markdown(entry, game, reader) if "clarification" in entry else None,
            "clarified_by": clarified_by,
            "check": ", ".join(self.r.checks_of.get(entry["id"], [])) or None,
            "see": [f"[{inline(self.title_of(s, reader))}]({self.href(s, game)})" for s in entry.get("see", [])],
            "external": external,
            "citation": self.citation(entry, reader) + ([f"{labels['corrections']}: {len(corrections)}"] if corrections else []),
            "others": others,
            "read_in": [f'<a class="kb-lang" hreflang="{l}" href="{as_html(self.href(entry["id"], game, reader=l, from_lang=reader))}">{n}</a>'
                        for l, n in LANGUAGE_SWITCH_NAMES.items() if l != reader and l in self.kb.games[game]["languages"]],
        }
        return self.env.get_template("entry.md.j2").render(e=view, labels=labels)

    # -- pages -----------------------------------------------------------------------------
    def page(self, template: str, title: str, **context) -> str:
        return self.env.get_template(template).render(title=inline(title), title_attr=json.dumps(title, ensure_ascii=False)[1:-1],
                                                     **context)

    def game_pages(self, game_id: str, reader: str) -> dict[str, str]:
        game = self.kb.games[game_id]
        labels = LABELS[reader]
        pages: dict[str, str] = {}
        chapters = self.kb.chapters_of(game_id)
        for chapter in chapters:
            entries = [self.entry_markdown(self.kb.entries[e], reader) for e in chapter.entry_ids]
            pages[self.r.page_of[chapter.id]] = self.page("chapter.md.j2", self.title_of(chapter.id, reader), entries=entries,
                                                         switch=self.language_switch(game, self.r.page_of[chapter.id], reader))
        entries = self.kb.entries_of(game_id)
        clarifications = [e for e in entries if e["kind"] == "clarification"]
        examples = [e for e in entries if e["kind"] == "example"]
        glance = []
        for entry_id in game.get("at_a_glance", []):
            entry = self.kb.entries[entry_id]
            shown = self.r.display_language(entry, reader)
            glance.append({"title": inline(entry["title"][shown]), "href": self.href(entry_id, game_id),
                           "text": self.text_markdown(entry["text"][shown], game_id, shown, set())})
        game_title = game["title"].get(reader) or game["title"]["en"]
        aids = self.aid_links.get((game_id, reader))
        pages["index.md"] = self.page(
            "game.md.j2", game_title,
            summary=inline(game["summary"].get(reader) or game["summary"]["en"]),
            glance=glance, labels=labels,
            chapters=[{"title": inline(self.title_of(c.id, reader)), "href": self.r.page_of[c.id]} for c in chapters],
            n_terms=len(self.kb.terms_of(game_id)), n_clarifications=len(clarifications), n_examples=len(examples),
            cards=[{"label": label, "href": f"../../{path}"} for label, path in aids.downloads] if aids else [],
            card_preview=f"../../{aids.preview}" if aids else None,
            sources=[{"title": inline(s.title), "language": LANGUAGE_NAMES[s.language][reader], "kind": s.kind,
                      "precedence": s.precedence, "reason": inline(s.precedence_reason)}
                     for s in sorted((self.kb.sources[i] for i in game["sources"]), key=lambda s: s.precedence)],
        )
        pages["glossary.md"] = self.glossary_page(game_id, reader)
        pages["clarifications.md"] = self.list_page(labels["clarifications"] + f" — {game_title}", [
            {"title": None, "items": [self.clarification_item(c, game_id, reader) for c in clarifications]}])
        pages["examples.md"] = self.list_page(labels["examples"] + f" — {game_title}", [
            {"title": None, "items": [{"title": inline(self.title_of(e["id"], reader)), "href": self.href(e["id"], game_id), "note": None}
                                      for e in examples]}])
        return pages

    @staticmethod
    def language_switch(game: dict, page: str, reader: str) -> list[str]:
        """Links to the same page in the game's other languages; kb-search.js keeps the #anchor."""
        names = LANGUAGE_SWITCH_NAMES
        return [f"<strong>{names[l]}</strong>" if l == reader else f'<a class="kb-lang" hreflang="{l}" href="../../{l}/{game["id"]}/{page[:-3]}.html">{names[l]}</a>'
                for l in LANGUAGES if l in game["languages"]]

    def clarification_item(self, entry: dict, from_game: str, reader: str) -> dict:
        labels = LABELS[reader]
        data = entry["clarification"]
        return {"title": inline(self.title_of(entry["id"], reader)), "href": self.href(entry["id"], from_game),
                "note": labels[f"status_{data['status']}"]}

    def list_page(self, title: str, groups: list[dict]) -> str:
        return self.page("list.md.j2", title, groups=groups)

    def glossary_page(self, game_id: str, reader: str) -> str:
        labels = LABELS[reader]
        terms = []
        for term in self.kb.terms_of(game_id):
            name_lang = reader if reader in term["names"] else "en"
            others = [f"{LANGUAGE_NAMES[l][reader]}: **{inline(term['names'][l])}**"
                      for l in LANGUAGES if l != name_lang and l in term["names"]]
            variants = sorted({v for l in LANGUAGES for v in term.get("variants", {}).get(l, [])})
            english_note = {"ours": labels["english_ours"], "uncertain": labels["english_uncertain"]}.get(term["english"])
            terms.append({
                "name": inline(term["names"][name_lang]), "sort": term["names"][name_lang].lower(),
                "anchor": "term-" + term["id"].rsplit("/", 1)[1], "others": others,
                "english_note": english_note, "variants": inline(", ".join(variants)) if variants else None,
                "definition": (f"[{inline(self.title_of(term['definition'], reader))}]({self.href(term['definition'], game_id)})"
                               if "definition" in term else None),
            })
        terms.sort(key=lambda t: t["sort"])
        game_title = self.kb.games[game_id]["title"].get(reader) or self.kb.games[game_id]["title"]["en"]
        return self.page("glossary.md.j2", f"{labels['glossary']} — {game_title}", terms=terms, labels=labels)

    def language_pages(self, reader: str):
        """(path under the language folder, Markdown) of a language's home and cross-game pages."""
        labels = LABELS[reader]
        games = [g for g in self.r.games() if reader in g["languages"]]
        yield "index.md", self.page(
            "home.md.j2", labels["home"], labels=labels, clarifications_href="clarifications.md",
            games=[{"title": inline(g["title"].get(reader) or g["title"]["en"]), "href": f"{g['id']}/index.md",
                    "summary": inline(g["summary"].get(reader) or g["summary"]["en"])} for g in games])
        groups = []
        for game in games:
            clarifications = [e for e in self.kb.entries_of(game["id"]) if e["kind"] == "clarification"]
            items = [self.clarification_item(e, "", reader) for e in clarifications]
            for item, entry in zip(items, clarifications):
                item["href"] = f"{game['id']}/{self.r.page_of[entry['id']]}#{slug_of(entry['id'])}"
            groups.append({"title": inline(game["title"].get(reader) or game["title"]["en"]), "items": items})
        yield "clarifications.md", self.list_page(labels["all_clarifications"], groups)

    def pages(self):
        """(path under the docs folder, Markdown) for every page, generated one game at a time:
        a large corpus never holds all its pages in memory (write them as they come), and each
        text is rendered once for all readers of its game."""
        yield "index.md", self.env.get_template("root.md.j2").render()
        for game in self.r.games():
            self._rendered.clear()
            for reader in (lang for lang in LANGUAGES if lang in game["languages"]):
                for name, content in self.game_pages(game["id"], reader).items():
                    yield f"{reader}/{game['id']}/{name}", content
        self._rendered.clear()
        for reader in LANGUAGES:
            for name, content in self.language_pages(reader):
                yield f"{reader}/{name}", content

    def nav(self) -> list:
        """mkdocs nav: a tab per language, a section per game (pruned navigation keeps pages small).

        With many games, the games of a language are grouped alphabetically into about √n sections
        of about √n games: every page carries the nav around it, so a flat list of n games would make
        each page, and the site engine's work per page, grow with n."""
        nav: list = [{"Home": "index.md"}]
        names = {"en": "English", "pl": "Polski", "ru": "Русский"}
        for reader in LANGUAGES:
            labels = LABELS[reader]
            games = []
            for game in self.r.games():
                if reader not in game["languages"]:
                    continue
                g = game["id"]
                title = game["title"].get(reader) or game["title"]["en"]
                items: list = [{title: f"{reader}/{g}/index.md"}]
                items += [{self.title_of(c.id, reader): f"{reader}/{g}/{self.r.page_of[c.id]}"} for c in self.kb.chapters_of(g)]
                items += [{labels["glossary"]: f"{reader}/{g}/glossary.md"},
                          {labels["clarifications"]: f"{reader}/{g}/clarifications.md"},
                          {labels["examples"]: f"{reader}/{g}/examples.md"}]
                games.append((title, {title: items}))
            games.sort(key=lambda pair: pair[0].lower())
            section: list = [{labels["home"]: f"{reader}/index.md"}]
            section += [entry for _, entry in games] if len(games) <= NAV_FLAT_GAMES else alphabetical_groups(games)
            section.append({labels["all_clarifications"]: f"{reader}/clarifications.md"})
            nav.append({names[reader]: section})
        return nav


NAV_FLAT_GAMES = 12  # up to this many games a language's nav lists them directly


def alphabetical_groups(games: list[tuple[str, dict]]) -> list[dict]:
    """(title, nav entry) pairs in title order -> about √n sections named like a dictionary's guide
    words: the first and last titles cut to the shortest length that tells the sections apart
    ("A–C", "D–F"; "Cha–Che", "Chi–Cy" when many titles share a first letter)."""
    size = math.ceil(math.sqrt(len(games)))
    chunks = [games[start:start + size] for start in range(0, len(games), size)]

    def labels(length: int) -> list[str]:
        out = []
        for chunk in chunks:
            first, last = chunk[0][0][:length].strip(), chunk[-1][0][:length].strip()
            out.append(first if first.lower() == last.lower() else f"{first}–{last}")
        return out

    names = next((labels(n) for n in range(1, 17) if len({x.lower() for x in labels(n)}) == len(chunks)), labels(16))
    return [{name: [entry for _, entry in chunk]} for name, chunk in zip(names, chunks)]
