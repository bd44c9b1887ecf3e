"""A QR code on each aid (issue 28, point 4): the first item of the sheet and of the cards (so it is on
the first card page) leads to the game's "Changes since your print" page in the aid's language
(site.changes_page), whose address needs the site's public address: mkdocs.yml's `site_url`. The
site may be hosted anywhere, so without a `site_url` no host is invented: the aids carry no QR code
and `build` says so (NO_SITE_URL, on standard output after its summary)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import segno
from markupsafe import Markup
from ruamel.yaml import YAML

from ...base.paths import MKDOCS_CONFIG
from ...resolve.pages import CHANGES

if TYPE_CHECKING:
    from .cards import AidItem  # cards.py imports this module

NO_SITE_URL = "note: the aids carry no QR code: mkdocs.yml has no site_url (the site's public address) to point it at"


def site_url(mkdocs_yml: Path = MKDOCS_CONFIG) -> str | None:
    """mkdocs.yml's `site_url`, ending in "/", or None when it is not set. The file is read as data
    (mkdocs' own `!!python` tags, if any, are not run)."""
    yaml = YAML(typ="safe", pure=True)
    yaml.constructor.add_constructor(None, lambda loader, node: None)  # an unknown tag reads as nothing
    config = yaml.load(mkdocs_yml.read_text(encoding="utf-8")) or {}
    url = config.get("site_url") if isinstance(config, dict) else None
    if not isinstance(url, str) or not url.strip():
        return None
    return url.strip().rstrip("/") + "/"


def section_url(base: str, game: str, lang: str) -> str:
    """The public address of a game's section of the site in one language (its full rules)."""
    return f"{base}{lang}/{game}/"


def changes_url(base: str, game: str, lang: str) -> str:
    """The public address of a game's changes page in one language (site.changes_page writes it)."""
    return f"{section_url(base, game, lang)}{CHANGES.html}"


def qr_svg(url: str) -> Markup:
    """The QR code of `url` as inline SVG (no file fetched), with its quiet zone; error correction M."""
    code = segno.make(url, error="m", micro=False)
    svg = code.svg_inline(scale=1, border=4, dark="#000", light="#fff", omitsize=True)
    return Markup(svg.replace("<svg ", '<svg class="qr" role="img" aria-label="QR" ', 1))


def qr_item(game: str, lang: str, base: str, title: str) -> AidItem:
    """The aid's QR item under its version (`title`): the code and its address in print (for a reader without a
    camera); its card's footer names the game's section by its whole address too. What the version means is said
    on the page it leads to, not on the aid: the item stays small enough for the longest sheet (Chaos in the Old
    World's, two pages full) to keep its pages."""
    url = changes_url(base, game, lang)
    html = Markup('<div class="qr-box">{}<p class="qr-url">{}</p></div>').format(qr_svg(url), url)
    return {
        "id": f"{game}/qr",
        "anchor": "qr",
        "title": title,
        "html": html,
        "fallback": None,
        "questions": [],
        "marks": [],
        "ref": section_url(base, game, lang),
        "colour": None,
        "icon": None,
        "faction": False,
    }
