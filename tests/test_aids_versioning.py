"""Each aid is versioned by its own content (issue 17, point 3): an edit in one game's data lays out
that game's aids again and takes every other aid from the cache (<out>/build/cards-cache/)."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import REPO, run_generator


def cache_folders(out: Path) -> set[str]:
    return {p.name for p in (out / "build" / "cards-cache").iterdir() if p.is_dir()}


def test_editing_one_game_lays_out_only_that_games_aids(bundled_build: Path, tmp_path: Path):
    shutil.copytree(bundled_build / "build" / "cards-cache", tmp_path / "build" / "cards-cache")
    before = cache_folders(tmp_path)
    assert {name.rsplit("-", 1)[0] for name in before} >= {"citow-en", "citow-pl", "citow-ru", "marauders-en", "marauders-ru"}
    data = tmp_path / "data"
    shutil.copytree(REPO / "data", data)
    chapter = (
        data
        / "games/marauders/chapters"
        / next(
            p.name for p in (REPO / "data/games/marauders/chapters").glob("*.yaml") if "id: marauders/end-of-game" in p.read_text(encoding="utf-8")
        )
    )
    text = chapter.read_text(encoding="utf-8")
    title = '        en: "Game end"\n'  # the aid prints the summary's title, not the entry's
    assert title in text, "the test edits the English aid title of marauders/end-of-game"
    chapter.write_text(text.replace(title, title.replace("end", "end (edited)")), encoding="utf-8")
    result = run_generator("build", "--data", str(data), "--out", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    laid_out_again = cache_folders(tmp_path) - before
    assert {name.rsplit("-", 1)[0] for name in laid_out_again} == {"marauders-en"}, laid_out_again
    # The other games' aids are the same files, version and all.
    for game in ("citow", "battlelore", "wizards-quest"):
        for name in (f"{game}-en-sheet.html", f"{game}-en-sheet-a4.pdf"):
            assert (tmp_path / "site/cards" / name).read_bytes() == (bundled_build / "site/cards" / name).read_bytes(), name
    assert (tmp_path / "site/cards/marauders-en-sheet.html").read_bytes() != (bundled_build / "site/cards/marauders-en-sheet.html").read_bytes()
