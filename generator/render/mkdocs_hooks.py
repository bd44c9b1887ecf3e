"""mkdocs hooks for the generated site (`write/engine.py`'s `run_mkdocs` names this file).

- Navigation, page titles and tables of contents come from `kb-site.json` beside the generated
  mkdocs.yml (written by the site renderer), already HTML-escaped: Material prints `nav_item.title`
  and `page.meta.title` as they are, so data text must not reach them any other way. Keeping them
  out of YAML also means a title of any length or character cannot break the configuration file.
- Each language section gets Material's chrome in its language and its own <html lang>: the theme
  language is set per page from the language definitions (data/languages/<code>/language.yaml).
- "Page not found" in every language: the root 404.html says it in all of them, and each section
  gets its own <lang>/404.html in its language, built like Material's 404 (site-absolute links).
- Pages are written without the indentation of Material's templates (`squeezed`): a seventh of the median page's
  bytes was whitespace at tags, which a browser shows as one space or not at all.
- Memory stays flat as the site grows: mkdocs reads and converts every page before it renders the
  first, and keeps its Markdown and HTML until the end of the build; a generated page's file is
  read only when the page is rendered, and its HTML dropped once the page is written (nothing
  later reads them: anchors are validated from ids kept separately).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment
from mkdocs.commands.build import get_context
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc
from mkdocs.utils import write_file
from mkdocs.utils.templates import TemplateContext

# base/jsontypes.JSONObject, written again: mkdocs loads this file on its own, not as part of the package
JSONObject = dict[str, Any]  # a mapping of loaded JSON (kb-site.json)

SITE_META = "kb-site.json"
_pages: dict[str, JSONObject] = {}  # page -> {title, toc} (kb-site.json)
_sections: dict[str, JSONObject] = {}  # language section -> {theme: Material's language, site_name} (data/languages/)
_defaults: dict[str, Any] = {}  # the root pages' theme language and site name (mkdocs.yml)
built: dict[str, Any] = {}  # the theme's template environment, files and nav: for the sections' 404 pages,
# and for engine.LiveEngine, which renders single pages again with them


class NotFoundContext(TemplateContext, total=False):
    """A template's context, and on a 404 page "not found" in each language (the theme's 404.html reads it)."""

    kb_not_found: list[dict[str, str]]  # {code, and the section's not_found words}


def read_site_meta(config: MkDocsConfig) -> JSONObject:
    """Read kb-site.json: keep every page's title and table of contents, return all of it."""
    meta: JSONObject = json.loads((Path(config.config_file_path).parent / SITE_META).read_text(encoding="utf-8"))
    _pages.clear()
    _pages.update(meta["pages"])
    return meta


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    meta = read_site_meta(config)
    _sections.clear()
    _sections.update(meta["sections"])
    _defaults.update(
        theme=config.theme["language"], site_name=config.site_name, toggles=[palette["toggle"]["name"] for palette in config.theme["palette"]]
    )
    config.nav = meta["nav"]
    # Material's header language selector (and <link rel="alternate" hreflang> in every head);
    # kb-search.js makes a choice land on the same page and entry of the other section.
    config.extra["alternate"] = meta["alternate"]
    config.extra["kb_sections"] = list(meta["sections"])  # main.html links their web app manifests
    return config


def on_page_read_source(page: Page, config: MkDocsConfig) -> str | None:
    """A generated page's "Markdown" is its HTML already (site.py), which Markdown would only parse to
    pass through untouched (most of the site engine's time): Markdown gets nothing, and the file is
    read when the page is rendered into its template (`on_page_context`). mkdocs makes every
    page's content before it renders the first page, and keeps it until then: at 100× the data
    the site engine held every page's HTML at once, 1.9 GB."""
    return "" if page.file.src_uri in _pages else None


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    meta = _pages.get(page.file.src_uri)
    if meta is not None:
        page.meta["title"] = meta["title"]
    return markdown


def on_page_context(context: TemplateContext, page: Page, config: MkDocsConfig, nav: Navigation) -> TemplateContext:
    """The page's HTML, read from its file now (see on_page_read_source); Material's chrome in the
    section's language ("Skip to content", "Back to top", aria-labels and <html lang>): its
    templates read config.theme.language when each page is rendered."""
    if page.file.src_uri in _pages:
        page.content = page.file.content_string.strip()  # as Markdown would give it back
    _use_section(config, _sections.get(page.file.src_uri.split("/", 1)[0], _defaults))
    return context


def _use_section(config: MkDocsConfig, section: Mapping[str, Any]) -> None:
    config.theme["language"] = section["theme"]
    config.site_name = section["site_name"]
    for palette, name in zip(config.theme["palette"], section["toggles"], strict=True):
        palette["toggle"]["name"] = name  # printed unescaped by Material: escaped by the generator


def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    built.update(env=env, files=files)
    return env


def on_nav(nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
    built["nav"] = nav
    return nav


def on_template_context(context: NotFoundContext, template_name: str, config: MkDocsConfig) -> NotFoundContext:
    """The root 404 page says "not found" in every language, the default one first."""
    if template_name == "404.html":
        _use_section(config, _defaults)
        default = next((code for code, s in _sections.items() if s["theme"] == _defaults["theme"]), None)
        order = sorted(_sections, key=lambda code: code != default)
        context["kb_not_found"] = [{"code": code, **_sections[code]["not_found"]} for code in order]
    return context


def on_post_build(config: MkDocsConfig) -> None:
    """Each section's own 404 page, in its language (a server can show it for missing pages under /<lang>/)."""
    template = built["env"].get_template("404.html")
    base_url = urlsplit(config.site_url or "/").path  # as mkdocs does for its error pages
    for code, section in _sections.items():
        _use_section(config, section)
        context = {**get_context(built["nav"], built["files"], config, base_url=base_url), "kb_not_found": [{"code": code, **section["not_found"]}]}
        write_file(squeezed(template.render(context)).encode("utf-8"), str(Path(config.site_dir) / code / "404.html"))
    _use_section(config, _defaults)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    meta = _pages.get(page.file.src_uri)
    if meta is not None:
        html = ""  # made when the page is rendered (on_page_context)
        page.toc = get_toc([{"level": 2, "id": anchor, "name": title, "children": []} for anchor, title in meta["toc"]])
    page.markdown = None
    return html


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    page.content = None
    return squeezed(output)


def on_post_template(output: str, template_name: str, config: MkDocsConfig) -> str:
    """The root 404 page squeezed as the others are (the sitemap is left as mkdocs writes it)."""
    return squeezed(output) if template_name == "404.html" else output


KEPT_AS_WRITTEN = re.compile(r"<(pre|textarea|script|style|code)\b.*?</\1\s*>|<!--.*?-->", re.S | re.I)  # whitespace shown, or code
_AFTER_TAG = re.compile(r">[ \t\r\f]*\n\s*")  # a run after a tag's end that holds a line break
_BEFORE_TAG = re.compile(r"\n\s*<")  # a run before a tag's start, from a line break on


def squeezed(html: str) -> str:
    """`html` with each run of whitespace that holds a line break and ends or starts at a tag as one line break, but
    in pre, textarea, script, style, code and comments. A browser shows such a run as one space (or nothing, between
    blocks) whatever it holds, so the page looks the same; Material's templates indent deeply (the bundled site's
    median page: 66.9 KB, 57.3 KB squeezed). Attribute values keep their whitespace: the data's text reaches them
    escaped (base/escaping.py), so a ">" in one is "&gt;", and a run after it is not after a tag's end."""
    return outside_kept(html, lambda text: _BEFORE_TAG.sub("\n<", _AFTER_TAG.sub(">\n", text)))


def outside_kept(html: str, change: Callable[[str], str]) -> str:
    """`html` with `change` made to each stretch of it outside KEPT_AS_WRITTEN; those are left as they are."""
    parts, at = [], 0
    for kept in KEPT_AS_WRITTEN.finditer(html):
        parts += [change(html[at : kept.start()]), kept.group(0)]
        at = kept.end()
    parts.append(change(html[at:]))
    return "".join(parts)
