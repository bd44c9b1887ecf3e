"""Loading YAML from the C parser's events, positions read back only for problems, and the glossary
term matcher: what the faster code paths must keep doing."""

from pathlib import Path

import pytest

from generator.base.problems import Problems
from generator.base.termmatch import term_matcher
from generator.load.yamlio import Positions, load_yaml

pytestmark = pytest.mark.unit


def loaded(tmp_path: Path, text: str):
    path = tmp_path / "doc.yaml"
    path.write_text(text, encoding="utf-8")
    problems = Problems()
    return load_yaml(path, "doc.yaml", problems), [(p.code, p.line, p.col) for p in problems.items], path


def test_plain_scalars_follow_the_yaml_1_2_core_schema(tmp_path: Path):
    data, problems, _ = loaded(
        tmp_path,
        ("a: 12\nb: -3\nc: 1.5\nd: true\ne: False\nf: ~\ng:\nh: yes\ni: on\nj: '7'\nk: 2009-03-01\nl: !!str 5\nm: .inf\nn: Нет\no: \"null\"\n"),
    )
    assert problems == []
    assert data == {
        "a": 12,
        "b": -3,
        "c": 1.5,
        "d": True,
        "e": False,
        "f": None,
        "g": None,
        "h": "yes",
        "i": "on",
        "j": "7",
        "k": "2009-03-01",
        "l": "5",
        "m": float("inf"),
        "n": "Нет",
        "o": "null",
    }
    assert type(data) is dict and type(data["a"]) is int


def test_nesting_and_block_scalars(tmp_path: Path):
    data, problems, _ = loaded(tmp_path, "x:\n  - {a: 1, b: [2, 3]}\n  - |\n    two\n    lines\n")
    assert problems == [] and data == {"x": [{"a": 1, "b": [2, 3]}, "two\nlines\n"]}


@pytest.mark.parametrize(
    "text, code, line, col",
    [
        ("a: 1\nb: 2\na: 3\n", "E002", 3, 1),
        ("a: &anchor 1\n", "E005", 1, 4),
        ("a: [1, 2]\nb: *x\n", "E005", 2, 4),  # an alias, even to nothing, is refused
        ("a: 1\n---\nb: 2\n", "E001", 2, 1),
        ("a: !!python/object 1\n", "E001", 1, 4),
        ("a: !!int x\n", "E001", 1, 4),
        ("? [1, 2]\n: 3\n", "E001", 1, 3),
        ("a: [1\nb: 2\n", "E001", 1, 4),  # a [ left open: at the [, not where the parser stopped (2:2)
        ("a: b: c\n", "E001", 1, 5),  # an unquoted colon in a value
        ("a:\n  b: 1\n  c:\n  b: 2\n", "E007", 4, 3),  # 'c:' left empty, what belongs under it not indented
        ("a:\n  b: 1\n    c: 2\n", "E007", 3, 6),  # a key deeper than its sibling
        ("a:\n  b: 1\n c: 2\n", "E007", 3, 2),  # a key aligned with nothing
        ("a: 1234567890123456\n", "E016", 1, 4),
        ("a: " + "[" * 40 + "]" * 40 + "\n", "E015", 1, 43),
        ("a: 1\nb: x\x00y\n", "E084", 2, 5),  # a NUL byte: at its line and column, not 1:1 "position 9"
        ('a: é\r\nb: "ok\x1b[2J"\n', "E084", 2, 7),  # a control character inside quotes
        ("a: 1\n# note \x07\n", "E084", 2, 8),  # even in a comment
    ],
)
def test_problems_carry_code_and_position(tmp_path: Path, text: str, code: str, line: int, col: int):
    data, problems, _ = loaded(tmp_path, text)
    assert data is None
    assert problems == [(code, line, col)]


def test_keys_are_strings_as_written(tmp_path: Path):
    data, problems, _ = loaded(tmp_path, "1: x\ntrue: y\n~: z\n")
    assert problems == [] and data == {"1": "x", "true": "y", "~": "z"}


def test_positions_survive_a_tab_after_a_flow_mapping(tmp_path: Path):
    """The round-trip parser used for positions once disagreed with the C parser here (a traceback)."""
    data, problems, path = loaded(tmp_path, "a: {b: 1}\t\nc:\n  - d: 2\n")
    assert problems == [] and data == {"a": {"b": 1}, "c": [{"d": 2}]}
    assert Positions(path).of(["c", 0, "d"]) == (3, 8)
    assert Positions(path).of_key(["c", 0], "d") == (3, 5)


def test_a_file_over_the_size_limit_is_not_read(tmp_path: Path, monkeypatch):
    import generator.load.yamlio as yamlio

    monkeypatch.setattr(yamlio, "MAX_FILE_BYTES", 100)
    data, problems, _ = loaded(tmp_path, "a: " + "x" * 200 + "\n")
    assert data is None and problems == [("E010", 1, 1)]


def test_a_duplicate_key_names_the_first_one():
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "doc.yaml"
        path.write_text("entries:\n  - id: a\n    kind: rule\n    kind: table\n", encoding="utf-8")
        problems = Problems()
        assert load_yaml(path, "doc.yaml", problems) is None
    [problem] = problems.items
    assert (problem.code, problem.line, problem.col) == ("E002", 4, 5)
    assert problem.message == 'duplicate key "kind" (first at line 3)'


def test_positions_are_read_back_from_the_file(tmp_path: Path):
    data, problems, path = loaded(tmp_path, "top:\n  items:\n    - id: one\n      colour: red\n    - id: two\n")
    assert problems == []
    positions = Positions(path)
    assert positions.of(["top", "items", 1]) == (5, 7)
    assert positions.of(["top", "items", 0, "id"]) == (3, 11)
    assert positions.of_key(["top", "items", 0], "colour") == (4, 7)
    assert positions.of(["top", "items", 7, "id"]) == (2, 3)  # the nearest parent that exists


def test_term_matcher_longest_form_first_whole_words_and_punctuation():
    terms = [
        {"id": "g/term/region", "names": {"en": "region"}, "forms": {"en": ["regions"]}},
        {"id": "g/term/ruined", "names": {"en": "ruined region"}},
        {"id": "g/term/victory", "names": {"en": "Victory!"}},
        {"id": "g/term/shot", "names": {"ru": "«Выстрел»"}, "variants": {"ru": ["выстрел"]}},
    ]
    en = term_matcher(terms, "en")
    text = "A Ruined Region, two regions, subregion, victory and Victory! here."
    assert [(text[s:e], t) for s, e, t in en.find(text)] == [
        ("Ruined Region", "g/term/ruined"),
        ("regions", "g/term/region"),
        ("Victory!", "g/term/victory"),
    ]
    ru = term_matcher(terms, "ru")
    text = "Приказ «Выстрел» и выстрел."
    assert [(text[s:e], t) for s, e, t in ru.find(text)] == [("«Выстрел»", "g/term/shot"), ("выстрел", "g/term/shot")]


def test_every_schema_gets_the_quick_check_and_a_changed_keyword_falls_back():
    """fastjsonschema compiles draft-07; a keyword that means something else in 2020-12 must not
    reach it (jsonschema then checks the whole document)."""
    from generator.validate.schema import SCHEMA_OF_KIND, _same_in_draft7, quick_check_for

    assert all(quick_check_for(name) is not None for name in SCHEMA_OF_KIND.values())
    assert _same_in_draft7({"type": "object", "properties": {"a": {"items": {"type": "string"}}}})
    assert not _same_in_draft7({"properties": {"a": {"prefixItems": [{"type": "string"}]}}})
    assert not _same_in_draft7({"dependentRequired": {"a": ["b"]}})
    assert not _same_in_draft7({"items": [{"type": "string"}]})  # array form: a tuple in draft-07


def test_the_quick_check_keeps_the_meaning_of_const():
    """The quick check builds no messages, so each `const` becomes the `enum` of one value: same answers."""
    import fastjsonschema

    from generator.validate.schema import _const_as_enum, quick_check_for

    schema = {
        "type": "object",
        "properties": {"const": {"const": True}, "kind": {"const": "table"}},
        "if": {"properties": {"class": {"const": "duplicate"}}},
        "then": {"required": ["of"]},
    }
    assert _const_as_enum(schema) == {
        "type": "object",
        "properties": {"const": {"enum": [True]}, "kind": {"enum": ["table"]}},
        "if": {"properties": {"class": {"enum": ["duplicate"]}}},
        "then": {"required": ["of"]},
    }
    noise = quick_check_for("noise.schema.json")
    item = {"source": "mini-pl", "lines": "1-2", "class": "duplicate", "note": "same as the first page"}
    with pytest.raises(fastjsonschema.JsonSchemaValueException):  # a duplicate must say what it duplicates
        noise({"noise": [item]})
    noise({"noise": [{**item, "duplicate_of": "3-4"}]})
    noise({"noise": [{**item, "class": "web"}]})


def test_serve_parses_again_only_the_files_whose_bytes_changed(tmp_path: Path):
    """`load` with the files parsed last time (serve keeps them): an unchanged file's data is the same
    object, an edited one is parsed anew, one that no longer parses is reported and not kept, and a
    removed one is forgotten."""
    import shutil

    from conftest import MINI

    from generator.load.load import load

    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    parsed: dict = {}
    first = {d.path: d.data for d in load(data, Problems(), parsed).documents}
    assert set(parsed) == set(first)
    chapter, glossary = data / "games/mini/chapters/10-rules.yaml", data / "games/mini/glossary.yaml"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("en: Rules of Mini", "en: Rules of Mini (edited)"), encoding="utf-8")
    second = {d.path: d.data for d in load(data, Problems(), parsed).documents}
    edited = next(path for path in second if path.endswith("10-rules.yaml"))
    assert second[edited] is not first[edited] and second[edited]["chapter"]["title"]["en"] == "Rules of Mini (edited)"
    assert all(second[path] is first[path] for path in first if path != edited)

    chapter.write_text("chapter: [unclosed\n", encoding="utf-8")
    glossary.unlink()
    problems = Problems()
    third = {d.path: d.data for d in load(data, problems, parsed).documents}
    assert [p.code for p in problems.items] and edited not in third
    assert edited not in parsed and not any(path.endswith("glossary.yaml") for path in parsed)
