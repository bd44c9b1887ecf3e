"""The pipeline flows one way: load -> validate -> resolve -> render -> write. A module may import
modules of its own stage or of earlier ones, never of a later one (read from the source, not by
convention).

A module's stage is the folder it is in: generator/validate/schema.py is stage validate,
generator/render/aids/cards.py stage render. `base/` holds what every stage shares (errors, the
text helpers, languages); `tools/` what runs beside the pipeline without running it (ingest,
foreign_text). The package's own top-level modules (the command line, pipeline.py, serve, bench…)
run the pipeline: they come last and may import any stage."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from generator.base.paths import GENERATOR

pytestmark = pytest.mark.unit

STAGES = ["base", "load", "validate", "resolve", "render", "write", "tools", "pipeline"]
TOP_LEVEL = "pipeline"  # the stage of generator/*.py


def module_of(path: Path) -> tuple[str, ...]:
    """A file's module inside the generator package: generator/load/yamlio.py -> ("load", "yamlio")."""
    return path.relative_to(GENERATOR).with_suffix("").parts


def stage_of(module: tuple[str, ...]) -> str:
    return module[0] if len(module) > 1 or GENERATOR.joinpath(module[0]).is_dir() else TOP_LEVEL


def is_module(module: tuple[str, ...]) -> bool:
    return GENERATOR.joinpath(*module).with_suffix(".py").is_file()


def imports_of(path: Path) -> set[tuple[str, ...]]:
    """The generator modules (or packages) a file imports, relative or absolute, at any depth of the file."""
    package = module_of(path)[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            target = (*package[: len(package) - node.level + 1], *(node.module.split(".") if node.module else ()))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "generator":
            target = tuple(str(node.module).split(".")[1:])
        elif isinstance(node, ast.Import):
            found.update(tuple(alias.name.split(".")[1:]) for alias in node.names if alias.name.split(".")[0] == "generator")
            continue
        else:
            continue
        if is_module(target):
            found.add(target)
        else:  # a package: `from . import validate_text` imports its modules
            found.update((*target, alias.name) if is_module((*target, alias.name)) else target for alias in node.names)
    return found


MODULES = sorted(GENERATOR.rglob("*.py"))


def test_every_module_has_a_stage():
    """Every folder of modules is a stage (a new folder is a new stage: add it to STAGES, in its place) and a package."""
    folders = {module_of(path)[0] for path in MODULES if len(module_of(path)) > 1}
    assert folders <= set(STAGES) - {TOP_LEVEL}, folders - set(STAGES)
    assert all(path.parent.joinpath("__init__.py").is_file() for path in MODULES)


def test_no_module_imports_a_later_stage():
    backwards = []
    for path in MODULES:
        module = module_of(path)
        for imported in imports_of(path):
            assert imported == () or is_module(imported) or GENERATOR.joinpath(*imported).is_dir(), (path, imported)
            if imported and STAGES.index(stage_of(imported)) > STAGES.index(stage_of(module)):
                backwards.append(f"{'.'.join(module)} ({stage_of(module)}) imports {'.'.join(imported)} ({stage_of(imported)})")
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


# radon grades a function's cyclomatic complexity A (1-5) … C (11-20), D (21-30), E, F: above C, a
# function has more paths than a reader keeps in mind, and its tests rarely reach them all.
MOST_PATHS = 20


def test_no_function_of_the_generator_or_rules_check_is_above_radon_grade_c():
    from radon.complexity import cc_visit  # pinned in requirements.txt (development)

    too_complex = [
        f"{path.relative_to(GENERATOR.parent)}:{block.lineno} {block.fullname} ({block.complexity})"
        for path in [*MODULES, *sorted((GENERATOR.parent / "rules_check").rglob("*.py"))]
        for block in cc_visit(path.read_text(encoding="utf-8"))
        if block.complexity > MOST_PATHS
    ]
    assert too_complex == []
