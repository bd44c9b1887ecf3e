"""Stage 5, write: stage every output in a temporary folder, build the site there, then swap
whole folders into place, so a failed build never leaves a half-written site behind."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ruamel.yaml import YAML


class BuildError(Exception):
    """The site engine failed; nothing was replaced."""


def write_files(root: Path, files) -> int:
    """Write a {relative path: content} dict, or (path, content) pairs as they are generated.
    Returns how many files were written."""
    count = 0
    for relative, content in (files.items() if isinstance(files, dict) else files):
        count += 1
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return count


def run_mkdocs(repo: Path, docs_dir: Path, site_dir: Path, nav: list, work: Path) -> None:
    """mkdocs build --strict with the repository's mkdocs.yml plus the computed navigation."""
    config = {"INHERIT": str(repo / "mkdocs.yml"), "docs_dir": str(docs_dir), "site_dir": str(site_dir), "nav": nav,
              "theme": {"name": "material", "custom_dir": str(repo / "generator" / "templates" / "theme")},
              "hooks": [str(repo / "generator" / "mkdocs_hooks.py")]}  # relative paths would resolve from `work`
    config_path = work / "mkdocs.yml"
    yaml = YAML()
    with config_path.open("w", encoding="utf-8") as handle:
        yaml.dump(config, handle)
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config_path)],
                            capture_output=True, text=True, cwd=repo)
    if result.returncode != 0:
        raise BuildError((result.stdout + result.stderr).strip())


def swap_in(staged: Path, target: Path) -> None:
    """Replace `target` by `staged` with two renames (same filesystem)."""
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists():
        target.rename(old)
    staged.rename(target)
    if old.exists():
        shutil.rmtree(old)


def staging_dir(out: Path) -> Path:
    build = out / "build"
    build.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="staging-", dir=build))
