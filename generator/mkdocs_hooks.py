"""mkdocs hooks for the generated site (mkdocs.yml names this file; `write.run_mkdocs` too).

- Each language section gets its own <html lang>: Material writes the theme's one language
  into every page.
- Memory stays flat as the site grows: mkdocs keeps every page's Markdown and HTML until the
  end of the build; a page's Markdown is dropped once it is HTML, and its HTML once the page
  is written (nothing later reads them: anchors are validated from ids kept separately).
"""
from __future__ import annotations

SECTION_LANGUAGES = ("en", "pl", "ru")


def on_page_content(html, page, config, files):
    page.markdown = None
    return html


def on_post_page(output, page, config):
    section = page.file.src_uri.split("/", 1)[0]
    if section in SECTION_LANGUAGES:
        output = output.replace('<html lang="en"', f'<html lang="{section}"', 1)
    page.content = None
    return output
