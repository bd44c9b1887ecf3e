"""`serve`: the editor's loop. Serves the built site on 127.0.0.1, watches `data/` and the templates,
rebuilds when they change and makes open pages reload themselves.

- A rebuild is the ordinary `build`, run in this process with serve's plan (`incremental.Incremental`)
  and what it keeps between rebuilds (`incremental.Kept`): the site engine stays loaded, only the pages an edit changed are made and
  rendered again, and they are served at once; the search index, offline lists and aids
  follow, and only the whole release is published (`site/`, through `build/current`): a `serve`
  killed between the two leaves the last whole site published (write/release.py). While a build
  runs, and when it fails, readers keep the last good site. `serve` builds once when it starts (so the kept state
  matches the data); `/__kb/status` says `ready` once that is done.
- Pages served here (not the built files) get one extra script, `/__kb/live.js`, which waits on
  `/__kb/status?known=<version>` (answered at once if the version differs, else when it
  changes or after 25 s): a new version reloads the page; a failed build shows its problems in a
  banner over the page until the data is mended.
- No folder listings; a busy or invalid port is one line and exit 2.
"""

from __future__ import annotations

import functools
import gc
import http.server
import json
import os
import re
import socket
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any, TypedDict

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from .base.errors import EXIT_INTERRUPTED, KbError, UsageError
from .base.paths import TEMPLATES, serve_work, served_link
from .base.problems import DataError
from .incremental import Incremental, Kept, Superseded
from .inputs import inputs_digest
from .pipeline import build
from .write.engine import LiveEngine
from .write.release import Release

LIVE_SCRIPT = """(function () {
  var version = null, banner = null;
  function show(problems) {
    if (!banner) {
      banner = document.createElement("pre");
      banner.id = "kb-live-error";
      banner.setAttribute("role", "alert");
      banner.style.cssText = "position:fixed;z-index:1000;left:0;right:0;top:0;margin:0;padding:.8em 1em;max-height:50vh;" +
        "overflow:auto;background:#b00020;color:#fff;font:13px/1.4 monospace;white-space:pre-wrap";
      document.body.appendChild(banner);
    }
    banner.textContent = problems;  /* text, never HTML: the problems quote the data */
  }
  function poll() {
    var known = version === null ? "" : "?known=" + encodeURIComponent(version) + "&error=" + (banner ? 1 : 0);
    fetch("/__kb/status" + known, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (status) {
      if (version === null) version = status.version;
      else if (status.version !== version) { location.reload(); return; }
      if (status.error) show(status.error);
      else if (banner) { banner.remove(); banner = null; }
      setTimeout(poll, 50);
    }).catch(function () { setTimeout(poll, 1000); });
  }
  poll();
})();
"""


# While watching, every section's service worker is this one: pages must come from the server, fresh after
# each rebuild, never from an offline copy (a worker installed by an earlier visit replaces itself with it).
LIVE_WORKER = """self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(
  caches.keys().then((names) => Promise.all(names.map((name) => caches.delete(name)))).then(() => self.registration.unregister())));
"""
SERVICE_WORKER = re.compile(r"^/[^/]+/sw\.js$")


class Status(TypedDict):
    """What `/__kb/status` answers (LIVE_SCRIPT reads it)."""

    version: str
    error: str | None
    ready: bool
    builds: int


class PortError(UsageError):
    code = "U002"


class LiveSite:
    """What the server tells pages: the published version, and the last build's problems if it failed."""

    def __init__(self, data_dir: Path, out: Path) -> None:
        self.data_dir, self.out = data_dir, out
        self.version = self.published_version()
        self.error: str | None = None
        self.ready = False  # the first build (which loads what later rebuilds keep) is done
        self.builds = 0  # builds finished (or failed) since serve started
        self.watching = False
        self.changed = threading.Condition()  # notified when version, error or ready change
        self.pending = threading.Event()
        self.started = time.perf_counter()  # of the build under way
        self.published_inputs: str | None = None  # digest of the inputs of the last whole build published here
        self.kept = Kept(LiveEngine(serve_work(out)), on_publish=self.published, superseded=self.pending.is_set)

    def published_version(self) -> str:
        served = Release.served(self.out)
        return served.name if served else ""

    def status(self) -> Status:
        return {"version": self.version, "error": self.error, "ready": self.ready, "builds": self.builds}

    def wait_for_news(self, known: str, error: bool, seconds: float = 25) -> Status:
        """The status once it differs from what the page knows (its version; whether it shows a banner), or after `seconds`."""
        with self.changed:
            self.changed.wait_for(lambda: self.version != known or (self.error is not None) != error, timeout=seconds)
            return self.status()

    def _tell(self, **news: object) -> None:
        with self.changed:
            for name, value in news.items():
                setattr(self, name, value)
            self.changed.notify_all()

    def published(self, release: str) -> None:
        """Pages of a new release are served: open pages reload (as soon as the pages are out, before the aids)."""
        self.published_inputs = None  # until this build has published all of its outputs (see rebuild)
        self._tell(version=release, error=None)
        print(f"pages served, {time.perf_counter() - self.started:.1f} s into the rebuild", flush=True)

    def rebuild(self) -> None:
        """Build in this process with what is kept between builds; on success the switch publishes the new site.
        When the inputs are byte for byte those of the published site (a file saved unchanged, an
        edit undone), there is nothing to build: the published site is theirs."""
        self.started = time.perf_counter()
        inputs = inputs_digest(self.data_dir)
        if inputs == self.published_inputs:
            self._tell(error=None, ready=True, builds=self.builds + 1)
            print(f"no change since the published site ({time.perf_counter() - self.started:.2f} s)", flush=True)
            return
        try:
            report = build(self.data_dir, self.out, plan=Incremental(self.kept))
        except Superseded:
            print("a newer change is waiting: the rest of this build is left to the next one", flush=True)
        except DataError as err:
            self._fail(err.problems.report() + f"\n{len(err.problems)} problem(s) found")
        except KbError as err:
            self._fail(f"error: {err.report()}")
        except Exception as err:  # a bug: said in one line, and serve goes on watching
            self._fail(f"error: the build failed unexpectedly ({type(err).__name__}: {err}); this is a bug in the generator")
        else:
            self.published_inputs = inputs
            print(f"rebuilt in {time.perf_counter() - self.started:.1f} s: {report.summary()}", flush=True)
        if not self.pending.is_set():
            collect_between_rebuilds()  # before the build is counted as finished: a caller that waits for it (the bench) edits next
        self._tell(ready=True, builds=self.builds + 1)

    def _fail(self, problems: str) -> None:
        self._tell(error=problems)
        print(f"the build failed ({time.perf_counter() - self.started:.1f} s); the last good site stays served:\n{problems}", flush=True)

    def watch(self, folders: list[Path], settle: float = 0.1) -> BaseObserver:
        """Build once, then again each time the watched folders have been quiet for `settle` seconds after a change."""
        site = self
        self.watching = True

        def rebuild_when_quiet() -> None:
            if not site.ready:
                site.pending.set()  # the first build
            while True:
                site.pending.wait()
                while site.pending.is_set():  # wait until edits stop arriving
                    site.pending.clear()
                    time.sleep(settle)
                site.rebuild()

        def changed(event: FileSystemEvent) -> None:
            if not str(event.src_path).endswith("~"):  # an editor's backup copy
                site.pending.set()

        observer = observe(folders, changed)
        threading.Thread(target=rebuild_when_quiet, daemon=True).start()
        return observer


# What changes a file or folder. Only these are asked of the system: reading a file is no change, and each read the
# rebuild made (load and the inputs' digest read every data file) was an event for watchdog's thread to handle
# (at 10x the data, the load under `serve` took 0.3 s instead of 0.1 s).
CHANGES: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    DirCreatedEvent,
    FileModifiedEvent,
    DirModifiedEvent,
    FileDeletedEvent,
    DirDeletedEvent,
    FileMovedEvent,
    DirMovedEvent,
]


def observe(folders: list[Path], changed: Callable[[FileSystemEvent], None]) -> BaseObserver:
    """Start watching `folders` (and what is in them) for CHANGES; `changed` is called with each."""

    class Changed(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            changed(event)

    observer = Observer()
    for folder in folders:
        observer.schedule(Changed(), str(folder), recursive=True, event_filter=CHANGES)
    observer.daemon = True
    observer.start()
    return observer


def collect_between_rebuilds() -> None:
    """Collect the garbage now, while no edit waits, and freeze what survives (mostly what is kept for the next
    rebuild): the cycle collector no longer walks it during the rebuild. At 10x data its oldest-generation
    collections took 0.4-0.6 s of each rebuild before the pages were served. Everything frozen is unfrozen
    first, so what the last rebuild let go of is collected here, not kept for good."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def handler_for(site: LiveSite) -> type[http.server.SimpleHTTPRequestHandler]:
    class SiteFiles(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if not self.host_is_served():
                return self.send_error(403, "Not this server's name (serve answers only 127.0.0.1 and localhost)")
            path = self.path.split("?", 1)[0].split("#", 1)[0]
            if not path.startswith("/") or "\x00" in urllib.parse.unquote(path):
                return self.send_error(400, "Malformed path")
            if path == "/__kb/status":
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                status = site.wait_for_news(query["known"][0], query.get("error") == ["1"]) if "known" in query else site.status()
                return self.send_bytes(json.dumps(status).encode("utf-8"), "application/json")
            if path == "/__kb/live.js":
                return self.send_bytes(LIVE_SCRIPT.encode("utf-8"), "text/javascript")
            if site.watching and SERVICE_WORKER.match(path):
                return self.send_bytes(LIVE_WORKER.encode("utf-8"), "text/javascript")
            if path.endswith("/"):
                path += "index.html"
            if path.endswith(".html"):
                file = Path(self.translate_path(path))
                if file.is_file():
                    page = file.read_bytes().replace(b"</body>", b'<script src="/__kb/live.js"></script></body>', 1)
                    return self.send_bytes(page, "text/html; charset=utf-8")
            return super().do_GET()

        def host_is_served(self) -> bool:
            """A page of another site that a DNS rebinding points at 127.0.0.1 sends its own name as Host:
            only requests naming this loopback server are answered."""
            address = self.server.server_address
            port = address[1] if isinstance(address, tuple) else None
            return self.headers.get("Host", "") in {f"127.0.0.1:{port}", f"localhost:{port}"}

        def send_bytes(self, body: bytes, content_type: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def list_directory(self, path: str | os.PathLike[str]) -> BytesIO | None:
            """No folder listings: a folder without index.html is simply not found."""
            self.send_error(404, "Not found")
            return None

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return SiteFiles


class Server(http.server.ThreadingHTTPServer):
    """The HTTP server of `serve`: a page closed or reloaded while its request was answered (the
    status request waits for news) is no error to print a traceback for."""

    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipeError, ConnectionResetError
            super().handle_error(request, client_address)


def wait_until_serving(url: str, seconds: float = 10) -> bool:
    """For callers that start `serve` in another process (the bench, tests): wait until `url` answers."""
    import urllib.request

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            return True
        except OSError:
            time.sleep(0.05)
    return False


def serve(data_dir: Path, out: Path, port: int, watch: bool = True) -> int:
    Release.serve_published(out)  # not the pages a killed serve left ahead of the published site
    site = LiveSite(data_dir, out)
    if not (out / "site" / "index.html").exists():
        print("site/ is not built yet: building it first", flush=True)
        site.rebuild()
        if site.error:
            return 1
    handler = functools.partial(handler_for(site), directory=str(served_link(out) / "site"))
    try:
        server = Server(("127.0.0.1", port), handler)
    except OSError as err:
        raise PortError(f"cannot serve on port {port}: {err.strerror}") from None
    if watch:
        site.watch([data_dir, TEMPLATES])
    else:
        site.ready = True
    with server:
        what = f"watching {data_dir} and the templates; pages reload after each rebuild" if watch else "not watching"
        print(f"serving {out / 'site'} on http://127.0.0.1:{port}/ ({what}; Ctrl-C stops)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr, flush=True)
            return EXIT_INTERRUPTED
    return 0
