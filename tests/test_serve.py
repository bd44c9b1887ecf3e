"""The editor's loop in a real browser: an edit under a running `serve` shows on the open page without
a manual reload; broken data shows a banner while the last good page stays."""
from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MINI, REPO, run_generator
from selenium.webdriver.support.ui import WebDriverWait

from generator.serve import wait_until_serving

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def served(tmp_path: Path):
    data, out = tmp_path / "data", tmp_path / "out"
    shutil.copytree(MINI, data)
    assert run_generator("build", "--data", str(data), "--out", str(out)).returncode == 0
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "generator", "serve", "--data", str(data), "--out", str(out), "--port", str(port)],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    assert wait_until_serving(f"{url}/__kb/status")
    yield data, url
    process.terminate()
    process.communicate(timeout=10)


def test_an_edit_shows_without_a_manual_reload_and_a_mistake_shows_a_banner(driver, served):
    data, url = served
    driver.get(f"{url}/en/mini/10-rules.html")
    assert driver.find_element("css selector", "h1").text == "Rules of Mini"
    driver.execute_script("window.__sameDocument = true")
    chapter = data / "games/mini/chapters/10-rules.yaml"
    good = chapter.read_text(encoding="utf-8")
    chapter.write_text(good.replace("en: Rules of Mini}", "en: Rules of Mini (edited live)}"), encoding="utf-8")
    WebDriverWait(driver, 60, poll_frequency=0.2).until(
        lambda d: d.find_element("css selector", "h1").text == "Rules of Mini (edited live)")
    assert driver.execute_script("return window.__sameDocument === undefined")  # the page reloaded itself
    chapter.write_text(good.replace("en: Rules of Mini}", "en: Rules of Mini (edited live)}") + "chapter: [\n", encoding="utf-8")
    banner = WebDriverWait(driver, 60, poll_frequency=0.2).until(lambda d: d.find_elements("id", "kb-live-error"))[0]
    assert "10-rules.yaml" in banner.text and " E0" in banner.text
    assert driver.find_element("css selector", "h1").text == "Rules of Mini (edited live)"  # the last good page stays
    chapter.write_text(good, encoding="utf-8")
    WebDriverWait(driver, 60, poll_frequency=0.2).until(lambda d: d.find_element("css selector", "h1").text == "Rules of Mini")
    assert driver.find_elements("id", "kb-live-error") == []
