"""Render, calculators: every rules-check as a form on the site, answered by the same Python code.

For each game and language, `<lang>/<game>/calculators.json` says what a form needs: per check its title,
its input schema (from the rules_check package, refs inlined), the labels of its fields and choices in the
reader's language, the worked examples that use it, and the site's entries an answer may name. The page
side is `assets/kb-calc.js`; it runs the check in a worker (`assets/kb-calc-worker.js`) under Pyodide,
whose files, the pure-Python wheels rules_check needs and a zip of the package with this build's data are
vendored into `assets/calc/` (see `runtime_files`). Nothing of that is loaded before a calculator is opened.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import io
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from markupsafe import Markup

from rules_check.core import CheckId

from ..base.children import run_dying_with_this_process
from ..base.errors import FrontEndMissing, KbError
from ..base.json_schema import check_schemas
from ..base.paths import BROWSER_WHEELS, MAKE_SNAPSHOT, PYODIDE, SNAPSHOT_CACHE
from ..load.model import PerLanguage
from ..load.rules_view import label_texts
from ..resolve.pages import CALCULATORS
from ..resolve.resolve import Reading, Resolved

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
RUNTIME = "assets/calc"  # under the site root
SNAPSHOTS_KEPT = 4  # the newest; each is about 30 MB
GZIPPED_KEPT = 40  # gzipped runtime files (about ten a build, most of them the same from build to build)


def game_checks(resolved: Resolved, game: str) -> list[str]:
    """The checks of a game that have a calculator, in catalogue order."""
    return list(resolved.kb.checks.get(game, {})) if game in resolved.kb.calculators else []


def with_choices(schema: Any, choices: dict[str, list[str]]) -> Any:
    """The input schema as the form shows it: a text field named in calculators.yaml's `choices` (or the
    texts of such a list, or of its lists — region pairs —, or the free keys of such a map: a map of maps
    whose outer keys are already chosen, each Power's figures say, takes the choice for its inner keys)
    becomes a choice among those values. The check's own schema is unchanged (rules_check validates what
    is sent)."""
    if isinstance(schema, list):
        return [with_choices(item, choices) for item in schema]
    if not isinstance(schema, dict):
        return schema
    shown = {key: with_choices(value, choices) for key, value in schema.items()}
    for name, field in shown.get("properties", {}).items():
        if name not in choices:
            continue
        if field.get("type") == "object" and "additionalProperties" in field:
            _choose_keys(field, choices[name])
        else:
            shown["properties"][name] = _choose_text(field, choices[name])
    return shown


def _choose_text(field: dict[str, Any], values: list[str]) -> dict[str, Any]:
    """A text field as a choice among `values`; a list's texts (a list of lists: region pairs), each a choice."""
    if field.get("type") == "string":
        return {**field, "enum": values}
    if field.get("type") == "array" and isinstance(field.get("items"), dict):
        return {**field, "items": _choose_text(field["items"], values)}
    return field


def _choose_keys(field: dict[str, Any], values: list[str]) -> None:
    """The first map level (this one, or the values' when this one's keys are chosen) whose keys are free."""
    if "propertyNames" not in field:
        field["propertyNames"] = {"enum": values}
        return
    inner = field["additionalProperties"]  # a copy already (with_choices copies every level)
    if isinstance(inner, dict) and inner.get("type") == "object" and "additionalProperties" in inner:
        _choose_keys(inner, values)


def calculators_spec(reading: Reading, game: str, href: Callable[[str], str]) -> dict[str, Any]:
    """What the forms of one game need in the reading's language; `href(entry_id)` is an entry's URL from the
    game's folder. Text in another language than the reader's is listed in `fallback` (kb-calc.js marks it)."""
    resolved = reading.resolved
    kb = resolved.kb
    words = kb.calculators[game]
    schemas = check_schemas(game) or {}
    checks = {}
    for name in game_checks(resolved, game):
        check = CheckId(game, name)
        texts = words["checks"][name]
        labels = {key: label_texts(resolved.kb, label) for key, label in {**words["labels"], **texts.get("labels", {})}.items()}
        examples = [
            {
                "id": entry["id"],
                "title": reading.title(entry["id"]),
                "lang": (shown := reading.shown_language(entry)),
                "language": None if shown == reading.reader else reading.language_name(shown),
                "inputs": entry["example"]["inputs"],
            }
            for entry in kb.entries_of(game)
            if "example" in entry and CheckId.parse(entry["example"].get("check", "")) == check
        ]
        checks[name] = {
            "title": reading.text(texts["title"]),
            "schema": with_choices(schemas.get(f"{name}_input", {}), {**words.get("choices", {}), **texts.get("choices", {})}),
            "labels": {key: reading.text(texts_of) for key, texts_of in labels.items()},
            "implements": kb.checks[game][name]["implements"],
            "examples": examples,
        }
    named = {entry["id"]: {"title": reading.link_title(entry["id"]), "href": href(entry["id"])} for entry in kb.entries_of(game)}
    return {"game": game, "lang": reading.reader, "data_version": resolved.data_version, "checks": checks, "entries": named}


def _zip(files: Iterator[tuple[str, bytes | str]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files:
            archive.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), content)  # fixed dates: same files, same zip
    return buffer.getvalue()


def rules_check_folder() -> Path:
    """The rules_check package Python imports (a test may put another copy first on PYTHONPATH)."""
    spec = importlib.util.find_spec("rules_check")
    assert spec is not None and spec.origin is not None, "the rules_check package is part of the repository"
    return Path(spec.origin).parent


def code_zip() -> bytes:
    """The rules_check package's code and schemas, as Pyodide unpacks them (its data goes apart: data_zip)."""
    folder = rules_check_folder()
    return _zip(
        (f"rules_check/{path.relative_to(folder).as_posix()}", path.read_bytes())
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.suffix in (".py", ".json") and path.relative_to(folder).parts[0] != "data" and "__pycache__" not in path.parts
    )


def data_zip(rules_data: list[tuple[str, str]]) -> bytes:
    """This build's rules data (rules_check/data/<game>.json)."""
    return _zip((f"rules_check/data/{name}", content) for name, content in rules_data)


def start_snapshot(wheels: list[Path], code: bytes) -> bytes:
    """Pyodide's memory with the wheels and rules_check's code imported (generator/make_snapshot.mjs, run
    with Node.js). Made once per Pyodide, wheels and code, and kept in build/calc-cache/ (data edits do
    not change it: the data is unpacked after the snapshot is loaded)."""
    key = hashlib.sha256(
        b"".join([(PYODIDE / "package.json").read_bytes(), code, *(w.read_bytes() for w in wheels), MAKE_SNAPSHOT.read_bytes()])
    ).hexdigest()[:16]
    cached = SNAPSHOT_CACHE / f"{key}.bin"
    if cached.is_file():
        os.utime(cached)  # recently used: kept by the pruning below
        return cached.read_bytes()
    node = shutil.which("node")
    if node is None:
        raise FrontEndMissing("Node.js is not installed (the calculators' start-up snapshot is made with it)")
    with tempfile.TemporaryDirectory() as work:
        for wheel in wheels:
            shutil.copy(wheel, work)
        (Path(work) / "code.zip").write_bytes(code)
        made = Path(work) / "snapshot.bin"
        result = run_dying_with_this_process([node, str(MAKE_SNAPSHOT), str(PYODIDE), work, str(made)])
        if result.returncode != 0 or not made.is_file():
            last = (result.stderr.strip().splitlines() or ["no message"])[-1][:300]
            raise SnapshotError(f"making the calculators' start-up snapshot failed: {last}")
        SNAPSHOT_CACHE.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".partial-{os.getpid()}")
        shutil.copy(made, partial)
        os.replace(partial, cached)  # whole or not at all, whatever runs beside this build
    prune("*.bin", SNAPSHOTS_KEPT)
    return cached.read_bytes()


def prune(pattern: str, kept: int) -> None:
    """Keep the `kept` most recently used files of build/calc-cache/ that match `pattern`."""
    for stale in sorted(SNAPSHOT_CACHE.glob(pattern), key=lambda path: path.stat().st_mtime)[:-kept]:
        stale.unlink(missing_ok=True)


class SnapshotError(KbError):
    code = "B007"


# Pyodide imports these itself as modules (import(), which nothing can unpack on the way): sent as they are.
IMPORTED = ("pyodide/pyodide.mjs", "pyodide/pyodide.asm.mjs")
PACKED_AT_MOST = 0.8  # a file is also written gzipped (".gz") when that makes it at least a fifth smaller


def runtime_files(rules_data: list[tuple[str, str]]) -> Iterator[tuple[str, bytes]]:
    """(path under the site root, bytes) of the calculators' runtime: Pyodide, the wheels, rules_check's code
    and this build's data, the start-up snapshot, and runtime.json naming them (names carry digests, so a
    new build is a new file).

    Whatever the host does about compression, the worker fetches the ".gz" twin of each file that has one and
    unpacks it itself (kb-calc-worker.js): about 14 MB cross the network instead of 44. runtime.json lists the
    twins (`gzip`) and what a first start fetches with its size (`fetch`), for the page's "keep offline" offer."""
    missing = [name for name in PYODIDE_FILES if not (PYODIDE / name).is_file()]
    wheels = sorted(BROWSER_WHEELS.glob("*.whl"))
    if missing or not wheels:
        raise FrontEndMissing(f"the calculators' runtime is not installed ({', '.join(missing) or 'no browser wheels'})")
    files = {f"pyodide/{name}": (PYODIDE / name).read_bytes() for name in PYODIDE_FILES}
    files.update({f"wheels/{wheel.name}": wheel.read_bytes() for wheel in wheels})
    code = code_zip()
    named = {}
    for kind, content in (("code", code), ("data", data_zip(rules_data)), ("snapshot", start_snapshot(wheels, code))):
        named[kind] = f"rules_check-{kind}-{hashlib.sha256(content).hexdigest()[:12]}.{'bin' if kind == 'snapshot' else 'zip'}"
        files[named[kind]] = content
    fetched = {}
    for path, content in files.items():
        yield f"{RUNTIME}/{path}", content
        packed = None if path in IMPORTED else gzipped(content)
        if packed is not None and len(packed) <= PACKED_AT_MOST * len(content):
            yield f"{RUNTIME}/{path}.gz", packed
            fetched[f"{path}.gz"] = len(packed)
        else:
            fetched[path] = len(content)
    manifest = {
        "pyodide": "pyodide/",
        "wheels": [f"wheels/{w.name}" for w in wheels],
        **named,
        "pyodide_version": json.loads((PYODIDE / "package.json").read_text(encoding="utf-8"))["version"],
        "gzip": sorted(path.removesuffix(".gz") for path in fetched if path.endswith(".gz")),
        "fetch": dict(sorted(fetched.items())),
        "fetch_bytes": sum(fetched.values()),
    }
    yield f"{RUNTIME}/runtime.json", json.dumps(manifest, indent=1).encode()


def gzipped(content: bytes) -> bytes:
    """`content` gzipped (no file name or time in the header: the same bytes give the same file), kept in
    build/calc-cache/ by digest: Pyodide's files and the snapshot are the same build after build."""
    key = hashlib.sha256(content).hexdigest()[:24]
    cached = SNAPSHOT_CACHE / f"{key}.gz"
    if cached.is_file():
        os.utime(cached)  # recently used: kept by the pruning below
        return cached.read_bytes()
    packed = gzip.compress(content, compresslevel=9, mtime=0)
    SNAPSHOT_CACHE.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".partial-{os.getpid()}")
    partial.write_bytes(packed)
    os.replace(partial, cached)
    prune("*.gz", GZIPPED_KEPT)
    return packed


def calculator_anchor(check: str) -> str:
    """The id of a check's calculator on its game's Calculators page."""
    return "calc-" + check.replace("_", "-")


class CalculatorBlocks:
    """The site's side of the calculators: a closed block per check on each entry it implements, the
    blocks of a game's Calculators page, and the spec files the blocks read when opened."""

    def __init__(self, resolved: Resolved, fragment: Callable[..., Markup]):
        self.r = resolved
        self.fragment = fragment  # SiteRenderer.fragment: an autoescaping template -> Markup
        self.by_entry: dict[str, list[tuple[str, str]]] = {}
        for game in resolved.kb.calculators:
            for name in game_checks(resolved, game):
                for entry_id in resolved.kb.checks[game][name]["implements"]:
                    self.by_entry.setdefault(entry_id, []).append((game, name))

    def block(self, game: str, name: str, reading: Reading, assets: str, anchor: str | None = None) -> Markup:
        """One closed calculator; `assets` is the relative URL of the site's assets/ from the page, `anchor`
        its id on the page (the Calculators page's, which the game's page links to)."""
        return self.fragment(
            "calculator.html.j2",
            check=name,
            title=self.title(game, name, reading),
            anchor=anchor,
            ui=reading.labels["calculator"],
            script=f"{assets}kb-calc.js",
            spec="calculators.json",
        )

    def title(self, game: str, name: str, reading: Reading) -> str:
        """The question a calculator answers, in the reader's language."""
        title: PerLanguage = self.r.kb.calculators[game]["checks"][name]["title"]
        return reading.text(title)

    def questions(self, game: str, reading: Reading) -> list[dict[str, str]]:
        """Each calculator of a game as the question it answers and its place on the Calculators page."""
        return [
            {"title": self.title(game, name, reading), "href": f"{CALCULATORS.html}#{calculator_anchor(name)}"} for name in game_checks(self.r, game)
        ]

    def of_entry(self, entry_id: str, reading: Reading) -> list[Markup]:
        """The calculators shown under an entry (pages at <lang>/<game>/)."""
        return [self.block(game, name, reading, "../../assets/") for game, name in self.by_entry.get(entry_id, [])]

    def of_game(self, game: str, reading: Reading) -> list[Markup]:
        return [self.block(game, name, reading, "../../assets/", calculator_anchor(name)) for name in game_checks(self.r, game)]

    def spec_file(self, game: str, reading: Reading, href: Callable[[str], str]) -> tuple[str, str]:
        """(docs path, JSON) of the game's calculators.json in one language."""
        spec = calculators_spec(reading, game, href)
        return f"{reading.reader}/{game}/calculators.json", json.dumps(spec, ensure_ascii=False, separators=(",", ":"))
