"""The published output survives anything that happens to a build: kills at any point (inside the
switch too), Ctrl-C, a full disk; leftovers are cleaned by the next build; serve says what is wrong
with a port and lists no folders; aids fetch nothing."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import REPO, interruptible, run_generator

from generator.serve import wait_until_serving

# No module-wide lane (a test is in one lane only): these tests are `integration`, conftest's default, but for the two
# marked `unit` (they build nothing and start no process).

FAULT_POINTS = ["before-link", "before-switch", "before-current-switch", "after-switch"]


def generator_process(*args: str, env: dict | None = None, **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "generator", *args],
        cwd=REPO,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        **popen,
    )


def manifest(site: Path) -> dict[str, str]:
    """Every file of a published site (through its symlinks) with its content digest."""
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(site.rglob("*")) if p.is_file()}


def leftovers(out: Path) -> list[str]:
    build = out / "build"
    current = (build / "current").resolve()
    found = [p.name for p in build.iterdir() if p.name.startswith(("staging-", ".current-", ".served-", "old-"))]
    found += [r.name for r in (build / "releases").iterdir() if r.resolve() != current]
    found += [p.name for p in (build / "cards-cache").glob("*.partial")]
    return found


def processes_mentioning(text: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                found.append(cmdline[:120])
    return found


@pytest.fixture(scope="module")
def two_versions(tmp_path_factory, mini_data_module: Path):
    """An output folder holding a build of the mini data ('old'), a changed copy of the data, and the
    manifest of each version's site (the 'new' one built into a scratch folder)."""
    root = tmp_path_factory.mktemp("crash")
    out, scratch = root / "out", root / "scratch"
    new_data = root / "new-data"
    import shutil

    shutil.copytree(mini_data_module, new_data)
    chapter = new_data / "games/mini/chapters/10-rules.yaml"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("en: Rules of Mini", "en: Rules of Mini (revised)"), encoding="utf-8")
    for data, target in ((mini_data_module, out), (new_data, scratch)):
        result = run_generator("build", "--data", str(data), "--out", str(target))
        assert result.returncode == 0, result.stderr
    old, new = manifest(out / "site"), manifest(scratch / "site")
    assert old != new
    return out, new_data, old, new


@pytest.fixture(scope="module")
def mini_data_module(tmp_path_factory) -> Path:
    import shutil

    from conftest import MINI

    target = tmp_path_factory.mktemp("mini-data") / "data"
    shutil.copytree(MINI, target)
    return target


def test_a_build_killed_anywhere_leaves_the_old_or_the_new_site_whole(two_versions):
    out, new_data, old, new = two_versions
    seen = set()
    for point in FAULT_POINTS:  # inside the switch, deterministically
        process = generator_process("build", "--force", "--data", str(new_data), "--out", str(out), env={"KB_KILL_AT": point})
        process.communicate(timeout=120)
        assert process.returncode == -signal.SIGKILL, point
        published = manifest(out / "site")
        assert published in (old, new), point
        seen.add("new" if published == new else "old")
    assert seen == {"old", "new"}  # killed before the switch: old; after it: new
    rng = random.Random(7)
    for _ in range(5):  # and at random moments of the whole build
        process = generator_process("build", "--force", "--data", str(new_data), "--out", str(out))
        time.sleep(rng.uniform(0.3, 4.0))
        process.kill()
        process.communicate(timeout=60)
        assert manifest(out / "site") in (old, new)
    time.sleep(0.5)
    assert processes_mentioning(str(out)) == []  # the site engine and aid workers died with their build
    result = run_generator("build", "--data", str(new_data), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert manifest(out / "site") == new
    assert leftovers(out) == []


def test_serve_killed_between_an_edits_pages_and_the_rest_leaves_the_last_whole_site_published(tmp_path: Path):
    """`serve` shows an edit's pages before their search index, offline lists and aids are made; killed
    in between (4 of 12 kills of round 3 left new pages beside the old search index and an sw.js that did
    not list them), the published site is still the last whole one; the next `build` publishes the edit
    whole, byte for byte what a fresh build makes, and leaves nothing behind."""
    import shutil

    from conftest import MINI

    from generator.bench import put_marker, wait_for_builds

    data, out, fresh = tmp_path / "data", tmp_path / "out", tmp_path / "fresh"
    shutil.copytree(MINI, data)
    assert run_generator("build", "--data", str(data), "--out", str(out)).returncode == 0
    before = manifest(out / "site")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = generator_process("serve", "--data", str(data), "--out", str(out), "--port", str(port), env={"KB_KILL_AT": "pages-served"})
    try:
        assert wait_until_serving(f"http://127.0.0.1:{port}/__kb/status", seconds=120)
        wait_for_builds(f"http://127.0.0.1:{port}", 1)  # serve's own first build: whole, published
        put_marker(data / "games/mini/chapters/10-rules.yaml", "killedmarker")
        process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == -signal.SIGKILL  # killed with the edit's pages served, the rest not made
    served = (out / "build" / "served" / "site").resolve()
    assert any("killedmarker" in page.read_text(encoding="utf-8") for page in served.rglob("*.html"))
    assert manifest(out / "site") == before  # published: the last whole site, pages and search index alike
    assert run_generator("build", "--data", str(data), "--out", str(out)).returncode == 0
    assert run_generator("build", "--data", str(data), "--out", str(fresh)).returncode == 0
    assert manifest(out / "site") == manifest(fresh / "site") != before
    assert leftovers(out) == [] and (out / "build" / "served").resolve() == (out / "build" / "current").resolve()


def test_ctrl_c_ends_with_one_line_and_the_old_site(two_versions, mini_data_module):
    out, new_data, old, new = two_versions
    for _attempt in range(3):  # on a loaded machine the build may finish before the signal lands: try again
        published = manifest(out / "site")
        process = generator_process(
            "build",
            "--force",
            "--data",
            str(new_data),
            "--out",
            str(out),
            start_new_session=True,
            preexec_fn=interruptible,
        )
        deadline = time.monotonic() + 60
        while not list((out / "build" / "releases").glob("*/work/kb-site.json")):  # the site engine is starting
            assert time.monotonic() < deadline and process.poll() is None, "the build never reached the site engine"
            time.sleep(0.02)
        os.killpg(process.pid, signal.SIGINT)  # what a terminal sends to the whole foreground group
        stdout, stderr = process.communicate(timeout=60)
        if process.returncode != 0:
            break
    assert process.returncode == 130, (stdout, stderr)
    assert stderr.strip() == "interrupted; nothing was replaced"
    assert manifest(out / "site") == published


def test_a_full_disk_ends_with_one_line_and_the_old_site(two_versions):
    """A file-size limit makes writes fail as a full disk does (EFBIG instead of ENOSPC)."""
    out, new_data, old, new = two_versions
    published = manifest(out / "site")

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    process = generator_process("build", "--force", "--data", str(new_data), "--out", str(out), preexec_fn=small_files)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 74, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 2  # the error and its hint
    assert stderr.startswith("error: O001 ")
    assert manifest(out / "site") == published


def test_building_again_with_nothing_changed_leaves_the_site_alone(tmp_path: Path, mini_data: Path):
    out = tmp_path / "out"
    assert run_generator("build", "--data", str(mini_data), "--out", str(out)).returncode == 0
    first = (out / "build/current").resolve()
    (out / "build/releases/killed-build").mkdir()  # what a killed build leaves: tidied even when nothing is built

    again = run_generator("build", "--data", str(mini_data), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == (f"nothing changed since the published build ({first.name}): the site is left as it is (--force builds it again)")
    assert (out / "build/current").resolve() == first and leftovers(out) == []

    chapter = mini_data / "games/mini/chapters/10-rules.yaml"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("en: Rules of Mini", "en: Rules of Mini (revised)"), encoding="utf-8")
    edited = run_generator("build", "--data", str(mini_data), "--out", str(out))
    assert edited.returncode == 0 and edited.stdout.startswith("built "), edited.stdout + edited.stderr
    second = (out / "build/current").resolve()
    assert second != first and "Rules of Mini (revised)" in (out / "site/en/mini/10-rules.html").read_text(encoding="utf-8")

    forced = run_generator("build", "--force", "--data", str(mini_data), "--out", str(out))
    assert forced.returncode == 0 and forced.stdout.startswith("built ")
    assert (out / "build/current").resolve() not in (first, second)


def test_the_inputs_digest_follows_every_input_and_no_output(tmp_path: Path, mini_data: Path, monkeypatch):
    """Code, templates, configuration and data change the digest; outputs, bytecode and data moved elsewhere do not."""
    from generator import inputs

    repo = tmp_path / "repo"
    files = {
        "generator/templates/site/page.html.j2": "<p>{{ title }}</p>",
        "generator/site.py": "x = 1",
        "mkdocs.yml": "site_name: x",
        "schemas/entry.schema.json": "{}",
        "docs/data-format.md": "# Data",
        "docs/generated/en/index.md": "output",
        "rules_check/data/citow.json": "{}",
        "generator/__pycache__/site.cpython-311.pyc": "bytecode",
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    monkeypatch.setattr(inputs, "REPO", repo)
    monkeypatch.setattr(inputs, "NOT_INPUTS", {repo / "rules_check/data", repo / "docs/generated"})
    before = inputs.inputs_digest(mini_data)
    for name in ("docs/generated/en/index.md", "rules_check/data/citow.json", "generator/__pycache__/site.cpython-311.pyc"):
        (repo / name).write_text("changed", encoding="utf-8")
    moved = tmp_path / "elsewhere"
    mini_data.rename(moved)
    assert inputs.inputs_digest(moved) == before
    for name in ("generator/templates/site/page.html.j2", "generator/site.py", "mkdocs.yml", "schemas/entry.schema.json", "docs/data-format.md"):
        (repo / name).write_text(files[name] + " ", encoding="utf-8")
        assert inputs.inputs_digest(moved) != before, name
        (repo / name).write_text(files[name], encoding="utf-8")
    assert inputs.inputs_digest(moved) == before
    (moved / "games/mini/glossary.yaml").write_bytes((moved / "games/mini/glossary.yaml").read_bytes() + b"\n")
    assert inputs.inputs_digest(moved) != before


def _data_as_one_json_text(kb) -> str:
    """The data version as it is defined: a digest of the data's JSON text, keys sorted (resolve puts it together
    from each item's own text, kept between rebuilds)."""
    payload = {
        "games": kb.games,
        "entries": kb.entries,
        "terms": kb.terms,
        "chapters": {cid: c.data for cid, c in kb.chapters.items()},
        "aids": kb.aids,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]


@pytest.mark.unit
def test_the_data_version_is_the_digest_of_the_data_and_follows_an_edit(mini_data: Path):
    from conftest import bundled_validated

    from generator.load.model import KnowledgeBase
    from generator.resolve.resolve import data_version
    from generator.validate.validate import validate

    assert data_version(bundled_validated()[0]) == _data_as_one_json_text(bundled_validated()[0])
    made_up = KnowledgeBase()  # no files: nothing is kept; a game's id the start of another's sorts before it
    made_up.games = {"a-b": {"id": "a-b", "title": {"en": "Ä"}}, "a": {"id": "a", "title": {"en": "ж"}}}
    made_up.aids = {"a-b": {"sections": []}, "a": {"sections": [{"entries": []}]}}
    assert data_version(made_up) == _data_as_one_json_text(made_up)
    before = data_version(validate(mini_data)[0])
    chapter = mini_data / "games/mini/chapters/10-rules.yaml"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("text:", "text: ", 1), encoding="utf-8")  # the same data
    assert data_version(validate(mini_data)[0]) == before
    glossary = mini_data / "games/mini/glossary.yaml"
    glossary.write_text(glossary.read_text(encoding="utf-8").replace("{en: retreat,", "{en: retreats,", 1), encoding="utf-8")
    kb = validate(mini_data)[0]
    assert data_version(kb) == _data_as_one_json_text(kb) != before


def test_a_release_copied_for_serve_does_not_claim_its_inputs(tmp_path: Path):
    from generator.write.release import Release

    stamped = Release(tmp_path)
    stamped.stamp_inputs("a" * 64)
    stamped.publish()
    assert Release.published_inputs(tmp_path) == "a" * 64
    copy = Release(tmp_path, based_on=stamped.folder)
    copy.publish()
    assert Release.published_inputs(tmp_path) is None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_serve_says_when_a_port_is_busy_or_invalid(two_versions):
    out = two_versions[0]
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_generator("serve", "--out", str(out), "--port", str(port))
    assert result.returncode == 2
    assert f"U002 cannot serve on port {port}" in result.stderr and "Traceback" not in result.stderr
    for bad in ("70000", "-1", "http"):
        result = run_generator("serve", "--out", str(out), "--port", bad)
        assert result.returncode == 2 and "is not a port number" in result.stderr, bad


def test_serve_lists_no_folders(two_versions):
    out = two_versions[0]
    port = free_port()
    process = generator_process("serve", "--out", str(out), "--port", str(port))
    try:
        assert wait_until_serving(f"http://127.0.0.1:{port}/index.html")
        for folder in ("search/en/", "assets/", "cards/", "search/"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/{folder}", timeout=2)
            assert refused.value.code == 404, folder
        assert urllib.request.urlopen(f"http://127.0.0.1:{port}/en/index.html", timeout=2).status == 200
    finally:
        process.terminate()
        process.communicate(timeout=10)


class Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self):
        Recorder.requests.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"root:x:0:0")

    def log_message(self, *args):
        pass


@pytest.mark.unit
def test_the_aid_layout_fetches_nothing(tmp_path: Path):
    """The second wall: even HTML that asks for a file or a loopback URL gets nothing, and fails."""
    from generator.render.aids.aid_layout import checked_document
    from generator.render.aids.cards import AidFetchError

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read me")
    loopback = f"http://127.0.0.1:{server.server_address[1]}/x.png"
    try:
        for html in (
            f'<img src="{secret.as_uri()}">',
            f'<img src="{loopback}">',
            f'<link rel="stylesheet" href="{loopback}"><p>x</p>',
            f'<p style="background: url({loopback})">x</p>',
        ):
            with pytest.raises(AidFetchError) as refused:
                checked_document(f"<html><body>{html}</body></html>", "test")
            assert refused.value.code == "B005"
    finally:
        server.shutdown()
    assert Recorder.requests == []


def test_an_entry_with_an_image_on_an_aid_fails_before_anything_is_fetched(tmp_path: Path, mini_data_module: Path):
    """validate refuses it (E061) before any layout; the aid renderer's own check (B005) and the
    fetcher above stay as further walls."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(mini_data_module, data)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    chapter = data / "games/mini/chapters/10-rules.yaml"
    image = f"![x](https://127.0.0.1:{server.server_address[1]}/x.png)"
    # in the clarification, which the editors wrote in English only (no other language's numbers to match)
    chapter.write_text(
        chapter.read_text(encoding="utf-8").replace("**Resolution:** as written.", f"**Resolution:** as written. {image}"), encoding="utf-8"
    )
    try:
        result = run_generator("build", "--data", str(data), "--out", str(tmp_path / "out"))
    finally:
        server.shutdown()
    assert result.returncode == 1
    problems = [line for line in result.stdout.splitlines() if ": E" in line]
    assert len(problems) == 1 and " E061 " in problems[0] and "mini/clarify-retreat-edge" in problems[0]
    assert "Traceback" not in result.stdout + result.stderr
    assert Recorder.requests == []
    assert not (tmp_path / "out" / "site").exists()


@pytest.mark.unit
def test_the_aid_renderer_refuses_an_image_naming_the_entry(mini_data_module: Path):
    """If an image reached the aid renderer (validate bypassed), it names the entry with B005."""
    from generator.render.aids.cards import AidFetchError, aid_sections
    from generator.resolve.resolve import resolve
    from generator.validate.validate import load_valid

    kb = load_valid(mini_data_module)
    kb.entries["mini/support"]["text"]["en"] += " ![x](https://example.org/x.png)"
    with pytest.raises(AidFetchError) as refused:
        aid_sections(resolve(kb), "mini", "en")
    assert refused.value.code == "B005" and "mini/support" in refused.value.message
