// Runs the site's search script (assets/kb-search.js, as shipped) under Node.js, for
// tests/test_search_parity.py: a fresh page per query, with just enough of a browser around it.
//
//   node search_in_node.mjs < job.json > results.json
//
// job.json: {"languages": the text of assets/kb-languages.js, "search": the text of assets/kb-search.js,
//            "files": {lang: {file name under search/<lang>/: its text}}, "queries": [{"lang", "q", "game"}]}
// results.json: per query, {"ids", "scores"} of the results kbSearch(q) gives on a page of `game` (null:
// the section's home page), "loaded": the index files its <script> tags asked for, "missing": those not in `files`.
import vm from "node:vm";

const SITE = "http://kb.test/";

// An element that takes what kb-search.js sets on it and ignores the rest.
class Element {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.dataset = {};
    this.childNodes = [];
    this.classList = {add() {}, remove() {}, contains() { return false; }};
  }
  setAttribute() {}
  addEventListener() {}
  appendChild(child) { this.childNodes.push(child); return child; }
}

// A page of the site: `lang`'s home page, or `game`'s. A <script> appended to <head> runs its index file from
// `files` in a later task, then fires its load event (its error event if the file is not there), as a browser does.
function page(job, lang, game, loaded, missing) {
  const path = game ? `${lang}/${game}/index.html` : `${lang}/index.html`;
  const config = new Element("script");
  config.textContent = JSON.stringify({base: game ? "../.." : ".."});
  const head = new Element("head");
  const context = vm.createContext({URL, console});
  head.appendChild = (script) => {
    const name = new URL(script.src).pathname.slice(1);
    setImmediate(() => {
      const [folder, section, file] = name.split("/");
      const text = folder === "search" ? (job.files[section] || {})[file] : undefined;
      loaded.push(file);
      if (text === undefined) { missing.push(name); script.onerror(); return; }
      vm.runInContext(text, context, {filename: name});
      script.onload();
    });
    return script;
  };
  Object.assign(context, {
    location: {href: SITE + path},
    navigator: {languages: [lang], language: lang},
    document: {
      readyState: "complete", head, body: new Element("body"),
      getElementById: (id) => (id === "__config" ? config : null),
      querySelector: () => null,
      createElement: (tag) => new Element(tag),
      createDocumentFragment: () => new Element("fragment"),
      createTextNode: (text) => ({textContent: text}),
      addEventListener() {},
    },
  });
  vm.runInContext("var window = globalThis;", context);
  vm.runInContext(job.languages, context, {filename: "assets/kb-languages.js"});
  vm.runInContext(job.search, context, {filename: "assets/kb-search.js"});
  return context;
}

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const job = JSON.parse(Buffer.concat(chunks).toString("utf-8"));
  const out = [];
  for (const query of job.queries) {
    const loaded = [], missing = [];
    waiting = query;
    const found = await page(job, query.lang, query.game, loaded, missing).kbSearch(query.q);
    out.push({ids: found.results.map((r) => r.id), scores: found.results.map((r) => r.score), loaded, missing});
  }
  waiting = null;
  process.stdout.write(JSON.stringify(out));
}

// A search whose promise never settles leaves nothing to run: Node would end quietly, without results.
let waiting = null;
process.on("exit", () => {
  if (waiting) { console.error("kb-search.js never answered " + JSON.stringify(waiting)); process.exitCode = 1; }
});
main().catch((error) => { console.error(error && error.stack || String(error)); process.exit(1); });
