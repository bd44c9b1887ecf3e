"""validate: the bundled data is clean; every problem code has a failing fixture that reports it
with file:line:col, a hint and exit status 1, never a traceback."""
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, MINI, REPO, run_generator
from generator.problems import CODES

INVALID = sorted(p.name for p in (FIXTURES / "invalid").iterdir())


def test_every_code_has_a_fixture():
    assert sorted(CODES) == INVALID


def test_error_codes_doc_lists_every_code():
    doc = (REPO / "docs" / "error-codes.md").read_text(encoding="utf-8")
    for code, (meaning, hint) in CODES.items():
        assert f"| {code} | {meaning} | {hint} |" in doc


def test_mini_data_is_clean():
    result = run_generator("validate", "--data", str(MINI))
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith("ok: 1 games, 2 sources, 1 chapters, 3 entries")


def test_bundled_data_is_clean():
    result = run_generator("validate")
    assert result.returncode == 0, result.stdout[-3000:]
    assert result.stdout.count("\n") == 1 and result.stdout.startswith("ok: 4 games, 5 sources")


@pytest.mark.parametrize("code", INVALID)
def test_invalid_fixture_reports_its_code(code: str, tmp_path: Path):
    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    shutil.copytree(FIXTURES / "invalid" / code / "data", data, dirs_exist_ok=True)
    expected_place = (FIXTURES / "invalid" / code / "expect.txt").read_text(encoding="utf-8").strip()
    result = run_generator("validate", "--data", str(data), cwd=tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 1
    assert "Traceback" not in output
    lines = [line for line in result.stdout.splitlines() if f": {code} " in line]
    assert lines, output
    assert any(line.startswith(expected_place) for line in lines), output
    line, col = lines[0].split(f": {code} ")[0].rsplit(":", 2)[1:]
    assert int(line) >= 1 and int(col) >= 1
    assert f"    hint: {CODES[code][1]}" in result.stdout


def test_alias_bomb_is_refused_quickly(tmp_path: Path):
    """The billion-laughs file is rejected from the event stream, never expanded."""
    import time
    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    shutil.copytree(FIXTURES / "invalid" / "E005" / "data", data, dirs_exist_ok=True)
    from generator.validate import validate
    start = time.process_time()
    _, problems = validate(data)
    assert [p.code for p in problems.items] == ["E005"]
    assert time.process_time() - start < 5  # expansion would take minutes and gigabytes


def test_all_problems_are_collected(mini_data: Path):
    """Two independent problems in two files: both are reported in one run."""
    chapter = mini_data / "games/mini/chapters/10-rules.yaml"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("see: [mini/support]", "see: [mini/nowhere]"), encoding="utf-8")
    (mini_data / "games/mini/stray.yaml").write_text("x: 1\n", encoding="utf-8")
    result = run_generator("validate", "--data", str(mini_data))
    assert result.returncode == 1
    assert " E021 unknown reference 'mini/nowhere'" in result.stdout
    assert "stray.yaml:1:1: E006" in result.stdout


def test_output_cut_short_by_a_pipe_is_no_traceback(tmp_path: Path):
    """`generator validate | head -1` on data with problems: the reader stops early; no traceback."""
    import subprocess
    import sys
    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    shutil.copytree(FIXTURES / "invalid" / "E021" / "data", data, dirs_exist_ok=True)
    for _ in range(800):  # more problems than the pipe buffer (64 KB) holds
        (data / "games" / "mini" / f"stray-{_}.yaml").write_text("x: 1\n", encoding="utf-8")
    done = subprocess.run(f"{sys.executable} -m generator validate --data {data} | head -1", shell=True,
                          capture_output=True, text=True, cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.stdout.count("\n") == 1 and ": E0" in done.stdout
    assert "Traceback" not in done.stderr, done.stderr
