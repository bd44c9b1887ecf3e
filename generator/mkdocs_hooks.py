"""mkdocs hooks for the generated site (`write.run_mkdocs` names this file).

- Navigation, page titles and tables of contents come from `kb-site.json` beside the generated
  mkdocs.yml (written by the site renderer), already HTML-escaped: Material prints `nav_item.title`
  and `page.meta.title` as they are, so data text must not reach them any other way. Keeping them
  out of YAML also means a title of any length or character cannot break the configuration file.
- Each language section gets Material's chrome in its language and its own <html lang>: the theme
  language is set per page from the language definitions (data/languages/<code>/language.yaml).
- Memory stays flat as the site grows: mkdocs keeps every page's Markdown and HTML until the
  end of the build; a page's Markdown is dropped once it is HTML, and its HTML once the page
  is written (nothing later reads them: anchors are validated from ids kept separately).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mkdocs.structure.toc import get_toc

SITE_META = "kb-site.json"
_pages: dict[str, dict] = {}
_sections: dict[str, dict] = {}  # language section -> {theme: Material's language, site_name} (data/languages/)
_defaults: dict[str, Any] = {}   # the root pages' theme language and site name (mkdocs.yml)


def on_config(config):
    meta = json.loads((Path(config.config_file_path).parent / SITE_META).read_text(encoding="utf-8"))
    _pages.clear()
    _pages.update(meta["pages"])
    _sections.clear()
    _sections.update(meta["sections"])
    _defaults.update(theme=config.theme["language"], site_name=config.site_name,
                     toggles=[palette["toggle"]["name"] for palette in config.theme["palette"]])
    config.nav = meta["nav"]
    # Material's header language selector (and <link rel="alternate" hreflang> in every head);
    # kb-search.js makes a choice land on the same page and entry of the other section.
    config.extra["alternate"] = meta["alternate"]
    config.extra["kb_sections"] = list(meta["sections"])  # main.html links their web app manifests
    return config


def on_page_markdown(markdown, page, config, files):
    meta = _pages.get(page.file.src_uri)
    if meta is not None:
        page.meta["title"] = meta["title"]
    return markdown


def on_page_context(context, page, config, nav):
    """Material's chrome in the section's language ("Skip to content", "Back to top", aria-labels and
    <html lang>): its templates read config.theme.language when each page is rendered."""
    section = _sections.get(page.file.src_uri.split("/", 1)[0], _defaults)
    config.theme["language"] = section["theme"]
    config.site_name = section["site_name"]
    for palette, name in zip(config.theme["palette"], section["toggles"], strict=True):
        palette["toggle"]["name"] = name  # printed unescaped by Material: escaped by the generator
    return context


def on_page_content(html, page, config, files):
    meta = _pages.get(page.file.src_uri)
    if meta is not None:
        page.toc = get_toc([{"level": 2, "id": anchor, "name": title, "children": []} for anchor, title in meta["toc"]])
    page.markdown = None
    return html


def on_post_page(output, page, config):
    page.content = None
    return output
