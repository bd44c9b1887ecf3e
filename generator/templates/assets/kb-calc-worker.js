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

async function start() {
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", BASE).href);  // here, so that a failure is reported
  const runtime = await (await fetch(new URL("runtime.json", BASE))).json();
  const [pyodide, wheels, packageZip] = await Promise.all([
    loadPyodide({ indexURL: new URL(runtime.pyodide, BASE).href }),
    Promise.all(runtime.wheels.map(bytes)),
    bytes(runtime.package),
  ]);
  wheels.forEach((wheel) => pyodide.unpackArchive(wheel, "wheel"));
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  pyodide.unpackArchive(packageZip, "zip", { extractDir: sitePackages });
  return pyodide.pyimport("rules_check.explain").answer;
}

self.onmessage = async (event) => {
  const { id, warm, game, check, inputs, lang } = event.data;
  try {
    starting = starting || start();
    const answer = await starting;
    self.postMessage(warm ? { id, ready: true } : { id, result: answer(game, check, inputs, lang) });
  } catch (err) {
    if (!(err && err.type)) starting = null;  // a failed start may be retried (the network came back); a Python error is the check's
    self.postMessage({ id, error: String((err && err.message) || err) });
  }
};
