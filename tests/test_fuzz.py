"""Fuzzing validate with mutations of real data files: whatever an editor's slip or a hostile file
does to the data, `validate` ends with problems (each with a known code and a position) or with
none, never with an exception, and never hangs.

The corpus is one real game (Chaos Marauders: small enough for a few hundred runs a minute) with its
source and a manifest listing only it. Each example mutates one or more of its files.
"""

import json
import os
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.base.problems import DATA_CODES, Problems
from generator.load.load import ParsedFiles, load
from generator.load.yamlio import load_yaml
from generator.validate.validate import check, validate

GAME = "marauders"


def corpus(target: Path) -> Path:
    """data/ holding only GAME, its sources and a manifest of them, and the languages."""
    data = target / "data"
    shutil.copytree(REPO / "data" / "games" / GAME, data / "games" / GAME)
    shutil.copytree(REPO / "data" / "languages", data / "languages")
    for synonyms in (data / "languages").glob("*/synonyms.yaml"):  # the players' words for GAME's terms only
        words = load_yaml(synonyms, "synonyms.yaml", Problems())["synonyms"]
        words["terms"] = {term: said for term, said in words.get("terms", {}).items() if term.startswith(f"{GAME}/")}
        synonyms.write_text(json.dumps({"synonyms": words}, ensure_ascii=False, indent=1), encoding="utf-8")
    manifest = load_yaml(REPO / "data/sources/manifest.yaml", "manifest.yaml", Problems())
    sources = [source for source in manifest["sources"] if source["game"] == GAME]
    (data / "sources").mkdir()
    for source in sources:
        shutil.copy(REPO / "data" / "sources" / source["file"], data / "sources" / source["file"])
    lines = "".join(f"  - {json.dumps(source, ensure_ascii=False)}\n" for source in sources)
    (data / "sources" / "manifest.yaml").write_text("sources:\n" + lines, encoding="utf-8")
    return data


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    data = corpus(tmp_path_factory.mktemp("fuzz-corpus"))
    _, problems = validate(data)
    assert not problems, problems.report()  # the mutations, not the corpus, make the problems
    return data


FILES = sorted(str(p.relative_to(REPO / "data")) for p in (REPO / "data" / "games" / GAME).rglob("*.yaml")) + ["sources/manifest.yaml"]
# The languages and the calculators: few files among many above, so they get a test of their own (issue 32).
LANGUAGE_AND_CHECK_FILES = sorted(str(p.relative_to(REPO / "data")) for p in (REPO / "data" / "languages").glob("*/*.yaml")) + [
    f"games/{GAME}/checks.yaml",
    f"games/{GAME}/calculators.yaml",
]
SCALARS = st.sampled_from(
    [
        "",
        "~",
        "null",
        "true",
        "12",
        "-3.5",
        "9" * 40,
        "[]",
        "{}",
        "[a, [b]]",
        "{a: 1}",
        "'x'",
        '"a: b"',
        "&a x",
        "*a",
        "!!python/object x",
        "2009-03-01",
        "|",
        ">-",
        "#",
        "@",
        "%",
        "`",
    ]
)
NOISE = st.text(alphabet=st.sampled_from(list(":-{}[],&*!|>#'\"%@`?\t \\\nAaЖżé0\u0000\u00a0\u2028\ufeff")), min_size=1, max_size=8)
# A few hundred per test in CI (about 20 s each on an idle machine), the same ones every run so that a landing is reproducible;
# FUZZ_EXAMPLES=5000 for a longer hunt with fresh random examples (pass --hypothesis-seed to replay one).
HUNT = os.environ.get("FUZZ_EXAMPLES")
EXAMPLES = int(HUNT or "300")


@st.composite
def mutation(draw, lines: int):
    """One change to a file of `lines` lines: (name, arguments)."""
    at = draw(st.integers(0, max(lines - 1, 0)))
    kind = draw(st.sampled_from(["delete", "duplicate", "swap", "indent", "insert", "truncate", "scalar", "nest"]))
    if kind == "swap":
        return kind, (at, draw(st.integers(0, max(lines - 1, 0))))
    if kind == "indent":
        return kind, (at, draw(st.sampled_from([-4, -2, -1, 1, 2, 4, "\t"])))
    if kind == "insert":
        return kind, (at, draw(st.integers(0, 80)), draw(NOISE))
    if kind == "truncate":
        return kind, (at, draw(st.integers(0, 80)))
    if kind == "scalar":
        return kind, (at, draw(SCALARS))
    if kind == "nest":
        return kind, (at, draw(st.integers(1, 300)))
    return kind, (at,)


def mutated(text: str, changes) -> str:
    lines = text.split("\n")
    for kind, args in changes:
        at = args[0] % len(lines)
        line = lines[at]
        if kind == "delete":
            del lines[at]
        elif kind == "duplicate":
            lines.insert(at, line)
        elif kind == "swap":
            other = args[1] % len(lines)
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == "indent":
            step = args[1]
            lines[at] = "\t" + line if step == "\t" else (" " * step + line if step > 0 else line[-step:])
        elif kind == "insert":
            column = min(args[1], len(line))
            lines[at] = line[:column] + args[2] + line[column:]
        elif kind == "truncate":
            lines = lines[:at] + [line[: args[1]]]
        elif kind == "scalar" and ": " in line:
            lines[at] = line.split(": ", 1)[0] + ": " + args[1]
        elif kind == "nest" and ": " in line:
            key, value = line.split(": ", 1)
            lines[at] = f"{key}: {'[' * args[1]}{value}{']' * args[1]}"
        if not lines:
            lines = [""]
    return "\n".join(lines)


SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=HUNT is None,
    deadline=timedelta(seconds=10),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# The files as parsed before, by their path under the corpus's folder (the same in every example's copy): an unchanged
# file is not parsed again, as under `serve` (0.05 s an example instead of 0.08); the mutated one always is.
PARSED: ParsedFiles = {}


def validate_a_mutation(pristine: Path, tmp_path_factory, data, files: list[str]) -> None:
    """One to three mutations of one of `files`; validate ends with coded, placed problems or none."""
    name = data.draw(st.sampled_from(files), label="file")
    original = (pristine / name).read_text(encoding="utf-8")
    changes = data.draw(st.lists(mutation(original.count("\n") + 1), min_size=1, max_size=3), label="changes")
    folder = tmp_path_factory.mktemp("fuzz") / "data"
    shutil.copytree(pristine, folder)
    (folder / name).write_text(mutated(original, changes), encoding="utf-8")
    problems = Problems()
    check(load(folder, problems, PARSED), problems)
    for problem in problems.items:
        assert problem.code in DATA_CODES and problem.line >= 1 and problem.col >= 1, problem
    assert isinstance(problems.report(), str)
    shutil.rmtree(folder.parent)


@pytest.mark.integration  # in-process, but about 20 s: kept out of the minute-by-minute unit lane
@SETTINGS
@given(data=st.data())
def test_mutated_data_gives_problems_or_ok_never_an_exception(pristine: Path, tmp_path_factory, data):
    validate_a_mutation(pristine, tmp_path_factory, data, FILES)


@pytest.mark.integration
@SETTINGS
@given(data=st.data())
def test_mutated_languages_and_calculators_give_problems_or_ok_never_an_exception(pristine: Path, tmp_path_factory, data):
    """language.yaml and ui.yaml of every language, checks.yaml and calculators.yaml (issue 32)."""
    validate_a_mutation(pristine, tmp_path_factory, data, LANGUAGE_AND_CHECK_FILES)


def test_a_noise_item_whose_lines_key_is_misspelt_is_reported(pristine: Path, tmp_path):
    """Found by a hunt: `0 lines:` for `lines:` made the skipped-noise bookkeeping raise KeyError."""
    folder = tmp_path / "data"
    shutil.copytree(pristine, folder)
    noise = folder / "games" / GAME / "noise" / f"{GAME}-ru.yaml"
    noise.write_text(noise.read_text(encoding="utf-8").replace("lines:", "0 lines:", 1), encoding="utf-8")
    _, problems = validate(folder)
    assert problems.items and all(problem.code in DATA_CODES for problem in problems.items), problems.report()
    assert any(problem.path.endswith(f"{GAME}-ru.yaml") for problem in problems.items), problems.report()
