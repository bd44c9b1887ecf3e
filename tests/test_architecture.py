"""The pipeline flows one way: load -> validate -> resolve -> render -> write. A module may import
modules of its own stage or of earlier ones, never of a later one (read from the source, not by
convention)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

GENERATOR = Path(__file__).resolve().parent.parent / "generator"

# Stage of every module. "base" holds what every stage shares: errors, the text model, languages.
STAGES = ["base", "load", "validate", "resolve", "render", "write", "pipeline"]
STAGE_OF = {
    "errors": "base", "problems": "base", "languages": "base", "linerange": "base", "textmatch": "base",
    "safe_markdown": "base", "escaping": "base", "termmatch": "base", "yamlio": "base", "children": "base",
    "load": "load", "model": "load",
    "validate": "validate", "validate_checks": "validate", "validate_languages": "validate", "validate_markup": "validate",
    "validate_text": "validate", "validate_terms": "validate", "schema": "validate", "coverage": "validate", "validate_calculators": "validate",
    "resolve": "resolve",
    "site": "render", "search": "render", "cards": "render", "aid_layout": "render", "aid_compose": "render", "rules_data": "render",
    "mkdocs_hooks": "render",
    "calculators": "render", "answer_tables": "render", "offline": "render",
    "release": "write", "engine": "write",
    "pipeline": "pipeline", "incremental": "pipeline", "inputs": "pipeline", "foreign_text": "pipeline", "bench": "pipeline", "serve": "pipeline", "ingest": "pipeline",
    "__main__": "pipeline", "__init__": "pipeline",
}


def module_of(path: Path) -> tuple[str, ...]:
    """A file's module inside the generator package: generator/load/yamlio.py -> ("load", "yamlio")."""
    return path.relative_to(GENERATOR).with_suffix("").parts


def imports_of(path: Path) -> set[str]:
    """The generator modules a file imports (relative imports, at any depth of the file), by name."""
    package = module_of(path)[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            target = (*package[:len(package) - node.level + 1], *(node.module.split(".") if node.module else ()))
            if GENERATOR.joinpath(*target).with_suffix(".py").is_file():
                found.add(target[-1])
            else:
                found.update(alias.name for alias in node.names)
    return found


def modules():
    return sorted(path for path in GENERATOR.rglob("*.py") if not (path.stem == "__init__" and path.parent != GENERATOR))


def test_every_module_has_a_stage():
    assert sorted(p.stem for p in modules()) == sorted(STAGE_OF)


def test_no_module_imports_a_later_stage():
    backwards = []
    for path in modules():
        stage = STAGES.index(STAGE_OF[path.stem])
        for imported in imports_of(path):
            if STAGES.index(STAGE_OF[imported]) > stage:
                backwards.append(f"{path.stem} ({STAGE_OF[path.stem]}) imports {imported} ({STAGE_OF[imported]})")
    assert backwards == []


def test_the_rules_check_package_needs_nothing_from_the_generator():
    """It runs without the generator (and will run in a browser): no import of `generator`."""
    package = GENERATOR.parent / "rules_check"
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                assert not node.module.startswith("generator"), path
            if isinstance(node, ast.Import):
                assert not any(alias.name.startswith("generator") for alias in node.names), path
