/* Rules knowledge base search: works served or opened from disk (file://).
 * Index files are JavaScript (search/<lang>/*.js) loaded by <script> tags on demand:
 * meta.js lists the first word of every shard; s-<n>.js, a shard, holds a run of words in sorted
 * order, each with its best documents; d-<n>.js holds document titles and links.
 * Folding, tokenising, matching and ranking match generator/search.py (its `replay`) exactly;
 * words are measured in code points (Array.from), as Python does. */
(function () {
  "use strict";
  /* The languages (codes, search folding, search labels) come from the data: assets/kb-languages.js. */
  var CONFIG = window.kbLanguages || {languages: [], fold: {}, labels: {}};
  var FOLD = CONFIG.fold;
  var FOLDED = new RegExp("[" + Object.keys(FOLD).join("") + "]", "g");
  var DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
  var RESULTS = 10;
  var LABELS = CONFIG.labels;
  var EMPTY = {m: {docs: 0, per_chunk: 1, shards: []}, s: {}, d: []};  // a file that failed to load
  var pending = {};   // "kind:key" -> [resolve callbacks]
  var loaded = {};    // "kind:key" -> payload (null while loading)

  function fold(text) {
    text = text.normalize("NFC").toLowerCase();  /* a pasted "z" + combining dot is the letter "ż" */
    return Object.keys(FOLD).length ? text.replace(FOLDED, function (c) { return FOLD[c]; }) : text;
  }
  function tokens(text) { return fold(text).match(/[\p{L}\p{N}]+/gu) || []; }

  function siteRoot() {
    var config = document.getElementById("__config");
    var base = config ? JSON.parse(config.textContent).base : ".";
    return new URL(base.endsWith("/") ? base : base + "/", window.location.href);
  }
  function readerLanguage(root) {
    var rest = window.location.href.slice(root.href.length).split("/")[0];
    return CONFIG.languages.indexOf(rest) >= 0 ? rest : CONFIG.languages[0];
  }

  window.kbSearchChunk = function (kind, key, payload) {
    var id = kind + ":" + key;
    loaded[id] = payload;
    (pending[id] || []).forEach(function (done) { done(payload); });
    delete pending[id];
  };

  function load(root, lang, kind, key) {
    var id = kind + ":" + key;
    if (loaded[id] !== undefined && loaded[id] !== null) return Promise.resolve(loaded[id]);
    return new Promise(function (resolve) {
      (pending[id] = pending[id] || []).push(resolve);
      if (loaded[id] === null) return;
      loaded[id] = null;
      var script = document.createElement("script");
      script.src = new URL("search/" + lang + "/" + (kind === "m" ? "meta" : kind + "-" + key) + ".js", root).href;
      script.onerror = function () { window.kbSearchChunk(kind, key, EMPTY[kind]); };
      document.head.appendChild(script);
    });
  }

  /* A word's head: per weight, highest first, the weight, a count and that many document numbers
   * as differences; every number in 5-bit digits, little-end first, 32+ meaning "more follows". */
  function decodeHead(text) {
    var numbers = [], value = 0, shift = 0, postings = [], i, k;
    for (i = 0; i < text.length; i++) {
      var digit = DIGITS.indexOf(text[i]);
      value += (digit & 31) * Math.pow(2, shift);
      if (digit >= 32) { shift += 5; } else { numbers.push(value); value = 0; shift = 0; }
    }
    for (i = 0; i < numbers.length; i += 2 + numbers[i + 1]) {
      var doc = 0;
      for (k = 0; k < numbers[i + 1]; k++) { doc += numbers[i + 2 + k]; postings.push([doc, numbers[i]]); }
    }
    return postings;
  }

  /* How well an index word matches a query word: exact 1; the query is the start of the
   * word 0.8; a shared start that leaves at most 3 letters of the query unmatched 0.6 × the
   * shared share + 0.2. */
  function quality(query, word) {
    if (query === word) return 1;
    var a = Array.from(query), b = Array.from(word);
    var p = 0, n = Math.min(a.length, b.length);
    while (p < n && a[p] === b[p]) p++;
    if (p === a.length && p >= 3) return 0.8;
    if (p >= 4 && p >= a.length - 3) return 0.6 * p / Math.max(a.length, b.length) + 0.2;
    return 0;
  }

  /* The shards that can hold a word quality() matches: it starts with the query's first
   * max(4, length - 3) letters (two letters match only themselves), so the shard where that
   * prefix would stand and every later one beginning with it. */
  function shardsFor(firsts, query) {
    if (!firsts.length) return [];
    var letters = Array.from(query), prefix = letters.slice(0, Math.max(4, letters.length - 3)).join("");
    var start = 0;
    while (start + 1 < firsts.length && firsts[start + 1] <= prefix) start++;
    var wanted = [start];
    if (letters.length >= 3) {
      while (wanted[wanted.length - 1] + 1 < firsts.length && firsts[wanted[wanted.length - 1] + 1].startsWith(prefix)) {
        wanted.push(wanted[wanted.length - 1] + 1);
      }
    }
    return wanted;
  }

  /* Per query word, a document's best quality × weight over the words it matches; summed over
   * query words, times the square of the share of query words it matched; the top RESULTS. */
  function rank(words, shardsOfWord) {
    var scores = {}, matched = {};
    words.forEach(function (query, i) {
      var best = {};
      shardsOfWord[i].forEach(function (shard) {
        Object.keys(shard).forEach(function (word) {
          var q = quality(query, word);
          if (!q) return;
          decodeHead(shard[word]).forEach(function (posting) {
            var s = q * posting[1];
            if (!best[posting[0]] || best[posting[0]] < s) best[posting[0]] = s;
          });
        });
      });
      Object.keys(best).forEach(function (doc) {
        scores[doc] = (scores[doc] || 0) + best[doc];
        matched[doc] = (matched[doc] || 0) + 1;
      });
    });
    return Object.keys(scores).map(function (doc) {
      var coverage = matched[doc] / words.length;
      return {doc: +doc, score: scores[doc] * coverage * coverage};
    }).sort(function (a, b) { return b.score - a.score || a.doc - b.doc; }).slice(0, RESULTS);
  }

  function search(root, lang, text) {
    var words = tokens(text).filter(function (w) { return Array.from(w).length >= 2; });
    if (!words.length) return Promise.resolve([]);
    return load(root, lang, "m", "meta").then(function (meta) {
      var wanted = words.map(function (w) { return shardsFor(meta.shards, w); });
      var names = Array.from(new Set([].concat.apply([], wanted)));
      return Promise.all(names.map(function (n) { return load(root, lang, "s", String(n)); })).then(function () {
        var ranked = rank(words, wanted.map(function (ns) { return ns.map(function (n) { return loaded["s:" + n]; }); }));
        var parts = Array.from(new Set(ranked.map(function (r) { return Math.floor(r.doc / meta.per_chunk); })));
        return Promise.all(parts.map(function (n) { return load(root, lang, "d", String(n)); })).then(function () {
          return ranked.map(function (r) {
            var d = loaded["d:" + Math.floor(r.doc / meta.per_chunk)][r.doc % meta.per_chunk];
            return {url: new URL(d[0], root).href, title: d[1], context: d[2], kind: d[3], id: d[4], score: r.score};
          });
        });
      });
    });
  }

  function render(box, results, lang) {
    box.textContent = "";
    if (!results.length) {
      var none = document.createElement("p");
      none.className = "kb-search-none";
      none.textContent = LABELS[lang].no_results;
      box.appendChild(none);
      return;
    }
    var list = document.createElement("ol");
    results.forEach(function (r) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = r.url;
      link.className = "kb-search-result";
      link.dataset.entry = r.id;
      var title = document.createElement("span");
      title.className = "kb-search-title";
      title.textContent = r.title;
      var context = document.createElement("span");
      context.className = "kb-search-context";
      context.textContent = r.context;
      link.appendChild(title);
      link.appendChild(context);
      item.appendChild(link);
      list.appendChild(item);
    });
    box.appendChild(list);
  }

  function setUp() {
    if (document.querySelector(".kb-search")) return;
    var root = siteRoot(), lang = readerLanguage(root);
    var form = document.createElement("form");
    form.className = "kb-search";
    form.setAttribute("role", "search");
    var input = document.createElement("input");
    input.type = "search";
    input.name = "q";
    input.placeholder = LABELS[lang].search_placeholder;
    input.setAttribute("aria-label", LABELS[lang].search);
    input.autocomplete = "off";
    var box = document.createElement("div");
    box.className = "kb-search-results";
    box.setAttribute("aria-live", "polite");
    form.appendChild(input);
    form.appendChild(box);
    var header = document.querySelector(".md-header__inner") || document.body;
    header.appendChild(form);
    var timer = null, latest = 0;
    function run() {
      var query = input.value, ticket = ++latest;
      /* nothing to say until a word of two letters is there: no "Nothing found." after the first letter */
      if (!tokens(query).some(function (w) { return Array.from(w).length >= 2; })) {
        box.textContent = ""; form.classList.remove("kb-open"); return;
      }
      search(root, lang, query).then(function (results) {
        if (ticket !== latest) return;
        render(box, results, lang);
        form.classList.add("kb-open");
        form.dataset.query = query;
      });
    }
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 120); });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var first = box.querySelector("a.kb-search-result");
      if (first) window.location.href = first.href; else run();
    });
    window.kbSearch = function (query) { return search(root, lang, query); };
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp); else setUp();
})();

/* Language switch (the header's selector and the links under an entry): land on the same page and
 * entry (#anchor) of the other section when it holds that game, else on that section's home. */
document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest("a.kb-lang, a.md-select__link[hreflang]");
  if (!link) return;
  var config = window.kbLanguages || {languages: [], games: {}};
  var target = link.getAttribute("hreflang");
  var base = document.getElementById("__config");
  var root = new URL(base ? JSON.parse(base.textContent).base + "/" : "./", window.location.href);
  var rest = window.location.href.slice(root.href.length).split("#")[0].split("/");
  if (config.languages.indexOf(rest[0]) < 0 || config.languages.indexOf(target) < 0) return;
  event.preventDefault();
  var game = rest.length > 2 ? rest[1] : null;
  var same = game === null || (config.games[target] || []).indexOf(game) >= 0;
  window.location.href = same ? root.href + [target].concat(rest.slice(1)).join("/") + window.location.hash
                              : root.href + target + "/index.html";
}, true);
