// Makes the calculators' start-up snapshot (run by generator/calculators.py, with Node.js, at build time):
// Pyodide started, the browser wheels and rules_check's code unpacked and imported, its memory saved.
// A calculator then starts from this snapshot in a fraction of a second instead of starting Python and
// importing jsonschema anew. No game data is read before the snapshot: the data is unpacked after it.
//   node make_snapshot.mjs PYODIDE_DIR INPUT_DIR OUTPUT_FILE     (INPUT_DIR: *.whl and code.zip)
import fs from "node:fs";
import path from "node:path";

const [pyodideDir, inputDir, output] = process.argv.slice(2);
const { loadPyodide } = await import(path.resolve(pyodideDir, "pyodide.mjs"));
const pyodide = await loadPyodide({ indexURL: path.resolve(pyodideDir) + "/", _makeSnapshot: true, stdout: () => {}, stderr: () => {} });
const read = (name) => new Uint8Array(fs.readFileSync(path.join(inputDir, name)));
// Into site-packages, where the browser unpacks them again after loading the snapshot (files jsonschema
// reads later, such as its vocabularies, must be where the imported modules were found).
const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
for (const name of fs.readdirSync(inputDir).filter((n) => n.endsWith(".whl")).sort()) {
  pyodide.unpackArchive(read(name), "wheel", { extractDir: sitePackages });
}
pyodide.unpackArchive(read("code.zip"), "zip", { extractDir: sitePackages });
pyodide.runPython("import jsonschema, rules_check.explain");
fs.writeFileSync(output, pyodide.makeMemorySnapshot());
