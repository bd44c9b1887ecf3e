import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
MINI = FIXTURES / "mini" / "data"


def run_generator(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True, cwd=cwd, env=env)


@pytest.fixture
def mini_data(tmp_path: Path) -> Path:
    """A writable copy of the mini data set."""
    target = tmp_path / "data"
    shutil.copytree(MINI, target)
    return target
