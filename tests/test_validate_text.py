"""The text checks of validate (generator/validate/validate_text.py): source-language text against its cited
lines (E050), declared corrections against the text (E051), working notes in published text (E052)."""

import hashlib
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, MINI, bundled_validated

from generator.validate.validate import validate

CHAPTER = "games/mini/chapters/10-rules.yaml"


def problems_of(data: Path) -> list[tuple[str, str, int, int, str]]:
    _, problems = validate(data)
    return [(Path(p.path).name, p.code, p.line, p.col, p.message) for p in sorted(problems.items)]


def edit(data: Path, old: str, new: str, path: str = CHAPTER) -> None:
    file = data / path
    text = file.read_text(encoding="utf-8")
    assert old in text, old
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.unit
@pytest.mark.parametrize(
    "code, line, col, message",
    [
        ("E050", 14, 11, "the pl text differs from mini-pl lines 3-5 without a recorded correction: source «własnej», text «swojej»"),
        ("E051", 26, 51, "the pl title and text do not apply the correction 'ignoruje 1 odwrót' → 'ignoruje jeden odwrót'"),
        ("E052", 27, 11, "working note «TODO» in published text (text.en)"),
    ],
)
def test_failing_fixture_gives_exactly_its_problem(code, line, col, message, tmp_path: Path):
    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    shutil.copytree(FIXTURES / "invalid" / code / "data", data, dirs_exist_ok=True)
    assert problems_of(data) == [("10-rules.yaml", code, line, col, message)]


@pytest.mark.unit
def test_bundled_data_has_no_text_findings():
    _, problems = bundled_validated()
    assert [p.format() for p in problems.items if p.code in ("E050", "E051", "E052")] == []


@pytest.mark.unit
def test_mini_data_is_clean_with_its_heading_lines(mini_data: Path):
    """The mini entries cite their '## heading' lines and leave them to the title: allowed."""
    assert problems_of(mini_data) == []


@pytest.mark.unit
def test_recorded_correction_makes_a_repair_legal(mini_data: Path):
    edit(mini_data, "w stronę własnej krawędzi", "w stronę swojej krawędzi")
    assert [p[1] for p in problems_of(mini_data)] == ["E050"]
    edit(mini_data, "    see: [mini/support]", "    see: [mini/support]\n    corrections:\n      - {lang: pl, from: własnej, to: swojej, note: test}")
    assert problems_of(mini_data) == []


@pytest.mark.unit
def test_added_step_numbers_and_page_words_are_reported(mini_data: Path):
    """The two kinds the proofreading found: numbers a list adds, words an index adds («стр.»)."""
    edit(mini_data, "pl: Oddział, który musi", "pl: 1. Oddział, który musi")
    edit(mini_data, "ru: Отряд, который должен отступить, отходит", "ru: Отряд, который должен отступить, стр. отходит")
    found = [p for p in problems_of(mini_data) if p[1] == "E050"]  # the added "1" also makes E030
    assert [(p[1], p[2]) for p in found] == [("E050", 14), ("E050", 15)]
    assert "source «—», text «1»" in found[0][4]
    assert "source «—», text «стр»" in found[1][4]


@pytest.mark.unit
def test_whitespace_line_joins_and_list_markers_are_normalised(mini_data: Path):
    source = mini_data / "sources" / "mini_ru.txt"
    source.write_text(
        "Правила игры Мини\n\nОтступление\no Отряд, который должен отсту-\nпить, отходит на 1 клетку к своему краю поля.\n", encoding="utf-8"
    )
    edit(
        mini_data,
        "sha256: f51dd5e16ad3347dcee2bf8165020322aa02cfd2a750c3694623225d559f2418",
        "sha256: " + hashlib.sha256(source.read_bytes()).hexdigest(),
        path="sources/manifest.yaml",
    )
    edit(mini_data, "ru: Отряд, который должен отступить, отходит", "ru: |\n        - Отряд,   который должен отступить,\n        отходит")
    assert problems_of(mini_data) == []


@pytest.mark.unit
def test_a_dropped_sentence_is_reported(mini_data: Path):
    edit(mini_data, "pl: Oddział sąsiadujący z 2 innymi oddziałami ignoruje", "pl: Oddział sąsiadujący z 2 ignoruje")
    found = problems_of(mini_data)
    assert [(p[1], p[2], p[3]) for p in found] == [("E050", 26, 11)]
    assert "source «innymi oddziałami», text «—»" in found[0][4]


@pytest.mark.unit
@pytest.mark.parametrize("note", ["(rozdział pomocnika D)", "(глава помощника D)", "FIXME", "see the helper's chapter", "written in session 4"])
def test_working_notes_in_any_language_are_reported(note: str, mini_data: Path):
    edit(mini_data, "**Resolution:** as written.", f"**Resolution:** as written {note}.")
    found = problems_of(mini_data)
    assert [(p[1], p[2]) for p in found] == [("E052", 35)]


@pytest.mark.unit
def test_working_note_in_a_glossary_note_is_reported(mini_data: Path):
    edit(
        mini_data,
        "    english: ours\n    definition: mini/retreat",
        "    english: ours\n    note: TODO check the printed rulebook\n    definition: mini/retreat",
        path="games/mini/glossary.yaml",
    )
    found = problems_of(mini_data)
    assert [(p[0], p[1], p[2]) for p in found] == [("glossary.yaml", "E052", 6)]
