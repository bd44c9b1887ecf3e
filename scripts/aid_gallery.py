"""Every page of every player aid as PNG, to look at them all (issue 16): every game and language,
the sheet and the cards, A4 (and US Letter with --letter), one PNG a page in colour, with an
index.html that shows them side by side.

    .venv/bin/python scripts/aid_gallery.py [--letter] [--out build/aid-gallery]
    .venv/bin/python scripts/aid_gallery.py --preview citow-en-sheet-a4 1 docs/screenshots/aid-citow-en-sheet-a4-p1.png

It prints issue 28's targets for each aid: type sizes, footers' distance from the cut, card face use and column
fill (read from the PDFs), the play checklist's entries on the aid, and open-question marks a sheet page.

The aids are laid out from data/ as `build` lays them out (taken from build/cards-cache/ when their
HTML has not changed), so the gallery needs no built site. `--preview NAME PAGE FILE` writes one
page as a small committed preview (palette PNG, a fraction of the gallery's size) for the README.
"""

from __future__ import annotations

import argparse
import html
import io
import sys
from pathlib import Path

import pypdfium2

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from generator.render.aids.aid_measure import FULL_FACE, measure_cards, measure_sheet  # noqa: E402
from generator.render.aids.cards import SHEETS, start_aids  # noqa: E402
from generator.resolve.resolve import Resolved, resolve  # noqa: E402
from generator.validate.validate import aid_entries, load_valid  # noqa: E402

GALLERY_SCALE = 100 / 72  # 100 dpi: every word readable
PREVIEW_SCALE = 0.9  # about 65 dpi: the layout at a glance, under ~150 KB


def aid_files(resolved: Resolved) -> dict[str, bytes]:
    """Name under cards/ (e.g. "citow-en-sheet-a4.pdf") -> content, of every aid."""
    return dict(start_aids(resolved, cache=REPO / "build" / "cards-cache").files())


def aid_pdfs(files: dict[str, bytes], papers: list[str]) -> dict[str, bytes]:
    """Name (e.g. "citow-en-sheet-a4") -> PDF of every aid on the given papers."""
    suffixes = tuple(f"-{paper}.pdf" for paper in papers)
    return {name.removesuffix(".pdf"): content for name, content in files.items() if name.endswith(suffixes)}


def checklist_coverage(resolved: Resolved, game: str) -> tuple[int, int]:
    """(entries of the game's play checklist its aid prints, entries on the checklist), as validate reads the aid (E070)."""
    aid = resolved.kb.aids[game]
    listed = {ref for refs in aid.get("checklist", {}).values() for ref in refs}
    return len(listed & aid_entries(aid)), len(listed)


def page_pngs(pdf: bytes, scale: float, colours: int | None = None) -> list[bytes]:
    """Every page of `pdf` as PNG, in colour (or reduced to a palette of `colours`)."""
    pngs = []
    for page in pypdfium2.PdfDocument(pdf):
        image = page.render(scale=scale).to_pil()
        if colours:
            image = image.quantize(colours)
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=True)
        pngs.append(out.getvalue())
    return pngs


def write_gallery(pdfs: dict[str, bytes], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    written, figures = [], []
    for name in sorted(pdfs):
        for number, png in enumerate(page_pngs(pdfs[name], GALLERY_SCALE), 1):
            path = out / f"{name}-p{number}.png"
            path.write_bytes(png)
            written.append(path)
            figures.append(
                f'<figure><a href="{html.escape(path.name)}"><img src="{html.escape(path.name)}" loading="lazy" '
                f'alt=""></a><figcaption>{html.escape(name)} · {number}</figcaption></figure>'
            )
    (out / "index.html").write_text(
        "<!doctype html><meta charset='utf-8'><title>Player aids: every page</title>"
        "<style>body{font-family:sans-serif;display:flex;flex-wrap:wrap;gap:12px}figure{margin:0;width:300px}"
        "img{width:100%;border:1px solid #999}</style>\n" + "\n".join(figures) + "\n",
        encoding="utf-8",
    )
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--letter", action="store_true", help="US Letter too (A4 only by default)")
    parser.add_argument("--out", type=Path, default=REPO / "build" / "aid-gallery")
    parser.add_argument("--preview", nargs=3, metavar=("NAME", "PAGE", "FILE"), help="write one page as a small preview")
    args = parser.parse_args()
    papers = list(SHEETS) if args.letter else ["a4"]
    if args.preview:
        name, page, file = args.preview
        pdf = aid_pdfs(aid_files(resolve(load_valid(REPO / "data"))), [name.rsplit("-", 1)[1]])[name]
        Path(file).write_bytes(page_pngs(pdf, PREVIEW_SCALE, colours=64)[int(page) - 1])
        print(f"{file}: {Path(file).stat().st_size // 1024} KB")
        return 0
    resolved = resolve(load_valid(REPO / "data"))
    files = aid_files(resolved)
    pdfs = aid_pdfs(files, papers)
    written = write_gallery(pdfs, args.out)
    print(f"{len(written)} pages in {args.out} (index.html shows them all)")
    for name in sorted(pdfs):
        print(figures(name, pdfs[name]))
    for game in sorted(resolved.kb.aids):
        covered, listed = checklist_coverage(resolved, game)
        print(f"{game}: play checklist {covered} of {listed} entries on the aid ({covered / listed:.0%})")
    for name in sorted(name for name in files if name.endswith("-sheet.html")):
        aid = name.removesuffix("-sheet.html")
        marks, pages = files[name].decode("utf-8").count('<sup class="mark">'), measure_sheet(pdfs[f"{aid}-sheet-a4"], "a4").pages
        print(f"{aid}-sheet: {marks} open-question marks on {pages} page(s), {marks / pages:.1f} a page")
    return 0


def figures(name: str, pdf: bytes) -> str:
    """One aid's measures as a printer sees them (issue 28's targets: body type at least 8 pt, no type under
    6 pt, no table's type under 7 pt, footers at least 4 mm inside the cut, card faces at least 60 % used, columns full but on the last page)."""
    paper = name.rsplit("-", 1)[1]
    if "-cards-" in name:
        cards = measure_cards(pdf, paper)
        return (
            f"{name}: {cards.cards} cards, body {cards.body_type} pt, smallest type {cards.smallest_type} pt, "
            f"in tables {cards.table_type or '-'} pt, "
            f"footers {cards.footer_to_cut} mm inside "
            f"the cut ({cards.footers_within_4mm} under 4 mm), other text {cards.nearest_to_cut} mm, "
            f"face use median {cards.median_face_use:.0%} ({cards.faces_under()} cards under {FULL_FACE:.0%})"
        )
    sheet = measure_sheet(pdf, paper)
    fill = " | ".join(" ".join(f"{f:.0%}" for f in page) for page in sheet.column_fill)
    return (
        f"{name}: {sheet.pages} page(s), body {sheet.body_type} pt, smallest type {sheet.smallest_type} pt, "
        f"in tables {sheet.table_type or '-'} pt, column fill {fill}"
    )


if __name__ == "__main__":
    sys.exit(main())
