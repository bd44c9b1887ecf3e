"""Render, offline: each language section installs on a phone and works with the network off.

Per section `<lang>/sw.js`, a service worker on Workbox's runtime (vendored from npm into assets/workbox/;
workbox-sw loads its modules from there, never from a CDN), precaches everything the section needs: its
pages and calculators.json files and its search index; the shared assets (under assets/) are kept once for
every section and the root's worker (SHARED_CODE: a cache named by their content); the calculators' runtime is kept
when first used or when the reader asks (kb-calc.js), and an address it does not hold, offline, leads to the
section's offline page. The
precache manifest is written here, the role workbox-build's injectManifest plays elsewhere: each file with
a digest of its content as revision, so a new build changes sw.js exactly when something changed, and the
browser installs it beside the old one; assets/kb-offline.js (page side, with workbox-window) then says
that an update is ready. Player aids (PDF) are cached when first opened. `<lang>/manifest.webmanifest`
makes the section installable. Runs after every other part of the site is written: it reads them.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TypedDict

from PIL import Image, ImageDraw

from ..base.errors import FrontEndMissing
from ..base.escaping import js_literal
from ..base.jsontypes import JSONObject
from ..base.languages import Language, Languages
from ..base.paths import NODE_MODULES
from ..resolve.pages import OFFLINE, SECTION_HOME
from .calculators import RUNTIME

WORKBOX = "assets/workbox"
WORKBOX_FILES = {  # file under assets/workbox/ -> its source in node_modules
    "workbox-sw.js": "workbox-sw/build/workbox-sw.js",
    "workbox-core.prod.js": "workbox-core/build/workbox-core.prod.js",
    "workbox-precaching.prod.js": "workbox-precaching/build/workbox-precaching.prod.js",
    "workbox-routing.prod.js": "workbox-routing/build/workbox-routing.prod.js",
    "workbox-strategies.prod.js": "workbox-strategies/build/workbox-strategies.prod.js",
    "workbox-window.prod.umd.js": "workbox-window/build/workbox-window.prod.umd.js",
}
ICON_SIZES = (192, 512)  # what Chromium asks of an installable site
# Shared files a section does not use: Material's own search (the site has its own), source maps.
PACKED_TYPES = {  # kept packed in the offline copy, and the type each is served with when unpacked
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".xml": "application/xml",
    ".svg": "image/svg+xml",
    ".webmanifest": "application/manifest+json",
}
# The calculators' runtime (RUNTIME) is kept on demand (see SW_TEMPLATE).
NOT_PRECACHED = ("assets/javascripts/lunr/", "assets/javascripts/workers/", f"{RUNTIME}/")
SHARED = "assets/"  # what every section uses, kept once for all of them
# What both kinds of worker do with the shared assets (a plain string: inserted into the templates, not formatted);
# KEEP is the worker's own literal (SECTION or ROOT), with "shared" (shared_manifest) and "types".
SHARED_CODE = """/* The shared assets (Material's bundle and styles, the site's scripts and styles, Workbox) are kept once for every
   section: in a cache named by their content, which each worker fills at install (what another section already kept
   is not fetched again; a file that cannot be fetched fails the install, as precaching does). A registry cache holds,
   per worker scope, the shared cache its active worker uses and the one its new worker fills; a shared cache goes only
   when no entry names it, so one section's update never takes what another still serves. */
const SHARED = new Set(KEEP.shared.files.map((path) => new URL(path, self.registration.scope).href));
const REGISTRY = "kb-shared-registry";
const entry = (role) => self.registration.scope + "?shared=" + role;
const keptShared = (href) => caches.match(href, {cacheName: KEEP.shared.cache});
async function fillShared() {
  const cache = await caches.open(KEEP.shared.cache);
  const kept = new Set((await cache.keys()).map((request) => request.url));
  await Promise.all([...SHARED].filter((href) => !kept.has(href)).map(async (href) => {
    const response = await fetch(href, {cache: "reload"});  /* the host's file, not the browser's HTTP cache */
    if (!response.ok) throw new Error("shared asset not fetched: " + href);
    await cache.put(href, response);
  }));
}
/* named in the registry before it is filled: another worker taking over meanwhile keeps it */
const installShared = () => caches.open(REGISTRY).then((registry) => registry.put(entry("next"), new Response(KEEP.shared.cache))).then(fillShared);
async function settleShared() {
  const registry = await caches.open(REGISTRY);
  await registry.put(entry("active"), new Response(KEEP.shared.cache));
  const next = await registry.match(entry("next"));
  if (next && (await next.text()) === KEEP.shared.cache) await registry.delete(entry("next"));
  /* the caches listed before the registry is read: a shared cache opened after the listing is not seen, and one
     seen was named in the registry before it was opened */
  const names = await caches.keys();
  const named = new Set(await Promise.all((await registry.keys()).map((request) => registry.match(request).then((found) => found.text()))));
  const unnamed = names.filter((name) => name.startsWith("kb-shared-") && name !== REGISTRY && !named.has(name));
  await Promise.all(unnamed.map((name) => caches.delete(name)));
  fillShared().catch(() => undefined);  /* anything lost since the install, if the network is there (not waited for) */
}
/* A kept packed twin unpacked (a host that sent it gzip-encoded has let the browser unpack it already). */
async function unpack(packed, address) {
  const body = new Uint8Array(await packed.arrayBuffer());
  const gzipped = body[0] === 0x1f && body[1] === 0x8b;
  const stream = gzipped ? new Blob([body]).stream().pipeThrough(new DecompressionStream("gzip")) : new Blob([body]).stream();
  const type = KEEP.types[address.slice(address.lastIndexOf("."))] || "application/octet-stream";
  return new Response(stream, {headers: {"Content-Type": type}});
}
/* A shared asset from the shared cache (its twin unpacked), or nothing when it is not one or not kept. */
async function sharedAnswer(address) {
  if (SHARED.has(address)) return keptShared(address);
  const packed = SHARED.has(address + ".gz") ? await keptShared(address + ".gz") : undefined;
  return packed ? unpack(packed, address) : undefined;
}
"""
SW_TEMPLATE = """/* A language section offline: generated by generator/render/offline.py, do not edit. */
const SECTION = {section};  /* data: one JSON literal, never code or comment text */
importScripts("../{workbox}/workbox-sw.js");
workbox.setConfig({{modulePathPrefix: "../{workbox}/", debug: false}});
workbox.core.setCacheNameDetails({{prefix: "kb-" + SECTION.code, suffix: SECTION.version}});
const CURRENT = workbox.core.cacheNames.precache;
workbox.core.clientsClaim();  /* the first visit's page is served offline too, not only the next one */
workbox.precaching.precacheAndRoute(SECTION.precache, {{ignoreURLParametersMatching: [/.*/]}});
const KEEP = SECTION;
{shared_code}/* Pages, search index, scripts and styles are kept packed (their ".gz" twins, about a sixth of the size) and
   unpacked when asked for: a section takes a few MB on the phone instead of twelve. */
const PACKED = new Map(SECTION.packed.map((path) => [new URL(path, self.registration.scope).href,
                                                     new URL(path + ".gz", self.registration.scope).href]));
const unpackedAddress = (url) => url.origin + url.pathname + (url.pathname.endsWith("/") ? "index.html" : "");
workbox.routing.registerRoute(({{url}}) => PACKED.has(unpackedAddress(url)), async ({{url, request}}) => {{
  const address = unpackedAddress(url);
  const twin = PACKED.get(address);
  const packed = SHARED.has(twin) ? await keptShared(twin) : await workbox.precaching.matchPrecache(twin);
  return packed ? unpack(packed, address) : fetch(request);  /* not kept yet (the first visit, still installing) */
}});
/* A shared asset kept as it is (an icon, an image): from the shared cache. */
workbox.routing.registerRoute(({{url}}) => SHARED.has(url.origin + url.pathname),
                              async ({{url, request}}) => (await keptShared(url.origin + url.pathname)) || fetch(request));
/* The calculators' runtime (about 14 MB) is not precached: it is kept when a calculator first fetches it, or
   when the reader chooses "keep calculators offline"; its cache is named after this build's runtime. */
workbox.routing.registerRoute(({{url}}) => url.pathname.includes("/{runtime}/"),
                              new workbox.strategies.CacheFirst({{cacheName: SECTION.runtime}}));
/* Any other address of the section, with the network gone: the section's offline page, which says what is kept. */
workbox.routing.setDefaultHandler(new workbox.strategies.NetworkOnly());
workbox.routing.setCatchHandler(async ({{request, url}}) => {{
  if (request.mode !== "navigate") return Response.error();
  return Response.redirect(new URL("offline.html?from=" + encodeURIComponent(url.pathname), self.registration.scope).href, 302);
}});
/* Player aids: kept once opened, in a cache of this data version (a new build's aids are fetched anew). */
const AIDS = "kb-" + SECTION.code + "-aids-" + SECTION.version;
/* fetched from the host (not the browser's HTTP cache), so a new build's aid is the new file */
workbox.routing.registerRoute(({{url}}) => url.pathname.includes("/cards/"),
                              new workbox.strategies.CacheFirst({{cacheName: AIDS, fetchOptions: {{cache: "no-cache"}}}}));
/* A new data version replaces the old copy: its caches (pages and aids) go when this worker takes over. */
self.addEventListener("activate", (event) => {{
  event.waitUntil(caches.keys().then((names) => Promise.all(
    names.filter((name) => (name.startsWith("kb-" + SECTION.code + "-") && name !== CURRENT && name !== AIDS)
                           || name === "kb-aids" || (name.startsWith("kb-calc-") && name !== SECTION.runtime))
      .map((name) => caches.delete(name)))).then(settleShared));
}});
self.addEventListener("install", (event) => event.waitUntil(installShared()));
/* Always replaceable: a worker that does not answer as this site's workers do (a broken build's, or one whose code
   came from elsewhere) would keep the section until every tab of it is closed. This one takes over from such a
   worker at once, so that the next visit after a fix gets the real pages; from one of ours it waits for the
   reader's "Reload" (kb-offline.js), as any update does. */
self.addEventListener("install", (event) => {{
  const active = self.registration.active;
  if (!active) return;
  event.waitUntil(new Promise((resolve) => {{
    const channel = new MessageChannel();
    const silent = setTimeout(() => resolve(false), 3000);
    channel.port1.onmessage = (answer) => {{
      clearTimeout(silent);
      resolve(!!answer.data && typeof answer.data.bytes === "number" && typeof answer.data.runtime === "string");
    }};
    active.postMessage({{type: "KB_SIZE"}}, [channel.port2]);
  }}).then((ours) => (ours ? undefined : self.skipWaiting())));
}});
self.addEventListener("message", (event) => {{
  if (event.data && event.data.type === "SKIP_WAITING") self.skipWaiting();
  /* what the section keeps, for the page's notice: bytes precached, and the runtime's cache */
  if (event.data && event.data.type === "KB_SIZE" && event.ports[0]) event.ports[0].postMessage({{bytes: SECTION.bytes, runtime: SECTION.runtime}});
}});
"""


ROOT_SW_TEMPLATE = """/* The site's root, offline: generated by generator/render/offline.py, do not edit.
   Each language section has its own worker (<lang>/sw.js) for its pages; this one, at the root, answers what no
   section's worker holds: the root page, a section never visited, the player aids (kept once opened), and
   with the network gone any address it cannot answer leads to the offline page in the reader's language. */
const ROOT = {root};  /* data: one JSON literal, never code or comment text */
const CACHE = "kb-root-" + ROOT.version;
const KEEP = ROOT;
{shared_code}const AIDS = "kb-root-aids";  /* aids opened from any page: the newest copy fetched, kept across builds */
self.addEventListener("install", (event) => {{
  event.waitUntil(installShared().then(() => caches.open(CACHE))
    .then((cache) => cache.addAll(ROOT.precache.map((path) => new Request(new URL(path, self.registration.scope), {{cache: "no-cache"}}))))
    .then(() => self.skipWaiting()));
}});
self.addEventListener("activate", (event) => {{
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name.startsWith("kb-root-") && name !== CACHE && name !== AIDS)
      .map((name) => caches.delete(name))))
    .then(settleShared)
    .then(() => self.clients.claim()));
}});
self.addEventListener("fetch", (event) => {{
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || !url.href.startsWith(self.registration.scope)) return;
  event.respondWith(answer(event.request, url));
}});
function readersLanguage() {{
  const wanted = (self.navigator.languages || []).map((code) => code.split("-")[0]);
  return wanted.find((code) => ROOT.languages.includes(code)) || ROOT.languages[0];
}}
async function answer(request, url) {{
  const path = url.href.slice(self.registration.scope.length).split(/[?#]/)[0];
  const aid = path.startsWith("cards/");
  try {{
    const response = await fetch(request, aid ? {{cache: "no-cache"}} : undefined);
    if (aid && response.ok) {{
      const copy = response.clone();
      await (await caches.open(AIDS)).put(request.url.split(/[?#]/)[0], copy);
    }}
    return response;
  }} catch (err) {{
    const asset = await sharedAnswer(url.origin + url.pathname);
    if (asset) return asset;
    /* kept here or by a section's worker (its precache keys carry a revision: the search part is ignored) */
    const address = path === "" ? new URL("index.html", self.registration.scope).href : request.url;
    const kept = await caches.match(address, {{ignoreSearch: true}});
    if (kept) return kept;
    if (request.mode !== "navigate") return Response.error();
    const first = path.split("/")[0];
    const lang = ROOT.languages.includes(first) ? first : readersLanguage();
    return Response.redirect(new URL(lang + "/offline.html?from=" + encodeURIComponent(url.pathname), self.registration.scope).href, 302);
  }}
}}
"""
ROOT_PAGES = ("index.html", "404.html")  # with each section's offline.html: what the root worker keeps, and their assets
PAGE_REFERENCE = re.compile(r'(?:href|src)="([^"#?]+)')


def workbox_files() -> Iterator[tuple[str, bytes]]:
    for name, source in WORKBOX_FILES.items():
        path = NODE_MODULES / source
        if not path.is_file():
            raise FrontEndMissing(f"Workbox is not installed (node_modules/{source})")
        yield f"{WORKBOX}/{name}", path.read_bytes()


def built_sections(site: Path, languages: Languages) -> list[Language]:
    """The languages the site has a section in (its home page written): each gets a web app manifest, a sitemap and
    a service worker."""
    return [language for language in languages if (site / language.code / SECTION_HOME.html).is_file()]


def sections_files(site: Path, languages: Languages) -> dict[str, list[str]]:
    """`section_files` of each section the site has, by language code: listed once for the packed twins and the
    service workers (the three bundled sections: 0.08 s of CPU a listing, three listings a build before)."""
    return {language.code: section_files(site, language.code) for language in built_sections(site, languages)}


def section_files(site: Path, code: str) -> list[str]:
    """Paths (from the site root) of everything the section needs offline, sorted (without the packed twins)."""
    chosen = [*kept_under(site, code), *kept_under(site, SHARED.rstrip("/")), *kept_under(site, f"search/{code}")]
    chosen += [path.relative_to(site).as_posix() for path in site.glob("*/sitemap.xml") if not path.is_relative_to(site / code)]
    return sorted(chosen)


def kept_under(site: Path, top: str) -> list[str]:
    """Paths (from the site root) of the files under `top` an offline copy keeps."""
    chosen = []
    for path in (site / top).rglob("*"):
        relative = path.relative_to(site).as_posix()
        if path.is_file() and not relative.endswith((".map", "sw.js", ".gz")) and not relative.startswith(NOT_PRECACHED):
            chosen.append(relative)
    return chosen


def packed(path: str) -> bool:
    """Whether the offline copy keeps this file as its gzip twin (text, which packs to a sixth)."""
    return Path(path).suffix in PACKED_TYPES


def packed_twins(site: Path, sections: dict[str, list[str]]) -> Iterator[tuple[str, bytes]]:
    """(path + ".gz", gzip bytes) of every file a section keeps packed (`sections`: sections_files), each once (the
    shared ones too)."""
    seen: set[str] = set()
    used: dict[tuple[int, int, int, int], bytes] = {}
    for files in sections.values():
        for path in files:
            if packed(path) and path not in seen:
                seen.add(path)
                yield f"{path}.gz", gzipped_file(site / path, used)
    _gzipped.clear()  # serve's rebuilds keep only this build's, not every version of every page
    _gzipped.update(used)


_gzipped: dict[tuple[int, int, int, int], bytes] = {}
# zlib's level for the packed twins. Measured on the bundled site's 3,102 text files (38 MB): level 9 packs them to
# 7.47 MB in 1.02 s, level 6 to 7.51 MB (0.6 % more) in 0.59 s of a cold build's CPU.
PACK_LEVEL = 6


def gzipped_file(path: Path, used: dict[tuple[int, int, int, int], bytes]) -> bytes:
    """A file gzipped (no name or time in the header), made once while the file stays the same file (see
    `digest`: serve's rebuilds keep unchanged files as hard links); noted in `used`."""
    stat = path.stat()
    key = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
    used[key] = _gzipped[key] if key in _gzipped else gzip.compress(path.read_bytes(), compresslevel=PACK_LEVEL, mtime=0)
    return used[key]


def stored_as(path: str) -> str:
    """The file the offline copy keeps for `path`: its packed twin, or itself."""
    return f"{path}.gz" if packed(path) else path


def shared(path: str) -> bool:
    """Whether a file of the section's offline copy is one every section uses (kept once: see SHARED_CODE)."""
    return path.startswith(SHARED)


def precache_manifest(site: Path, code: str, files: list[str]) -> list[dict[str, str]]:
    """Workbox's precache list for the section's own files (of its `files`: section_files), URLs relative to
    <code>/sw.js (packed twins where the file packs), revision = the content digest of the file itself."""
    return [{"url": relative_to_section(stored_as(path), code), "revision": digest(site / path)} for path in files if not shared(path)]


def shared_manifest(site: Path, code: str | None = None) -> SharedManifest:
    """The shared assets as a worker keeps them: the cache, named by a digest of their paths and contents (the
    same for every section of a build, and the root), the files (relative to <code>/sw.js, or the root's,
    packed twins where the file packs) and their bytes."""
    files = sorted(kept_under(site, SHARED.rstrip("/")))
    contents = "\n".join(f"{stored_as(path)} {digest(site / path)}" for path in files)
    return {
        "cache": "kb-shared-" + hashlib.sha256(contents.encode()).hexdigest()[:16],
        "files": [relative_to_section(stored_as(path), code) if code else stored_as(path) for path in files],
        "bytes": sum((site / stored_as(path)).stat().st_size for path in files),
    }


class SharedManifest(TypedDict):
    """The shared assets as a worker keeps them (shared_manifest)."""

    cache: str  # the cache's name: "kb-shared-" and a digest of the files' paths and contents
    files: list[str]
    bytes: int


def relative_to_section(path: str, code: str) -> str:
    return path[len(code) + 1 :] if path.startswith(f"{code}/") else f"../{path}"


_digests: dict[tuple[int, int, int, int], str] = {}


def digest(path: Path) -> str:
    """A file's content digest, kept while the file stays the same file (device, inode, size, time): the
    shared files are in every section's list, and serve's rebuilds keep unchanged files as hard links."""
    stat = path.stat()
    key = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
    if key not in _digests:
        _digests[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return _digests[key]


def offline_files(site: Path, languages: Languages) -> Iterator[tuple[str, bytes]]:
    """(path under the site, bytes): Workbox's runtime, the icons, each section's web app manifest and
    sitemap (Material's language selector reads it) — all precached by `service_workers`, written after."""
    yield from workbox_files()
    for size in ICON_SIZES:
        yield f"assets/images/icon-{size}.png", app_icon(size)
    for language in built_sections(site, languages):
        name = language.ui["home"]
        manifest = {
            "name": name,
            "short_name": name[:12],
            "lang": language.code,
            "start_url": f"./{SECTION_HOME.html}",
            "scope": "./",
            "display": "standalone",
            "background_color": "#ffffff",
            "theme_color": "#4051b5",
            "icons": [
                {"src": f"../assets/images/icon-{size}.png", "sizes": f"{size}x{size}", "type": "image/png", "purpose": "any maskable"}
                for size in ICON_SIZES
            ],
        }
        yield f"{language.code}/manifest.webmanifest", json.dumps(manifest, ensure_ascii=False, indent=1).encode()
        yield f"{language.code}/sitemap.xml", section_sitemap(site, language.code)


def section_sitemap(site: Path, code: str) -> bytes:
    """The site's sitemap.xml cut to one section: Material's language selector asks each section for one."""
    text = (site / "sitemap.xml").read_text(encoding="utf-8") if (site / "sitemap.xml").is_file() else ""
    urls = re.findall(r"<url>.*?</url>", text, flags=re.S)
    kept = [url for url in urls if re.search(rf"<loc>[^<]*/{re.escape(code)}/", url)]
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + "\n".join(kept) + "\n</urlset>\n"
    ).encode()


def service_workers(site: Path, sections: dict[str, list[str]], data_version: str) -> Iterator[tuple[str, bytes]]:
    """(path, bytes) of each section's sw.js, its precache manifest read from the site as written (`sections`:
    sections_files)."""
    runtime = site / RUNTIME / "runtime.json"
    for code, files in sections.items():
        section = {
            "code": code,
            "version": data_version,
            "precache": precache_manifest(site, code, files),
            "shared": shared_manifest(site, code),
            "packed": [relative_to_section(path, code) for path in files if packed(path)],
            "types": PACKED_TYPES,
            "bytes": sum((site / stored_as(path)).stat().st_size for path in files),
            "runtime": "kb-calc-" + (digest(runtime) if runtime.is_file() else "none"),
        }
        script = SW_TEMPLATE.format(workbox=WORKBOX, runtime=RUNTIME, section=js_literal(section, sort_keys=True), shared_code=SHARED_CODE)
        yield f"{code}/sw.js", script.encode()


def section_manifest(worker: str) -> JSONObject:
    """What a section's sw.js was written with (its SECTION literal): precache list, bytes kept, runtime cache."""
    section: JSONObject = json.loads(worker.split("const SECTION = ", 1)[1].split(";  /*", 1)[0])
    return section


def phone_storage(site: Path) -> dict[str, int]:
    """Bytes a phone keeps with every section offline: each section's own files (its precache), the shared
    assets, kept once for all sections ("shared": one cache, named by their content, that each section's worker
    fills and none deletes while another names it), the root worker's pages ("root"), and the calculators'
    runtime, kept once for all sections (one cache, named after the runtime) as fetched."""
    kept, caches = {}, {}
    for worker in sorted(site.glob("*/sw.js")):
        section = section_manifest(worker.read_text(encoding="utf-8"))
        kept[worker.parent.name] = section["bytes"] - section["shared"]["bytes"]
        caches[section["shared"]["cache"]] = section["shared"]["bytes"]
    kept["shared"] = sum(caches.values())
    root = site / "sw.js"
    if root.is_file():  # the root's pages and each section's offline page (its assets: the shared ones)
        listed = json.loads(root.read_text(encoding="utf-8").split("const ROOT = ", 1)[1].split(";  /*", 1)[0])
        kept["root"] = sum((site / path).stat().st_size for path in listed["precache"])
    runtime = site / RUNTIME / "runtime.json"
    kept["calculators"] = json.loads(runtime.read_text(encoding="utf-8"))["fetch_bytes"] if runtime.is_file() else 0
    return kept


def root_service_worker(site: Path, languages: Languages, data_version: str) -> Iterator[tuple[str, bytes]]:
    """(path, bytes) of the root's sw.js: it keeps the root's pages, each section's offline page (listed by
    revision) and the shared assets, in the sections' shared cache (so that each page shows as itself offline)."""
    pages = [page for page in ROOT_PAGES if (site / page).is_file()]
    pages += [f"{language.code}/{OFFLINE.html}" for language in languages if (site / language.code / OFFLINE.html).is_file()]
    if not pages:
        return
    used = set(pages)
    for page in pages:
        folder = (site / page).parent
        for reference in PAGE_REFERENCE.findall((site / page).read_text(encoding="utf-8")):
            target = (folder / reference).resolve() if not reference.startswith("/") else (site / reference.lstrip("/")).resolve()
            if target.is_file() and target.is_relative_to(site.resolve()) and target.suffix in (".css", ".js", ".png", ".svg"):
                used.add(target.relative_to(site.resolve()).as_posix())
    assets = shared_manifest(site)
    own = used - {path.removesuffix(".gz") for path in assets["files"]}  # the assets: in the shared cache, as the sections'
    root = {
        "version": data_version,
        "languages": [language.code for language in languages if (site / language.code).is_dir()],
        "precache": sorted(own),
        "revisions": {path: digest(site / path) for path in sorted(own)},
        "shared": assets,
        "types": PACKED_TYPES,
    }  # a change: a new worker
    yield "sw.js", ROOT_SW_TEMPLATE.format(root=js_literal(root, sort_keys=True), shared_code=SHARED_CODE).encode()


def app_icon(size: int) -> bytes:
    """The installed site's icon, drawn here: a white die showing five on the theme's indigo."""
    image = Image.new("RGBA", (size, size), "#4051b5")
    draw = ImageDraw.Draw(image)
    unit = size / 16
    draw.rounded_rectangle((3 * unit, 3 * unit, 13 * unit, 13 * unit), radius=2 * unit, fill="white")
    for x, y in ((5.5, 5.5), (10.5, 5.5), (8, 8), (5.5, 10.5), (10.5, 10.5)):
        draw.ellipse(((x - 1) * unit, (y - 1) * unit, (x + 1) * unit, (y + 1) * unit), fill="#4051b5")
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=True)
    return buffer.getvalue()
