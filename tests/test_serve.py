"""The editor's loop: an edit under a running `serve` is served within the time it prints, and the
site it leaves equals a full build of the same data, whatever the edit touched (a text, a title in
the navigation, a new entry, a glossary term). In a real browser: the open page shows the edit without
a manual reload; broken data shows a banner while the last good page stays."""

from __future__ import annotations

import gc
import hashlib
import json
import shutil
import socket
import subprocess
import sys
import urllib.request
import weakref
from pathlib import Path

import pytest
from browser import wait
from conftest import MINI, REPO, interruptible, run_generator
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

from generator.bench import edit_and_wait, put_marker, wait_for_builds
from generator.pipeline import build
from generator.serve import LiveSite, collect_between_rebuilds, wait_until_serving


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_serve(data: Path, out: Path, port: int, *options: str) -> subprocess.Popen[str]:
    """`generator serve` in the background, its output (both streams) readable from the process; Ctrl-C stops it."""
    command = [sys.executable, "-m", "generator", "serve", "--data", str(data), "--out", str(out), "--port", str(port), *options]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=interruptible)


@pytest.fixture
def served(tmp_path: Path):
    data, out = tmp_path / "data", tmp_path / "out"
    shutil.copytree(MINI, data)
    assert run_generator("build", "--data", str(data), "--out", str(out)).returncode == 0
    port = free_port()
    process = start_serve(data, out, port)
    url = f"http://127.0.0.1:{port}"
    assert wait_until_serving(f"{url}/__kb/status")
    wait_for_builds(url, 1)  # serve's own first build publishes (and reloads open pages) once
    yield data, url
    process.terminate()
    process.communicate(timeout=10)


def page_wait(driver) -> WebDriverWait:
    """Wait on the open page; it may be reloading (live.js) while it is looked at."""
    return wait(driver, 60, ignored_exceptions=[StaleElementReferenceException])


@pytest.mark.browser
def test_an_edit_shows_without_a_manual_reload_and_a_mistake_shows_a_banner(driver, served):
    data, url = served
    driver.get(f"{url}/en/mini/10-rules.html")
    assert driver.find_element("css selector", "h1").text == "Rules of Mini"
    driver.execute_script("window.__sameDocument = true")
    chapter = data / "games/mini/chapters/10-rules.yaml"
    good = chapter.read_text(encoding="utf-8")
    chapter.write_text(good.replace("en: Rules of Mini}", "en: Rules of Mini (edited live)}"), encoding="utf-8")
    page_wait(driver).until(lambda d: d.find_element("css selector", "h1").text == "Rules of Mini (edited live)")
    assert driver.execute_script("return window.__sameDocument === undefined")  # the page reloaded itself
    chapter.write_text(good.replace("en: Rules of Mini}", "en: Rules of Mini (edited live)}") + "chapter: [\n", encoding="utf-8")
    banner = page_wait(driver).until(lambda d: d.find_elements("id", "kb-live-error"))[0]
    assert "10-rules.yaml" in banner.text and " E0" in banner.text
    assert driver.find_element("css selector", "h1").text == "Rules of Mini (edited live)"  # the last good page stays
    chapter.write_text(good, encoding="utf-8")
    page_wait(driver).until(lambda d: d.find_element("css selector", "h1").text == "Rules of Mini")
    assert driver.find_elements("id", "kb-live-error") == []


def status(url: str) -> dict:
    return json.loads(urllib.request.urlopen(f"{url}/__kb/status", timeout=5).read())


def tree(folder: Path) -> dict[str, str]:
    """Every file under a folder (through the published links) with its content digest."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def assert_same_as_a_full_build(data: Path, out: Path, tmp_path: Path, name: str) -> None:
    full = tmp_path / f"full-{name}"
    done = run_generator("build", "--data", str(data), "--out", str(full))
    assert done.returncode == 0, done.stderr
    for part in ("site", "docs/generated", "rules_check/data"):
        served, built = tree(out / part), tree(full / part)
        assert served.keys() == built.keys(), f"{name}: {part}: files differ: {sorted(served.keys() ^ built.keys())}"
        differing = sorted(path for path in served if served[path] != built[path])
        assert differing == [], f"{name}: {part}: content differs from a full build"


@pytest.mark.integration
def test_each_edit_is_served_and_leaves_the_site_a_full_build_makes(tmp_path: Path):
    data, out = tmp_path / "data", tmp_path / "out"
    shutil.copytree(MINI, data)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = start_serve(data, out, port)
    try:
        assert wait_until_serving(f"{url}/__kb/status", seconds=120)  # it builds the site first (none there yet)
        builds = wait_for_builds(url, 1)
        chapter, glossary = data / "games/mini/chapters/10-rules.yaml", data / "games/mini/glossary.yaml"

        seconds = edit_and_wait(chapter, f"{url}/en/mini/10-rules.html", "livemarker")  # one entry's English text
        print(f"\nedit of one entry's text -> page served: {seconds:.2f} s")
        assert seconds < 60
        builds = wait_for_builds(url, builds + 1)
        assert_same_as_a_full_build(data, out, tmp_path, "text")
        # again: the game's other texts are taken as the first edit's rebuild rendered them (incremental.Kept.rendered)
        assert edit_and_wait(chapter, f"{url}/en/mini/10-rules.html", "secondmarker") < 60
        builds = wait_for_builds(url, builds + 1)
        assert_same_as_a_full_build(data, out, tmp_path, "text again")

        edits = {
            "title in the navigation": (chapter, "en: Rules of Mini}", "en: Rules of Mini (renamed)}"),
            "glossary term": (glossary, "ru: отряд}", "ru: подразделение}"),  # a source's word: no translation must change
            "new entry": (
                chapter,
                "entries:\n",
                "entries:\n  - id: mini/added\n    kind: rule\n    title: {en: Added rule}\n"
                "    text: {en: A rule added while serving.}\n    origin: {en: {authored: true}}\n",
            ),
        }
        for name, (path, old, new) in edits.items():
            text = path.read_text(encoding="utf-8")
            assert old in text
            path.write_text(text.replace(old, new, 1), encoding="utf-8")
            builds = wait_for_builds(url, builds + 1)
            assert status(url)["error"] is None, status(url)["error"]
            assert_same_as_a_full_build(data, out, tmp_path, name)
        page = urllib.request.urlopen(f"{url}/pl/mini/10-rules.html", timeout=5).read().decode("utf-8")
        assert "Rules of Mini (renamed)" not in page and "Added rule" in page  # the Polish page: its nav, the new entry (in English)

        good, before = chapter.read_text(encoding="utf-8"), tree(out / "site")
        chapter.write_text(good.replace("kind: rule", "kind: rule\n   broken: indentation", 1), encoding="utf-8")
        builds = wait_for_builds(url, builds + 1)
        assert "10-rules.yaml" in status(url)["error"] and " E0" in status(url)["error"]
        assert tree(out / "site") == before  # the last good site stays
        chapter.write_text(good.replace("Added rule", "Added rule (mended)"), encoding="utf-8")
        builds = wait_for_builds(url, builds + 1)
        assert status(url)["error"] is None
        assert_same_as_a_full_build(data, out, tmp_path, "mended")

        mended, before = chapter.read_bytes(), tree(out / "site")
        chapter.write_bytes(mended)  # saved as it was: nothing to build
        builds = wait_for_builds(url, builds + 1)
        assert status(url)["error"] is None and tree(out / "site") == before
        chapter.write_bytes(mended.replace(b"kind: rule", b"kind: rule\n   broken: indentation", 1))
        builds = wait_for_builds(url, builds + 1)
        assert status(url)["error"] is not None
        chapter.write_bytes(mended)  # the mistake undone: the published site is this data's again
        builds = wait_for_builds(url, builds + 1)
        assert status(url)["error"] is None and tree(out / "site") == before
    finally:
        process.terminate()
        output = process.communicate(timeout=30)[0]
    assert "Traceback" not in output, output
    assert output.count("no change since the published site") == 2, output


@pytest.mark.integration
def test_a_rebuild_starts_from_the_copy_made_after_the_last_publish_and_only_while_it_is_the_served_one(tmp_path: Path):
    """incremental.Kept.spare: the copy of the published release that the next rebuild writes its pages into is made
    when the release is published, not after the edit; a copy of a release no longer served is not used."""
    data, out = tmp_path / "data", tmp_path / "out"
    shutil.copytree(MINI, data)
    site = LiveSite(data, out)
    pages_served: list[str] = []
    on_publish = site.kept.on_publish
    site.kept.on_publish = lambda release: (pages_served.append(release), on_publish(release))[1]
    chapter = data / "games/mini/chapters/10-rules.yaml"
    site.rebuild()  # serve's first build: whole
    releases = out / "build" / "releases"
    published = (out / "build" / "current").resolve()
    spare = site.kept.spare
    assert spare is not None and sorted(releases.iterdir()) == sorted([published, spare.folder])
    page = "site/en/mini/10-rules.html"
    assert (spare.folder / page).stat().st_ino == (published / page).stat().st_ino  # hard links, made ahead

    put_marker(chapter, "sparemarker")
    site.rebuild()
    assert pages_served[1:] == [spare.folder.name]  # the edit's pages went into the copy made ahead
    assert "sparemarker" in (out / page).read_text(encoding="utf-8")
    assert site.kept.spare is not None and site.kept.spare.folder.name not in pages_served

    stale = site.kept.spare
    assert build(data, out, skip_unchanged=False).pages  # another build publishes: the copy is of a release no longer served
    assert not stale.folder.exists()  # the build tidied it away
    put_marker(chapter, "aftermarker")
    site.rebuild()
    assert stale.folder.name not in pages_served and "aftermarker" in (out / page).read_text(encoding="utf-8")
    assert site.status()["error"] is None
    assert gc.get_freeze_count() > 0  # collected after the rebuild, what is kept for the next one frozen
    gc.unfreeze()


@pytest.mark.integration
def test_the_copy_made_ahead_failing_or_interrupted_leaves_the_published_site_whole(tmp_path: Path, monkeypatch):
    """The copy for the next rebuild is made after the release is published: a full disk while copying, or Ctrl-C,
    leaves the published site whole (the build's error handling once discarded the release just published), and the
    next rebuild makes its own copy."""
    from generator.write import release as release_module

    data, out = tmp_path / "data", tmp_path / "out"
    shutil.copytree(MINI, data)
    site, page, chapter = LiveSite(data, out), out / "site/en/mini/10-rules.html", data / "games/mini/chapters/10-rules.yaml"
    real_copytree = shutil.copytree

    def failing_at(call: int, exception: BaseException):
        """shutil.copytree failing after the `call`-th release it copied (as hard links; a folder in it is copied by
        copytree too, called by itself)."""
        calls = []

        def copytree(source, *args, **kwargs):
            real_copytree(source, *args, **kwargs)
            if Path(source).parent.name == "releases":
                calls.append(source)
                if len(calls) == call:
                    raise exception

        return copytree

    monkeypatch.setattr(release_module.shutil, "copytree", failing_at(1, OSError(28, "No space left on device")))
    site.rebuild()  # serve's first build copies nothing before it publishes; then the copy made ahead fails
    assert site.status()["error"] is None and page.is_file() and site.kept.spare is None
    put_marker(chapter, "interrupted")
    # the rebuild copies the published release, then the release of the edit's pages, then the one it publishes
    monkeypatch.setattr(release_module.shutil, "copytree", failing_at(3, KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        site.rebuild()
    published = (out / "build" / "current").resolve()
    assert published.is_dir() and "interrupted" in page.read_text(encoding="utf-8")  # published whole before Ctrl-C
    assert (out / "site/sw.js").is_file() and (out / "site/search").is_dir()
    monkeypatch.setattr(release_module.shutil, "copytree", real_copytree)
    put_marker(chapter, "afterwards")
    site.rebuild()
    published = (out / "build" / "current").resolve()
    assert site.status()["error"] is None and "afterwards" in page.read_text(encoding="utf-8")
    assert site.kept.spare is not None and site.kept.spare.is_copy_of(published)
    assert sorted(path.name for path in (out / "build" / "releases").iterdir()) == sorted([published.name, site.kept.spare.folder.name])


def _two_games(text_of_a: str, b_sees: list[str]):
    """Made-up data of games a and b, one entry each; b's entry may name a's in its `see`."""
    from generator.load.model import Chapter, KnowledgeBase
    from generator.resolve.resolve import Resolved

    kb = KnowledgeBase()
    kb.games = {"a": {"id": "a"}, "b": {"id": "b"}}
    kb.chapters = {"a/c": Chapter("a/c", "a", 1, {"id": "a/c"}, ["a/x"]), "b/c": Chapter("b/c", "b", 1, {"id": "b/c"}, ["b/y"])}
    kb.entries = {
        "a/x": {"id": "a/x", "title": {"en": "X"}, "text": {"en": text_of_a}},
        "b/y": {"id": "b/y", "title": {"en": "Y"}, "text": {"en": "Why."}, "see": b_sees},
    }
    kb.entry_chapter = {"a/x": "a/c", "b/y": "b/c"}
    return Resolved(kb, "version")


@pytest.mark.unit
def test_an_edited_text_renders_its_game_alone_unless_another_game_names_the_entry():
    from generator.incremental import games_to_render

    assert games_to_render(_two_games("Before.", []), _two_games("After.", [])) == {"a"}
    assert games_to_render(_two_games("Before.", ["a/x"]), _two_games("After.", ["a/x"])) is None  # b shows its title
    assert games_to_render(_two_games("Same.", []), _two_games("Same.", [])) == set()


@pytest.mark.integration
def test_serve_is_told_of_changes_to_its_folders_and_not_of_reads(tmp_path: Path):
    """Each rebuild reads every data file (load, the inputs' digest): those reads must not be events for the
    watcher's thread to handle; a change is one."""
    import threading
    import time

    from generator.serve import observe

    (tmp_path / "games").mkdir()
    chapter = tmp_path / "games" / "10-rules.yaml"
    chapter.write_text("entries: []\n", encoding="utf-8")
    events: list[str] = []
    arrived = threading.Event()
    observer = observe([tmp_path], lambda event: (events.append(event.event_type), arrived.set()))
    try:
        time.sleep(0.2)  # the watch is in place
        for _ in range(20):
            chapter.read_bytes()
        time.sleep(0.5)
        assert events == []
        chapter.write_text("entries: [x]\n", encoding="utf-8")
        assert arrived.wait(5) and "modified" in events
    finally:
        observer.stop()
        observer.join(5)


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.mark.unit
def test_between_rebuilds_garbage_is_collected_even_if_frozen_by_the_last_collection():
    """serve freezes what survives each rebuild (so the collector does not walk it during the next one); a cycle that
    was alive then and dropped since must still be collected, not kept frozen for good."""
    try:
        frozen_then_dropped = _Cycle()
        gone = weakref.ref(frozen_then_dropped)
        collect_between_rebuilds()  # frozen: it was alive
        alive = _Cycle()
        del frozen_then_dropped
        assert gone() is not None  # a cycle: only the collector frees it
        collect_between_rebuilds()
        assert gone() is None
        assert gc.get_freeze_count() > 0 and alive.me is alive
    finally:
        gc.unfreeze()


@pytest.mark.unit
def test_a_page_gone_before_its_answer_prints_nothing_and_a_bug_its_traceback(capsys):
    """A page closed while its status request waited for news: the answer meets a closed socket."""
    import http.server

    from generator.serve import Server

    server = Server(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    try:
        for error in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "Connection reset by peer")):
            try:
                raise error
            except ConnectionError:
                server.handle_error(None, ("127.0.0.1", 1))
        assert capsys.readouterr().err == ""
        try:
            raise ValueError("a bug in a handler")
        except ValueError:
            server.handle_error(None, ("127.0.0.1", 1))
        assert "ValueError: a bug in a handler" in capsys.readouterr().err
    finally:
        server.server_close()


def test_serve_refuses_other_hosts_and_malformed_paths(served):
    """A DNS-rebinding page sends its own name as Host: refused (403) for pages and the status alike;
    a NUL or a path without its slash is a 400, not a traceback (Ctrl-C: test_ctrl_c_ends_serve_with_130)."""
    import http.client
    from urllib.parse import urlsplit

    _, url = served
    host, port = urlsplit(url).hostname, urlsplit(url).port

    def get(path: str, host_header: str | None = None) -> int:
        connection = http.client.HTTPConnection(host, port, timeout=10)
        connection.putrequest("GET", path, skip_host=host_header is not None)
        if host_header is not None:
            connection.putheader("Host", host_header)
        connection.endheaders()
        status = connection.getresponse().status
        connection.close()
        return status

    assert get("/en/index.html") == 200 and get("/en/index.html", f"localhost:{port}") == 200
    assert get("/en/index.html", "attacker.example") == 403 and get("/__kb/status", f"attacker.example:{port}") == 403
    assert get("/en/..%00/index.html") == 400 and get("/en/%00") == 400
    assert get("/en/index.html") == 200  # the server lives on


def test_ctrl_c_ends_serve_with_130(tmp_path: Path):
    import signal

    data, out = tmp_path / "data", tmp_path / "out"
    shutil.copytree(MINI, data)
    assert run_generator("build", "--data", str(data), "--out", str(out)).returncode == 0
    port = free_port()
    process = start_serve(data, out, port, "--no-watch")
    try:
        assert wait_until_serving(f"http://127.0.0.1:{port}/__kb/status")
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=30)[0]
    finally:
        process.kill()  # a serve that did not stop does not outlive the test (it serves until killed)
    assert process.returncode == 130, output
    assert "Traceback" not in output
