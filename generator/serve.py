"""`serve`: the editor's loop. Serves the built site on 127.0.0.1, watches `data/` and the templates,
rebuilds when they change and makes open pages reload themselves.

- A rebuild is an ordinary `build` in a child process, so it publishes through the same atomic
  switch: while it runs, and when it fails, readers keep the last good site.
- Pages served here (not the built files) get one extra script, `/__kb/live.js`, which asks
  `/__kb/status` about once a second: a new version reloads the page; a failed build shows its
  problems in a banner over the page until the data is mended.
- No folder listings; a busy or invalid port is one line and exit 2.
"""
from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from .errors import UsageError

TEMPLATES = Path(__file__).resolve().parent / "templates"
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
    fetch("/__kb/status", {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (status) {
      if (version === null) version = status.version;
      else if (status.version !== version) { location.reload(); return; }
      if (status.error) show(status.error);
      else if (banner) { banner.remove(); banner = null; }
    }).catch(function () {}).then(function () { setTimeout(poll, 700); });
  }
  poll();
})();
"""


# What `serve` answers for a section's service worker: one that removes itself (and so any offline copy
# an earlier visit of this address installed), so that every page comes fresh from the editor's build.
NO_OFFLINE_WORKER = """self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(
  caches.keys().then((names) => Promise.all(names.map((name) => caches.delete(name)))).then(() => self.registration.unregister())));
"""


class PortError(UsageError):
    code = "U002"
    hint = "Choose another port with --port N (1024-65535), or stop the program that uses this one."


class LiveSite:
    """What the server tells pages: the published version, and the last build's problems if it failed."""

    def __init__(self, data_dir: Path, out: Path):
        self.data_dir, self.out = data_dir, out
        self.version = self.published_version()
        self.error: str | None = None
        self.lock = threading.Lock()
        self.pending = threading.Event()

    def published_version(self) -> str:
        current = self.out / "build" / "current"
        return current.resolve().name if current.is_symlink() else ""

    def status(self) -> dict:
        return {"version": self.version, "error": self.error}

    def rebuild(self) -> None:
        """Build in a child process; on success the switch publishes the new site."""
        with self.lock:
            start = time.perf_counter()
            result = subprocess.run([sys.executable, "-m", "generator", "build", "--data", str(self.data_dir), "--out", str(self.out)],
                                    capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent)
            seconds = time.perf_counter() - start
            if result.returncode == 0:
                self.error = None
                self.version = self.published_version()
                print(f"rebuilt in {seconds:.1f} s: {result.stdout.strip()}", flush=True)
            else:
                self.error = (result.stdout + result.stderr).strip() or f"the build failed (exit {result.returncode})"
                print(f"the build failed ({seconds:.1f} s); the last good site stays served:\n{self.error}", flush=True)

    def watch(self, folders: list[Path], settle: float = 0.3) -> BaseObserver:
        """Rebuild once the watched folders have been quiet for `settle` seconds after a change."""
        site = self

        class Changed(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type in ("created", "modified", "deleted", "moved") and not str(event.src_path).endswith("~"):
                    site.pending.set()

        def rebuild_when_quiet() -> None:
            while True:
                site.pending.wait()
                while site.pending.is_set():  # wait until edits stop arriving
                    site.pending.clear()
                    time.sleep(settle)
                site.rebuild()

        observer = Observer()
        for folder in folders:
            observer.schedule(Changed(), str(folder), recursive=True)
        observer.daemon = True
        observer.start()
        threading.Thread(target=rebuild_when_quiet, daemon=True).start()
        return observer


def handler_for(site: LiveSite):
    class SiteFiles(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0].split("#", 1)[0]
            if path == "/__kb/status":
                return self.send_bytes(json.dumps(site.status()).encode("utf-8"), "application/json")
            if path == "/__kb/live.js":
                return self.send_bytes(LIVE_SCRIPT.encode("utf-8"), "text/javascript")
            if path.endswith("/sw.js"):  # no offline copy while editing: it would answer with the pages it stored
                return self.send_bytes(NO_OFFLINE_WORKER.encode("utf-8"), "text/javascript")
            if path.endswith("/"):
                path += "index.html"
            if path.endswith(".html"):
                file = Path(self.translate_path(path))
                if file.is_file():
                    page = file.read_bytes().replace(b"</body>", b'<script src="/__kb/live.js"></script></body>', 1)
                    return self.send_bytes(page, "text/html; charset=utf-8")
            return super().do_GET()

        def send_bytes(self, body: bytes, content_type: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def list_directory(self, path):
            """No folder listings: a folder without index.html is simply not found."""
            self.send_error(404, "Not found")
            return None

        def log_message(self, format, *args):
            pass
    return SiteFiles


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
    site = LiveSite(data_dir, out)
    if not (out / "site" / "index.html").exists():
        print("site/ is not built yet: building it first", flush=True)
        site.rebuild()
        if site.error:
            return 1
    handler = functools.partial(handler_for(site), directory=str(out / "site"))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as err:
        raise PortError(f"cannot serve on port {port}: {err.strerror}") from None
    if watch:
        site.watch([data_dir, TEMPLATES])
    with server:
        what = f"watching {data_dir} and the templates; pages reload after each rebuild" if watch else "not watching"
        print(f"serving {out / 'site'} on http://127.0.0.1:{port}/ ({what}; Ctrl-C stops)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0
