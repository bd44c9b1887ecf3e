"""The search ranks alike in both its copies, without a build or a browser: the site's own kb-search.js
(as shipped), run under Node.js with a minimal page around it (tests/search_in_node.mjs), and
generator.render.search.replay, its Python replay (which the bench and the unit tests trust), on the
bundled data's index built in-process, every section. For the look-ups of tests/lookups.yaml, each
also on the page of its game, misspelt (two letters swapped, one dropped, one doubled; those written
misspelt already, as they are) and run together with the next, and a few odd queries: the same results
in the same order, with the same scores, from the same index files. (tests/test_search_browser.py
checks the same agreement in Chromium, in the slow lane.)"""

from __future__ import annotations

import concurrent.futures
import json
import math
import shutil
import subprocess
from collections.abc import Callable, Iterator

import pytest
from conftest import REPO
from ruamel.yaml import YAML

from generator.base.paths import ASSETS
from generator.render.renderer import shipped_script
from generator.render.search import payload_of, replay

pytestmark = pytest.mark.unit

LOOKUPS = YAML(typ="safe").load((REPO / "tests" / "lookups.yaml").read_text(encoding="utf-8"))["lookups"]
RUNNER = REPO / "tests" / "search_in_node.mjs"
# queries of no word, of one letter, in capitals, with diacritics and ё, decomposed (s + a combining acute: ś), of common words only
EDGES = ["", "a - !", "x", "RETREAT", "KOŚCI WALKI", "Разорённых", "kos\u0301ci walki", "the", "what is the", "и"]


def slips(query: str) -> list[str]:
    """The query with a slip in its longest word: two neighbouring letters swapped, one dropped, one doubled."""
    words = query.split()
    n = max(range(len(words)), key=lambda i: len(words[i]))
    word = words[n]
    i = len(word) // 2
    misspelt = [word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :], word[:i] + word[i + 1 :], word[:i] + word[i] + word[i:]]
    return [" ".join(words[:n] + [slip] + words[n + 1 :]) for slip in misspelt] if len(word) >= 2 else []


def queries() -> Iterator[tuple[str, str, str | None]]:
    """(section, query, game whose page it is typed on, None: the section's home page)."""
    for lang, items in LOOKUPS.items():
        for n, item in enumerate(items):
            yield lang, item["q"], None
            yield lang, item["q"], item["want"][0].split("/")[0]
            if item["kind"] not in ("first-letter", "swap"):  # a slip in those would make two: nothing found
                yield from ((lang, slip, None) for slip in slips(item["q"]))
            yield lang, f"{item['q']} {items[(n + 1) % len(items)]['q']}", None
        yield from ((lang, edge, None) for edge in EDGES)


QUERIES = list(queries())


def in_node(index, built) -> Callable[[], list[dict]]:
    """kb-search.js's results for QUERIES, all in one Node.js process: started now, its results when the returned
    function is called (so that Node runs while Python works on the replay)."""
    node = shutil.which("node")
    assert node, "Node.js is needed for this test (scripts/setup.sh installs it)"
    job = {
        "languages": index.languages_script(),
        "search": shipped_script((ASSETS / "kb-search.js").read_text(encoding="utf-8")),
        "files": built,
        "queries": [{"lang": lang, "q": q, "game": game} for lang, q, game in QUERIES],
    }
    pool = concurrent.futures.ThreadPoolExecutor(1)
    running = pool.submit(subprocess.run, [node, str(RUNNER)], input=json.dumps(job), capture_output=True, text=True, encoding="utf-8", timeout=120)
    pool.shutdown(wait=False)  # the thread ends with Node

    def results() -> list[dict]:
        result = running.result()
        assert result.returncode == 0, result.stderr[-3000:]
        return json.loads(result.stdout)

    return results


def replayed(index, built) -> list[dict]:
    """generator.render.search.replay's results for QUERIES, and the index files it fetched."""
    out = []
    for lang, q, game in QUERIES:
        fetched: list[str] = []
        results = replay(q, lambda name, files=built[lang], fetched=fetched: fetched.append(name) or payload_of(files[name]), index.folding, game)
        out.append({"ids": [r["id"] for r in results], "scores": [r["score"] for r in results], "loaded": fetched})
    return out


@pytest.fixture(scope="module")
def both(bundled_search) -> list[tuple[tuple[str, str, str | None], dict, dict]]:
    """(query, what kb-search.js in Node gives, what the replay gives), per query."""
    node = in_node(*bundled_search)
    python = replayed(*bundled_search)
    return list(zip(QUERIES, node(), python, strict=True))


def first_difference(js: dict, py: dict) -> int | None:
    """The index of the first result where the two differ (in entry or score), None if they agree."""
    for i in range(max(len(js["ids"]), len(py["ids"]))):
        if js["ids"][i : i + 1] != py["ids"][i : i + 1] or not math.isclose(js["scores"][i], py["scores"][i], rel_tol=1e-12):
            return i
    return None


def describe(query: tuple[str, str, str | None], js: dict, py: dict) -> str:
    lang, q, game = query
    at = first_difference(js, py)
    assert at is not None
    what = "entry" if js["ids"][at : at + 1] != py["ids"][at : at + 1] else "score"
    return (
        f"{lang} {q!r} on {'the page of ' + game if game else 'the home page'}: the {what} of result {at + 1} differs\n"
        f"  kb-search.js: {list(zip(js['ids'], js['scores'], strict=True))}\n"
        f"  replay:       {list(zip(py['ids'], py['scores'], strict=True))}"
    )


def test_kb_search_in_node_ranks_every_query_as_the_replay_does(both):
    differ = [(query, js, py) for query, js, py in both if first_difference(js, py) is not None]
    if differ:
        pytest.fail(f"{len(differ)} of {len(both)} queries differ; the first:\n" + describe(*differ[0]), pytrace=False)


def test_kb_search_in_node_loads_the_index_files_the_replay_fetches(both):
    missing = [(query, js["missing"]) for query, js, _ in both if js["missing"]]
    assert not missing, f"kb-search.js asked for files the index does not have: {missing[:3]}"
    differ = [(query, sorted(js["loaded"]), sorted(py["loaded"])) for query, js, py in both if sorted(js["loaded"]) != sorted(py["loaded"])]
    if differ:
        (lang, q, game), js, py = differ[0]
        pytest.fail(
            f"{len(differ)} of {len(both)} queries load other files; the first: {lang} {q!r} (game {game}):\n"
            f"  kb-search.js only: {sorted(set(js) - set(py))}, duplicates {len(js) - len(set(js))}\n"
            f"  replay only:       {sorted(set(py) - set(js))}, duplicates {len(py) - len(set(py))}",
            pytrace=False,
        )


def test_the_queries_take_every_path_of_the_search(both):
    """So that the comparison can fail: queries with and without results, with typo files loaded, and on a
    game's page with results of other games after the game's, in every section."""
    assert len(both) >= 600
    for lang in LOOKUPS:
        ours = [(query, py) for query, _, py in both if query[0] == lang]
        assert sum(bool(py["ids"]) for _, py in ours) >= 0.9 * len(ours), lang
        assert any(not py["ids"] for _, py in ours), lang
        assert sum(any(name.startswith("t-") for name in py["loaded"]) for _, py in ours) >= 30, lang
        assert any(game and py["ids"][0].startswith(game + "/") and not py["ids"][-1].startswith(game + "/") for (_, _, game), py in ours), lang
