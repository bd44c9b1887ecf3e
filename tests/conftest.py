import fcntl
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from generator.base.paths import REPO

FIXTURES = REPO / "tests" / "fixtures"
MINI = FIXTURES / "mini" / "data"


def _bundled_games() -> dict[str, dict]:
    """Each bundled game's id -> what its game.yaml says of it (data/games/*/game.yaml, read as plain data): the tests
    take the games from the data, so a game added there is tested without a test changed."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe")
    games = (yaml.load(path.read_text(encoding="utf-8"))["game"] for path in sorted((REPO / "data" / "games").glob("*/game.yaml")))
    return {game["id"]: game for game in games}


BUNDLED_GAMES = _bundled_games()
GAMES = tuple(BUNDLED_GAMES)  # every bundled game, by id
GAMES_WITH_AIDS = tuple(game for game in GAMES if (REPO / "data" / "games" / game / "cards.yaml").is_file())
EVERY_AID = [(game, lang) for game in GAMES_WITH_AIDS for lang in sorted(BUNDLED_GAMES[game]["languages"])]


def run_generator(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True, cwd=cwd, env=env)


def interruptible() -> None:
    """`preexec_fn` of a child a test sends Ctrl-C (SIGINT): SIGINT at its default, as from a terminal, even where
    the tests run with it ignored (a job started with `&` by a shell without job control; Python then keeps it
    ignored, and the child never stops)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def mini_data(tmp_path: Path) -> Path:
    """A writable copy of the mini data set."""
    target = tmp_path / "data"
    shutil.copytree(MINI, target)
    return target


def assert_tables_at_7pt(card_html: str, *measures) -> None:
    """Every table on an aid (`measures`: its cards' and sheet's, aid_measure) printed at 7 pt or more (issue 28),
    and found where the aid has tables (`card_html`, its items' HTML; the measure reads tables by their rules)."""
    for measure in measures:
        assert (measure.table_type is not None) == ("<table" in card_html), measure
        assert measure.table_type is None or measure.table_type >= 7, measure


def page_texts(pdf: bytes | Path) -> list[str]:
    """Each page's text layer as pdfium reads it: its lines end in "\\n", and a hyphen that ends a line (pdfium gives
    U+FFFE for it) is "-\\n". Every page of the bundled aids reads as the same words as pypdf's `extract_text`, at a
    twentieth of the time (pypdf took 9 s of CPU to read the bundled aids once, and the tests read them several
    times). pdfium joins text on one baseline across cards into one line: read lines with pypdf."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        return [page.get_textpage().get_text_range().replace("\r\n", "\n").replace("\ufffe", "-\n") for page in document]
    finally:
        document.close()


@functools.cache
def measured_cards(pdf: bytes, paper: str):
    """aid_measure.measure_cards of a cards' PDF, measured once per test process (several tests read the same aids'
    figures: each measure reads every glyph of the PDF, about a tenth of a second a PDF)."""
    from generator.render.aids.aid_measure import measure_cards

    return measure_cards(pdf, paper)


@functools.cache
def measured_sheet(pdf: bytes, paper: str):
    """aid_measure.measure_sheet of a sheet's PDF, measured once per test process (as `measured_cards`)."""
    from generator.render.aids.aid_measure import measure_sheet

    return measure_sheet(pdf, paper)


HOSTILE = "<script>window.__pwned = 'script'</script><img src=x onerror=\"window.__pwned = 'img'\">"


def made_once_per_run(tmp_path_factory, worker_id: str, name: str, make) -> Path:
    """The folder `make(folder)` fills, made once for the whole run: with pytest-xdist's workers the first
    to need it makes it in the run's shared temporary folder while the others wait (a lock file), and all
    read it (each worker built the bundled site, ~30 s, and the mini site again). Only for folders no test changes."""
    if worker_id == "master":  # one process: its own temporary folder
        folder = tmp_path_factory.mktemp(name)
        make(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent  # the run's folder, above each worker's
    folder, made = shared / name, shared / f"{name}.made"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)  # a failure raises here, and the next worker to wait tries again (and fails alike)
            made.touch()
    return folder


@pytest.fixture(scope="session")
def mini_build(tmp_path_factory, worker_id: str) -> Path:
    """Build the mini data set (one entry carrying hostile text) into a temporary folder; returns it."""
    return made_once_per_run(tmp_path_factory, worker_id, "mini-build", _build_mini)


def _build_mini(root: Path) -> None:
    data = root / "data"
    shutil.copytree(MINI, data)
    chapter = data / "games/mini/chapters/10-rules.yaml"
    text = chapter.read_text(encoding="utf-8")
    text = text.replace(
        "en: A unit adjacent to 2 other units ignores 1 retreat.", f"en: |\n        A unit adjacent to 2 other units ignores 1 retreat. {HOSTILE}"
    )  # links: validate refuses them (E060)
    chapter.write_text(text, encoding="utf-8")
    result = run_generator("build", "--data", str(data), "--out", str(root))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="session")
def bundled_build(tmp_path_factory, worker_id: str) -> Path:
    """Build the bundled data (the real knowledge base) into a temporary folder; returns it."""
    return made_once_per_run(tmp_path_factory, worker_id, "bundled-build", _build_bundled)


def _build_bundled(root: Path) -> None:
    result = run_generator("build", "--out", str(root))
    assert result.returncode == 0, result.stdout + result.stderr


@functools.cache
def bundled_validated():
    """validate() of the bundled data: (KnowledgeBase, Problems), made once per run and shared by every test that
    only reads them (five test modules loaded the data at import, and more tests again, ~1 s each)."""
    from generator.validate.validate import validate

    return validate(REPO / "data")


def bundled_kb():
    """The bundled data's KnowledgeBase, as load_valid gives it (DataError if it has a problem); shared, not to be changed."""
    from generator.base.problems import DataError

    kb, problems = bundled_validated()
    if problems:
        raise DataError(problems)
    return kb


def worked_examples() -> list[tuple[str, str, dict, dict, str]]:
    """(game, check, inputs, expected, entry id) of every worked example of the bundled data that names a check, read
    from the shared knowledge base (each of two test modules parsed every chapter again for them, ~1 s a process)."""
    from rules_check.core import CheckId

    found = []
    for entry in bundled_kb().entries.values():
        example = entry.get("example") or {}
        if "." in example.get("check", ""):
            check = CheckId.parse(example["check"])
            found.append((check.game, check.name, example["inputs"], example["expected"], entry["id"]))
    return found


def built_games(site: Path) -> dict[str, dict]:
    """game -> {lang: its calculators.json} as built."""
    games: dict[str, dict] = {}
    for spec_file in sorted(site.glob("*/*/calculators.json")):
        spec = json.loads(spec_file.read_text(encoding="utf-8"))
        games.setdefault(spec["game"], {})[spec["lang"]] = spec
    return games


@functools.cache
def bundled_resolved():
    """resolve() of the bundled data, made once per run; shared, not to be changed."""
    from generator.resolve.resolve import resolve

    return resolve(bundled_kb())


@pytest.fixture(scope="session")
def bundled_search():
    """(SearchIndex, {lang: {file name under search/<lang>/: content}}) of the bundled data, built in-process
    (no mkdocs, no browser): loaded, validated and resolved once per run (bundled_resolved)."""
    from generator.render.search import SearchIndex

    index = SearchIndex(bundled_resolved())
    return index, {lang: index.build(index.r.reading(lang)) for lang in index.r.languages.codes}


@pytest.fixture(scope="module")
def driver():
    """Headless Chromium at phone size, one per test module; its pages find no service worker (browser.make_driver)."""
    from browser import make_driver

    chrome = make_driver()
    yield chrome
    chrome.quit()


@pytest.fixture
def offline_driver():
    """Headless Chromium at phone size, a fresh profile (no service worker from another test), whose pages install
    their section's service worker."""
    from browser import make_driver

    chrome = make_driver(service_workers=True)
    yield chrome
    chrome.quit()


LANES = ("unit", "integration", "browser")


def pytest_ignore_collect(collection_path: Path, config):
    """Under `-m unit` alone, a test module that never writes `pytest.mark.unit` holds no unit test (a test is in the
    unit lane only when marked so, below), so it is not imported: the fast lane skips their imports (WeasyPrint,
    Selenium) and their assertion rewriting, ~1 s. Any other selection collects every module."""
    if config.option.markexpr == "unit" and collection_path.name.startswith("test_") and collection_path.suffix == ".py":
        return "pytest.mark.unit" not in collection_path.read_text(encoding="utf-8") or None
    return None


def pytest_collection_modifyitems(config, items):
    """Every test runs in one lane: `browser` if it drives Chromium, else the lane its module or
    function names, else `integration` (it may build or run the CLI). `pytest -m unit` is the fast
    lane, in-process and build-free."""
    for item in items:
        if any(item.get_closest_marker(lane) for lane in LANES):
            if "driver" in item.fixturenames and not item.get_closest_marker("browser"):
                item.add_marker(pytest.mark.browser)
            continue
        item.add_marker(pytest.mark.browser if "driver" in item.fixturenames else pytest.mark.integration)
    # A lane marked on a test and another on its module would put it in both (`-m` reads every marker).
    twice = [item.nodeid for item in items if len({mark.name for mark in item.iter_markers()} & set(LANES)) > 1]
    if twice:
        raise pytest.UsageError(f"tests in more than one lane (a module's pytestmark and the test's own marker?): {twice}")
