"""Everything a build is made from, as one digest: `build` leaves a published site alone when the
digest it was built from is the same (see pipeline.build), so building again with nothing changed
costs a fraction of a second instead of a whole build.

The digest covers the bytes of every file of the data folder and of the repository's parts that
shape the output (code, templates, schemas, site configuration, hand-written pages, pinned
versions), and the Python and packages installed. Anything else that changes the output is a
bug of this list: the cost of a file listed needlessly is only a build not skipped."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from .base.paths import GENERATED_DOCS, REPO, RULES_CHECK_DATA

REPO_INPUTS = (
    "generator",
    "schemas",
    "rules_check",
    "docs",
    "mkdocs.yml",
    "pyproject.toml",
    "requirements.txt",
    "requirements-browser.txt",
    "constraints.txt",
    "package-lock.json",
)
NOT_INPUTS = {RULES_CHECK_DATA, GENERATED_DOCS}  # a build's own outputs (links into build/)


def inputs_digest(data_dir: Path) -> str:
    """sha256 of the data folder, the repository's inputs and the installed packages' names and versions."""
    digest = hashlib.sha256()
    for label, root in [("data", data_dir), *((name, REPO / name) for name in REPO_INPUTS)]:
        for path in _files(root):
            digest.update(f"{label}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(path.read_bytes())
            digest.update(b"\0")
    digest.update(f"python {sys.version}\0".encode())
    for folder in sys.path:  # the installed distributions, as their metadata folders name them: name-version.dist-info
        if os.path.isdir(folder):
            digest.update("\0".join(sorted(n for n in os.listdir(folder) if n.endswith((".dist-info", ".egg-info")))).encode())
    return digest.hexdigest()


def _files(root: Path) -> list[Path]:
    """The files under `root` (or `root` itself), sorted; compiled bytecode and outputs left out."""
    if root.is_file():
        return [root]
    found = []
    for folder, subfolders, names in os.walk(root):  # does not enter linked folders
        subfolders[:] = [s for s in subfolders if s != "__pycache__" and Path(folder, s) not in NOT_INPUTS]
        found += [Path(folder, name) for name in names if Path(folder, name) not in NOT_INPUTS]
    return sorted(found)
