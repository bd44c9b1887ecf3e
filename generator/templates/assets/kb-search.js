/* Rules knowledge base search: works served or opened from disk (file://).
 * Index files are JavaScript (search/<lang>/*.js) loaded by <script> tags on demand:
 * w-<hex of first two letters>.js holds words and their documents, d-<n>.js document titles.
 * Folding and tokenising match generator/search.py exactly. */
(function () {
  "use strict";
  var FOLD = {"ą": "a", "ć": "c", "ę": "e", "ł": "l", "ń": "n", "ó": "o", "ś": "s", "ź": "z", "ż": "z", "ё": "е"};
  var LABELS = {
    en: {placeholder: "Search rules, terms, tables…", none: "Nothing found.", label: "Search the rules"},
    pl: {placeholder: "Szukaj zasad, pojęć, tabel…", none: "Nic nie znaleziono.", label: "Szukaj w zasadach"},
    ru: {placeholder: "Правила, термины, таблицы…", none: "Ничего не найдено.", label: "Поиск по правилам"}
  };
  var pending = {};   // "kind:key" -> [resolve callbacks]
  var loaded = {};    // "kind:key" -> payload (null while loading)

  function fold(text) {
    return text.toLowerCase().replace(/[ąćęłńóśźżё]/g, function (c) { return FOLD[c]; });
  }
  function tokens(text) { return fold(text).match(/[\p{L}\p{N}]+/gu) || []; }
  function hex(text) {
    return Array.from(new TextEncoder().encode(text)).map(function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  function siteRoot() {
    var config = document.getElementById("__config");
    var base = config ? JSON.parse(config.textContent).base : ".";
    return new URL(base.endsWith("/") ? base : base + "/", window.location.href);
  }
  function readerLanguage(root) {
    var rest = window.location.href.slice(root.href.length).split("/")[0];
    return ["en", "pl", "ru"].indexOf(rest) >= 0 ? rest : "en";
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
      script.onerror = function () { window.kbSearchChunk(kind, key, kind === "w" ? {} : []); };
      document.head.appendChild(script);
    });
  }

  /* How well an index word matches a query word: exact 1; the query is the start of the
   * word 0.8; a shared start that leaves at most 3 letters of the query unmatched 0.6. */
  function quality(query, word) {
    if (query === word) return 1;
    var p = 0, n = Math.min(query.length, word.length);
    while (p < n && query[p] === word[p]) p++;
    if (p === query.length && p >= 3) return 0.8;
    if (p >= 4 && p >= query.length - 3) return 0.6 * p / Math.max(query.length, word.length) + 0.2;
    return 0;
  }

  function search(root, lang, text) {
    var words = tokens(text).filter(function (w) { return w.length >= 2; });
    if (!words.length) return Promise.resolve([]);
    var keys = words.map(function (w) { return hex(w.slice(0, 2)); });
    return Promise.all(keys.map(function (k) { return load(root, lang, "w", k); })).then(function (chunks) {
      var scores = {}, matched = {};
      words.forEach(function (query, i) {
        var best = {};
        Object.keys(chunks[i]).forEach(function (word) {
          var q = quality(query, word);
          if (!q) return;
          chunks[i][word].forEach(function (posting) {
            var s = q * posting[1];
            if (!best[posting[0]] || best[posting[0]] < s) best[posting[0]] = s;
          });
        });
        Object.keys(best).forEach(function (doc) {
          scores[doc] = (scores[doc] || 0) + best[doc];
          matched[doc] = (matched[doc] || 0) + 1;
        });
      });
      var ranked = Object.keys(scores).map(function (doc) {
        var coverage = matched[doc] / words.length;
        return {doc: +doc, score: scores[doc] * coverage * coverage};
      }).sort(function (a, b) { return b.score - a.score || a.doc - b.doc; }).slice(0, 10);
      return load(root, lang, "m", "meta").then(function (meta) {
        var parts = Array.from(new Set(ranked.map(function (r) { return Math.floor(r.doc / meta.per_chunk); })));
        return Promise.all(parts.map(function (n) { return load(root, lang, "d", String(n)); })).then(function (docChunks) {
          var byPart = {};
          parts.forEach(function (n, i) { byPart[n] = docChunks[i]; });
          return ranked.map(function (r) {
            var d = byPart[Math.floor(r.doc / meta.per_chunk)][r.doc % meta.per_chunk];
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
      none.textContent = LABELS[lang].none;
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
    input.placeholder = LABELS[lang].placeholder;
    input.setAttribute("aria-label", LABELS[lang].label);
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
      if (!query.trim()) { box.textContent = ""; form.classList.remove("kb-open"); return; }
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

/* Language switch: keep the reader on the same entry (the #anchor) when changing language. */
document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest("a.kb-lang");
  if (link && window.location.hash) {
    event.preventDefault();
    window.location.href = link.href.split("#")[0] + window.location.hash;
  }
});
