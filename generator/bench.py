"""python -m generator bench: every build stage, timed and weighed, at 1×, 10× and 100× the data.

The larger corpora are the real games copied under new ids (`citow` -> `citow-k2/…`, with their
sources, glossary and aid), so every reference still resolves and every check still runs. Each size
runs in its own process so that peak memory is that size's own. Results print as a table and are
written as JSON for comparing two runs.
"""
from __future__ import annotations

import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parent.parent
SAMPLE_QUERIES = {"en": ["retreating", "ruined regions"], "pl": ["spustoszonych", "kości walki"], "ru": ["отступил", "кубики атаки"]}
TARGETS = "generator ≤ ¼ site engine · 100× ≤ 120 × 1× · peak < 2 GB at 100× · ≤ 150 KB search data per query · median page ≤ 60 KB · 1× full build ≤ 10 s"


# -- the corpus --------------------------------------------------------------------------------

def make_corpus(factor: int, target: Path) -> Path:
    """data/ plus factor-1 renamed copies of every game. Returns the data folder."""
    data = target / "data"
    shutil.copytree(REPO / "data", data)
    yaml = YAML(typ="safe")
    manifest_path = data / "sources" / "manifest.yaml"
    manifest = yaml.load(manifest_path.read_text(encoding="utf-8"))
    games = sorted(p.name for p in (data / "games").iterdir())
    sources_of = {g: [s for s in manifest["sources"] if s["game"] == g] for g in games}
    extra_sources = []
    for copy in range(2, factor + 1):
        for game in games:
            new_game = f"{game}-k{copy}"
            renames = [(re.escape(f"{game}/"), f"{new_game}/")]
            for source in sources_of[game]:
                new_id = source["id"].replace(game, new_game, 1)
                renames.append((rf"(?<![\w-]){re.escape(source['id'])}(?![\w-])", new_id))
                extra_sources.append({**source, "id": new_id, "game": new_game})
            renames.append((rf"(?m)^(  id: ){re.escape(game)}$", rf"\g<1>{new_game}"))
            shutil.copytree(data / "games" / game, data / "games" / new_game)
            for path in (data / "games" / new_game).rglob("*.yaml"):
                text = path.read_text(encoding="utf-8")
                for pattern, replacement in renames:
                    text = re.sub(pattern, replacement, text)
                path.write_text(text, encoding="utf-8")
    if extra_sources:
        with manifest_path.open("a", encoding="utf-8") as handle:
            for source in extra_sources:
                handle.write("  - " + json.dumps(source, ensure_ascii=False) + "\n")
    return data


# -- one size, in its own process ----------------------------------------------------------------

def peak_reset() -> None:
    """Reset this process's peak RSS (Linux: writing 5 to clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_size(data: Path, out: Path) -> dict:
    """Run every stage once, timing each and recording its peak memory."""
    from .cards import render_all as render_aids
    from .load import load
    from .problems import DataError, Problems
    from .resolve import LANGUAGES, resolve
    from .rules_check_gen import checks_by_entry, render_package
    from .search import SearchIndex
    from .site import SiteRenderer
    from .validate import MeaningChecks, build_knowledge_base
    from .write import run_mkdocs, set_page_languages, write_files

    stages: dict[str, dict] = {}

    def stage(name, function):
        peak_reset()
        start = time.perf_counter()
        result = function()
        stages[name] = {"seconds": round(time.perf_counter() - start, 3), "peak_mb": round(peak_mb(), 1)}
        return result

    problems = Problems()
    loaded = stage("load", lambda: load(data, problems))
    kb = stage("validate", lambda: _validated(loaded, problems, build_knowledge_base, MeaningChecks))
    if problems:
        raise DataError(problems)
    resolved = stage("resolve", lambda: resolve(kb, checks_by_entry()))
    aids = stage("cards", lambda: render_aids(resolved))
    renderer = SiteRenderer(resolved, card_files={(a.game, a.lang): a.links() for a in aids})
    pages = stage("render", lambda: (renderer.all_pages(), renderer.nav()))
    package = stage("rules-check", lambda: render_package(resolved))
    docs, site = out / "docs", out / "site"
    stage("write", lambda: (write_files(docs, pages[0]), shutil.copytree(REPO / "generator/templates/assets", docs / "assets"),
                            write_files(docs, {f"cards/{n}": c for a in aids for n, c in a.files.items()}),
                            write_files(out / "rules_check", package)))
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    stage("site engine", lambda: run_mkdocs(REPO, docs, site, pages[1], out))
    stages["site engine"]["peak_mb"] = round(max(children_before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024, 1)
    search_files = stage("search index", lambda: SearchIndex(resolved).all_files())
    write_files(site, search_files)
    set_page_languages(site, LANGUAGES)
    html_sizes = sorted(p.stat().st_size for p in site.rglob("*.html"))
    return {
        "entries": len(kb.entries), "pages": len(html_sizes),
        "median_page_kb": round(statistics.median(html_sizes) / 1024, 1), "largest_page_kb": round(html_sizes[-1] / 1024, 1),
        "stages": stages, "queries": query_downloads(site),
    }


def _validated(loaded, problems, build_knowledge_base, MeaningChecks):
    kb = build_knowledge_base(loaded, problems)
    MeaningChecks(kb, problems).run()
    return kb


# -- what a query downloads ----------------------------------------------------------------------

def _load_chunk(path: Path):
    text = path.read_text(encoding="utf-8")
    return json.loads(text[text.index(",", text.index(",") + 1) + 1:text.rindex(")")])


def query_downloads(site: Path) -> dict:
    """Bytes of search data the browser fetches for a first query and a later one, per language,
    following the same rules as kb-search.js (word chunks, meta, document chunks of the top 10)."""
    from .search import chunk_key, tokens
    report = {}
    for lang, queries in SAMPLE_QUERIES.items():
        folder = site / "search" / lang
        fetched: set[str] = set()
        sizes = []
        meta = _load_chunk(folder / "meta.js")
        for query in queries:
            before = sum((folder / f).stat().st_size for f in fetched)
            words = [w for w in tokens(query) if len(w) >= 2]
            scores: dict[int, float] = {}
            for word in words:
                name = f"w-{chunk_key(word)}.js"
                fetched.add(name) if (folder / name).exists() else None
                chunk = _load_chunk(folder / name) if (folder / name).exists() else {}
                best: dict[int, float] = {}
                for indexed, postings in chunk.items():
                    q = _quality(word, indexed)
                    if q:
                        for doc, weight in postings:
                            best[doc] = max(best.get(doc, 0), q * weight)
                for doc, score in best.items():
                    scores[doc] = scores.get(doc, 0) + score
            fetched.add("meta.js")
            top = sorted(scores, key=lambda d: -scores[d])[:10]
            fetched.update(f"d-{doc // meta['per_chunk']}.js" for doc in top)
            sizes.append(sum((folder / f).stat().st_size for f in fetched) - before)
        report[lang] = {"first_query_kb": round(sizes[0] / 1024, 1), "later_query_kb": round(sizes[1] / 1024, 1)}
    return report


def _quality(query: str, word: str) -> float:
    if query == word:
        return 1.0
    p = 0
    while p < min(len(query), len(word)) and query[p] == word[p]:
        p += 1
    if p == len(query) and p >= 3:
        return 0.8
    if p >= 4 and p >= len(query) - 3:
        return 0.6 * p / max(len(query), len(word)) + 0.2
    return 0.0


# -- the report ----------------------------------------------------------------------------------

def run_size(factor: int) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"bench-{factor}x-") as folder:
        root = Path(folder)
        data = make_corpus(factor, root)
        done = subprocess.run([sys.executable, "-m", "generator", "bench", "--one", str(data), "--out", str(root / "out")],
                              capture_output=True, text=True, cwd=REPO)
        if done.returncode != 0:
            raise RuntimeError(f"{factor}x failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        result = json.loads(done.stdout)
    result["factor"] = factor
    return result


GENERATOR_STAGES = ("load", "validate", "resolve", "render", "write")


def evaluate(results: list[dict]) -> list[tuple[str, bool, str]]:
    by_factor = {r["factor"]: r for r in results}
    checks = []
    for r in results:
        own = sum(r["stages"][s]["seconds"] for s in GENERATOR_STAGES)
        engine = r["stages"]["site engine"]["seconds"]
        checks.append((f"{r['factor']}×: generator stages ≤ ¼ of site engine", own <= engine / 4, f"{own:.2f} s vs {engine:.2f} s"))
    if 1 in by_factor:
        one = by_factor[1]
        total_1 = sum(s["seconds"] for s in one["stages"].values())
        checks.append(("1×: full build ≤ 10 s", total_1 <= 10, f"{total_1:.1f} s"))
        for factor in (10, 100):
            if factor in by_factor:
                total = sum(s["seconds"] for s in by_factor[factor]["stages"].values())
                checks.append((f"{factor}×: time ≤ {int(factor * 1.2)} × 1×", total <= factor * 1.2 * total_1, f"{total:.1f} s = {total / total_1:.1f} × 1×"))
    if 100 in by_factor:
        peak = max(s["peak_mb"] for s in by_factor[100]["stages"].values())
        checks.append(("100×: peak memory < 2 GB", peak < 2048, f"{peak:.0f} MB"))
    for r in results:
        worst = max(max(q.values()) for q in r["queries"].values())
        checks.append((f"{r['factor']}×: ≤ 150 KB search data per query", worst <= 150, f"{worst:.1f} KB at most"))
        checks.append((f"{r['factor']}×: median page ≤ 60 KB", r["median_page_kb"] <= 60, f"{r['median_page_kb']} KB"))
    return checks


def format_table(results: list[dict]) -> str:
    names = list(results[0]["stages"])
    lines = ["stage".ljust(14) + "".join(f"{r['factor']}× s".rjust(11) + f"{r['factor']}× MB".rjust(11) for r in results)]
    for name in names:
        lines.append(name.ljust(14) + "".join(f"{r['stages'][name]['seconds']:11.2f}{r['stages'][name]['peak_mb']:11.0f}" for r in results))
    lines.append("total".ljust(14) + "".join(f"{sum(s['seconds'] for s in r['stages'].values()):11.2f}{'':11}" for r in results))
    for key in ("entries", "pages", "median_page_kb", "largest_page_kb"):
        lines.append(key.ljust(14) + "".join(f"{r[key]:>22}" for r in results))
    for lang in SAMPLE_QUERIES:
        lines.append(f"query {lang} KB".ljust(14) + "".join(
            f"{r['queries'][lang]['first_query_kb']:>13} then {r['queries'][lang]['later_query_kb']:<4}" for r in results))
    return "\n".join(lines)


def main(sizes: list[int], json_path: Path) -> int:
    results = []
    json_path.parent.mkdir(parents=True, exist_ok=True)
    for factor in sizes:
        print(f"… {factor}× corpus", file=sys.stderr, flush=True)
        results.append(run_size(factor))
        total = sum(s["seconds"] for s in results[-1]["stages"].values())
        print(f"  {factor}×: {results[-1]['pages']} pages, {total:.1f} s", file=sys.stderr, flush=True)
        json_path.write_text(json.dumps({"targets": TARGETS, "results": results, "partial": True},
                                        ensure_ascii=False, indent=1), encoding="utf-8")
    print(format_table(results))
    print()
    checks = evaluate(results)
    for name, met, detail in checks:
        print(f"{'met    ' if met else 'MISSED '} {name}: {detail}")
    json_path.write_text(json.dumps({"targets": TARGETS, "results": results,
                                     "checks": [{"target": n, "met": m, "detail": d} for n, m, d in checks]},
                                    ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"\nwritten: {json_path}")
    if (REPO / "rules_check" / "__init__.py").exists():
        print("\nrules_check citow.hit_probability (exact odds):")
        print(odds_timing())
    return 0


def one(data: Path, out: Path) -> int:
    """The child process: measure one corpus and print JSON."""
    out.mkdir(parents=True, exist_ok=True)
    print(json.dumps(measure_size(data, out)))
    return 0


def odds_timing() -> str:
    """How long the exact odds of the rules-check take for 1 to 30 dice (it should stay in milliseconds)."""
    import importlib
    sys.path.insert(0, str(REPO))
    rules_check = importlib.import_module("rules_check")
    rows = []
    for dice in (1, 5, 10, 20, 30):
        start = time.perf_counter()
        for hits in range(0, dice + 2):
            rules_check.citow.hit_probability(dice=dice, hits=hits)
        rows.append(f"{dice:3d} dice, k = 0..{dice + 1}: {(time.perf_counter() - start) * 1000:7.2f} ms in all")
    return "\n".join(rows)

