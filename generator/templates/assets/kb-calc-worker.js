/* The calculators' worker: runs rules_check itself (the same Python as the command line) under Pyodide.
 * Started by kb-calc.js as a module worker (from a blob of this file, named with its URL) when a calculator
 * is first opened; everything comes from the site's own assets/calc/ (runtime.json names the files), so it
 * works offline once the service worker has cached them.
 * In:  {id, warm: true}                              start the runtime, answer {id, ready: true}
 *      {id, game, check, inputs (JSON text), lang}   answer {id, result: rules_check.explain.answer(...)}
 * Out: {id, error} when the runtime cannot start or the check fails in a way it does not describe. */
const BASE = new URL("./calc/", self.name || import.meta.url);  // run from a blob: kb-calc.js names the worker's own URL
let starting = null;

async function bytes(path) {
  const response = await fetch(new URL(path, BASE));
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

const phases = {};  // milliseconds of each step of the start, for the bench (scripts/bench_calculators.py)

/* The files runtime.json lists under `gzip` are fetched as their ".gz" twins and unpacked here, whatever the
 * host does about compression (about 14 MB cross the network instead of 44). Pyodide fetches its own files
 * with fetch(): the worker's fetch is wrapped before Pyodide is loaded. */
const plainFetch = self.fetch.bind(self);
function unpacking(packed) {
  return (resource, options) => {
    const url = new URL(resource instanceof Request ? resource.url : String(resource), BASE);
    const path = url.href.startsWith(BASE.href) ? url.href.slice(BASE.href.length) : null;
    if (path === null || !packed.has(path) || typeof DecompressionStream === "undefined") return plainFetch(resource, options);
    return plainFetch(new URL(path + ".gz", BASE), options).then(async (response) => {
      if (!response.ok) return plainFetch(resource, options);
      const body = new Uint8Array(await response.arrayBuffer());
      /* a host that marked the file as gzip-encoded has let the browser unpack it already */
      const stream = body[0] === 0x1f && body[1] === 0x8b ? new Blob([body]).stream().pipeThrough(new DecompressionStream("gzip")) : new Blob([body]).stream();
      return new Response(stream, {status: 200, headers: {"Content-Type": path.endsWith(".wasm") ? "application/wasm" : "application/octet-stream"}});
    });
  };
}

async function start() {
  let mark = performance.now();
  const step = (name) => { const now = performance.now(); phases[name] = Math.round(now - mark); mark = now; };
  const runtime = await (await plainFetch(new URL("runtime.json", BASE))).json();
  self.fetch = unpacking(new Set(runtime.gzip || []));
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", BASE).href);  // here, so that a failure is reported
  const indexURL = new URL(runtime.pyodide, BASE).href;
  const [snapshot, wheels, code, data] = await Promise.all([
    bytes(runtime.snapshot).catch(() => null), Promise.all(runtime.wheels.map(bytes)), bytes(runtime.code), bytes(runtime.data)]);
  step("download");
  /* Started from the build's snapshot (Python running, the wheels and rules_check imported:
   * generator/make_snapshot.mjs); else, should this browser refuse it, started anew. The files are
   * unpacked either way, where the snapshot found them: modules read files later (jsonschema its
   * vocabularies), and the data is this build's. */
  let pyodide = null;
  if (snapshot) {
    try { pyodide = await loadPyodide({ indexURL, _loadSnapshot: snapshot }); phases.from = "snapshot"; } catch (err) { pyodide = null; }
  }
  if (!pyodide) { pyodide = await loadPyodide({ indexURL }); phases.from = "start"; }
  step("python");
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  for (const archive of [...wheels, code, data]) pyodide.unpackArchive(archive, "zip", { extractDir: sitePackages });
  step("unpack");
  const answer = pyodide.pyimport("rules_check.explain").answer;
  step("import");
  return answer;
}

self.onmessage = async (event) => {
  const { id, warm, game, check, inputs, lang } = event.data;
  try {
    starting = starting || start();
    const answer = await starting;
    self.postMessage(warm ? { id, ready: true, phases } : { id, result: answer(game, check, inputs, lang) });
  } catch (err) {
    if (!(err && err.type)) starting = null;  // a failed start may be retried (the network came back); a Python error is the check's
    self.postMessage({ id, error: String((err && err.message) || err) });
  }
};
