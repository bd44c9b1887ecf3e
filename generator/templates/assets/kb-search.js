/* Rules knowledge base search: works served or opened from disk (file://).
 * Index files are JavaScript (search/<lang>/*.js) loaded by <script> tags on demand:
 * meta.js lists each game's documents, the first word of every shard, the number of typo files and
 * the search's constants; s-<n>.js, a shard, holds a run of words in sorted order, each with its
 * rarity and best documents; t-<n>.js, the deletion neighbourhood of long words' heads, for typos;
 * d-<n>.js, document titles, links and snippet texts.
 * Folding, tokenising, matching and ranking match generator/render/search.py (its `replay`) exactly;
 * words are measured in code points (Array.from), as Python does. */
(function () {
  "use strict";
  /* The languages (codes, names, search folding, search labels) come from the data: assets/kb-languages.js. */
  var CONFIG = window.kbLanguages || {languages: [], names: {}, fold: {}, labels: {}};
  var FOLD = CONFIG.fold;
  var FOLDED = new RegExp("[" + Object.keys(FOLD).join("") + "]", "g");
  var WORD = /[\p{L}\p{N}]+/gu;
  var DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
  /* R: the constants of generator/render/search.py (RANKING), from meta.js; SNIPPET_LEAD: letters kept
   * before the first marked word when the snippet starts later */
  var R = {};
  var SNIPPET_LEAD = 60;
  var LABELS = CONFIG.labels;
  /* EMPTY: a file that failed to load; loading, loaded: "lang:kind:key" -> the promise of its payload, its payload */
  var EMPTY = {m: {docs: 0, per_chunk: 1, games: {}, shards: [], typos: 1, ranking: {typo_min_letters: 1 / 0}}, s: {}, t: {}, d: []};
  var loading = {}, loaded = {};

  function fold(text) {
    /* NFC: a pasted "z" + combining dot is the letter "ż" */
    text = text.normalize("NFC").toLowerCase();
    return Object.keys(FOLD).length ? text.replace(FOLDED, function (c) { return FOLD[c]; }) : text;
  }
  function tokens(text) { return fold(text).match(WORD) || []; }
  function letters(word) { return Array.from(word); }
  function queryWords(text) { return tokens(text).filter(function (w) { return letters(w).length >= 2; }); }

  function siteRoot() {
    var config = document.getElementById("__config");
    var base = config ? JSON.parse(config.textContent).base : ".";
    return new URL(base.endsWith("/") ? base : base + "/", window.location.href);
  }
  /* [section, game] of this page: the section in its address, else (the root page) the first
   * of the reader's browser languages the site has, else the first; the game, if a game's page. */
  function place(root) {
    var rest = window.location.href.slice(root.href.length).split("#")[0].split("/");
    if (CONFIG.languages.indexOf(rest[0]) >= 0) return [rest[0], rest.length > 2 ? rest[1] : null, false];
    var preferred = (navigator.languages || [navigator.language || ""]).map(function (l) { return l.slice(0, 2).toLowerCase(); });
    var found = preferred.filter(function (l) { return CONFIG.languages.indexOf(l) >= 0; });
    return [found.length ? found[0] : CONFIG.languages[0], null, true];
  }

  /* An index file calls kbSearchChunk(kind, key, payload) as it runs; its script's load event
   * follows at once, before any other script runs, and takes the payload. */
  var lastChunk = null;
  window.kbSearchChunk = function (kind, key, payload) { lastChunk = payload; };

  function load(root, lang, kind, key) {
    var id = lang + ":" + kind + ":" + key;
    if (!loading[id]) {
      loading[id] = new Promise(function (resolve) {
        var script = document.createElement("script");
        script.src = new URL("search/" + lang + "/" + (kind === "m" ? "meta" : kind + "-" + key) + ".js", root).href;
        script.onload = script.onerror = function () {
          loaded[id] = lastChunk || EMPTY[kind];
          lastChunk = null;
          resolve(loaded[id]);
        };
        document.head.appendChild(script);
      });
    }
    return loading[id];
  }
  function loadAll(root, lang, kind, numbers) {
    return Promise.all(Array.from(new Set(numbers)).map(function (n) { return load(root, lang, kind, String(n)); }));
  }

  /* A word's head: its rarity, then per weight, highest first, the weight, a count and that many
   * document numbers as differences; every number in 5-bit digits, little-end first, 32+ meaning "more follows". */
  function decodeHead(text) {
    var numbers = [], value = 0, shift = 0, postings = [], i, k;
    for (i = 0; i < text.length; i++) {
      var digit = DIGITS.indexOf(text[i]);
      value += (digit & 31) * Math.pow(2, shift);
      if (digit >= 32) { shift += 5; } else { numbers.push(value); value = 0; shift = 0; }
    }
    for (i = 1; i < numbers.length; i += 2 + numbers[i + 1]) {
      var doc = 0;
      for (k = 0; k < numbers[i + 1]; k++) { doc += numbers[i + 2 + k]; postings.push([doc, numbers[i]]); }
    }
    return {rarity: numbers[0], postings: postings};
  }

  /* How well an index word matches a query word: exact 1; the query is the start of the
   * word 0.8; a shared start that leaves at most 3 letters of the query unmatched 0.6 × the
   * shared share + 0.2. */
  function quality(query, word) {
    if (query === word) return 1;
    var a = letters(query), b = letters(word);
    var p = 0, n = Math.min(a.length, b.length);
    while (p < n && a[p] === b[p]) p++;
    if (p === a.length && p >= 3) return 0.8;
    if (p >= 4 && p >= a.length - 3) return 0.6 * p / Math.max(a.length, b.length) + 0.2;
    return 0;
  }

  /* The best quality of the query word one edit away, made where it first differs from the word
   * (a letter changed, dropped, added, or two neighbours swapped); 0 when none matches. */
  function corrected(query, word) {
    var a = letters(query), b = letters(word), p = 0, best = 0;
    while (p < a.length && p < b.length && a[p] === b[p]) p++;
    var edits = [a.slice(0, p).concat(a.slice(p + 1)), a.slice(0, p).concat(a.slice(p + 1, p + 2), a.slice(p, p + 1), a.slice(p + 2))];
    if (p < b.length) edits.push(a.slice(0, p).concat([b[p]], a.slice(p + 1)), a.slice(0, p).concat([b[p]], a.slice(p)));
    edits.forEach(function (e) { e = e.join(""); if (e !== query) best = Math.max(best, quality(e, word)); });
    return best;
  }

  /* The file of a sorted, packed run where a key would stand (null: before the first). */
  function fileFor(firsts, key) {
    var found = null;
    for (var n = 0; n < firsts.length && firsts[n] <= key; n++) found = n;
    return found;
  }

  /* The shards that can hold a word quality() matches: it starts with the query's first
   * max(4, length - 3) letters (two letters match only themselves), so the shard where that
   * prefix would stand and every later one beginning with it. */
  function shardsFor(firsts, query) {
    if (!firsts.length) return [];
    var a = letters(query), prefix = a.slice(0, Math.max(4, a.length - 3)).join("");
    var wanted = [fileFor(firsts, prefix) || 0];
    if (a.length >= 3) {
      while (wanted[wanted.length - 1] + 1 < firsts.length && firsts[wanted[wanted.length - 1] + 1].startsWith(prefix)) {
        wanted.push(wanted[wanted.length - 1] + 1);
      }
    }
    return wanted;
  }

  /* A word's typo keys: its head with one letter deleted, and the head less its last letter;
   * a key's file: its FNV-1a hash over code points, modulo the number of typo files. */
  function typoKeys(word) {
    var h = letters(word).slice(0, R.typo_head), keys = [];
    for (var i = 0; i <= h.length; i++) {
      var key = (i < h.length ? h.slice(0, i).concat(h.slice(i + 1)) : h.slice(0, R.typo_head - 1)).join("");
      if (keys.indexOf(key) < 0) keys.push(key);
    }
    return keys;
  }
  function typoFile(key, files) {
    var h = 2166136261;
    letters(key).forEach(function (c) { h = Math.imul(h ^ c.codePointAt(0), 16777619) >>> 0; });
    return h % files;
  }

  /* [quality, head] of every word of the shards that matches the query word. */
  function matches(query, shards) {
    var found = [];
    shards.forEach(function (shard) {
      Object.keys(shard).forEach(function (word) { var q = quality(query, word); if (q) found.push([q, shard[word]]); });
    });
    return found;
  }
  function needsTypos(query, found) {
    return letters(query).length >= R.typo_min_letters && !found.some(function (f) { return f[0] >= 0.8; });
  }
  /* [quality, word] of the best words one edit away (ties to the earlier word), from the typo files. */
  function typoWords(query, files, part) {
    var near = new Set(), best = [];
    typoKeys(query).forEach(function (key) {
      (part(typoFile(key, files))[key] || "").split(" ").forEach(function (w) { if (w) near.add(w); });
    });
    near.forEach(function (w) { var q = corrected(query, w); if (q) best.push([q, w]); });
    return best.sort(function (a, b) { return b[0] - a[0] || (a[1] < b[1] ? -1 : 1); }).slice(0, R.typo_words);
  }

  /* Per query word, a document's best quality × weight × rarity over the words it matches; summed
   * over query words, times the square of the share of the query it matched, each query word
   * counting by its rarity; a scope's documents (a game's: [first, after the last]) first; the top CANDIDATES. */
  function rank(found, scope) {
    var scores = {}, covered = {}, total = 0;
    found.forEach(function (entries) {
      var best = {}, share = 1;
      entries.forEach(function (entry) {
        var head = decodeHead(entry[1]);
        if (entry[0] === 1) share = head.rarity / R.rarity_steps;
        head.postings.forEach(function (posting) {
          var s = entry[0] * posting[1] * head.rarity / R.rarity_steps;
          if (!best[posting[0]] || best[posting[0]] < s) best[posting[0]] = s;
        });
      });
      total += share;
      Object.keys(best).forEach(function (doc) {
        scores[doc] = (scores[doc] || 0) + best[doc];
        covered[doc] = (covered[doc] || 0) + share;
      });
    });
    var first = scope ? scope[0] : 0, after = scope ? scope[1] : 0;
    function outside(doc) { return first <= doc && doc < after ? 0 : 1; }
    return Object.keys(scores).map(function (doc) {
      var c = covered[doc] / total;
      return {doc: +doc, score: scores[doc] * c * c};
    }).sort(function (a, b) { return outside(a.doc) - outside(b.doc) || b.score - a.score || a.doc - b.doc; }).slice(0, R.candidates);
  }

  /* A title's concept: its words without what stands in brackets («Брод (ландшафт)», «брод»: «брод»). */
  function concept(title) { return tokens(title.replace(/\([^)]*\)/g, " ")).join(" "); }

  /* The steps of generator/search.py's `replay`: meta, the query words' shards, for long words that
   * match nothing their typo files and the shards of the words one edit away, then document
   * chunks until RESULTS distinct concepts (per game) are shown. */
  function search(root, lang, text, game) {
    var words = queryWords(text);
    if (!words.length) return Promise.resolve({results: [], words: [], near: [], games: {}});
    return load(root, lang, "m", "meta").then(function (meta) {
      R = meta.ranking;
      var shardsOf = function (n) { return loaded[lang + ":s:" + n]; };
      var wanted = words.map(function (w) { return shardsFor(meta.shards, w); });
      var found;
      return loadAll(root, lang, "s", [].concat.apply([], wanted)).then(function () {
        found = words.map(function (w, i) { return matches(w, wanted[i].map(shardsOf)); });
        var slips = words.map(function (w, i) { return needsTypos(w, found[i]) ? i : -1; }).filter(function (i) { return i >= 0; });
        var parts = [].concat.apply([], slips.map(function (i) {
          return typoKeys(words[i]).map(function (key) { return typoFile(key, meta.typos); });
        }));
        return loadAll(root, lang, "t", parts).then(function () {
          var near = {};
          slips.forEach(function (i) {
            near[i] = typoWords(words[i], meta.typos, function (n) { return loaded[lang + ":t:" + n]; });
          });
          var nearShards = [].concat.apply([], slips.map(function (i) { return near[i].map(function (e) { return fileFor(meta.shards, e[1]); }); }));
          return loadAll(root, lang, "s", nearShards).then(function () {
            slips.forEach(function (i) {
              near[i].forEach(function (e) { found[i].push([R.typo_quality * e[0], shardsOf(fileFor(meta.shards, e[1]))[e[1]]]); });
            });
            return near;
          });
        });
      }).then(function (near) {
        var ranked = rank(found, meta.games[game] || null), results = [], seen = {}, done = 0;
        function more() {
          if (results.length >= R.results || done >= ranked.length) return Promise.resolve();
          var batch = ranked.slice(done, done + R.results - results.length);
          done += batch.length;
          return loadAll(root, lang, "d", batch.map(function (r) { return Math.floor(r.doc / meta.per_chunk); })).then(function () {
            batch.forEach(function (r) {
              var d = loaded[lang + ":d:" + Math.floor(r.doc / meta.per_chunk)][r.doc % meta.per_chunk];
              var key = d[4].split("/")[0] + "\n" + concept(d[1]);
              if (seen[key]) return;
              seen[key] = true;
              results.push({url: new URL(d[0], root).href, title: d[1], context: d[2], kind: d[3], id: d[4], snippet: d[5], score: r.score, shown: d[6] || ""});
            });
            return more();
          });
        }
        return more().then(function () {
          var typed = [].concat.apply([], Object.keys(near).map(function (i) { return near[i].map(function (e) { return e[1]; }); }));
          return {results: results, words: words.concat(typed), games: meta.games};
        });
      });
    });
  }

  /* Text with the words that match the query marked: text nodes and <mark> elements, never HTML. */
  function marked(text, words) {
    var out = document.createDocumentFragment(), at = 0, match;
    WORD.lastIndex = 0;
    while ((match = WORD.exec(text)) !== null) {
      var word = fold(match[0]);
      if (!words.some(function (q) { return quality(q, word) > 0; })) continue;
      out.appendChild(document.createTextNode(text.slice(at, match.index)));
      var mark = document.createElement("mark");
      mark.textContent = match[0];
      out.appendChild(mark);
      at = match.index + match[0].length;
    }
    out.appendChild(document.createTextNode(text.slice(at)));
    return out;
  }
  /* The snippet from a little before the first word that matches, when it stands further on. */
  function excerpt(text, words) {
    var match;
    WORD.lastIndex = 0;
    while ((match = WORD.exec(text)) !== null) {
      var word = fold(match[0]);
      if (!words.some(function (q) { return quality(q, word) > 0; })) continue;
      if (match.index <= SNIPPET_LEAD) return text;
      var start = text.indexOf(" ", match.index - SNIPPET_LEAD);
      return "… " + text.slice(start + 1);
    }
    return text;
  }

  function button(label, pressed, onPress) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "kb-search-scope";
    b.textContent = label;
    b.setAttribute("aria-pressed", pressed ? "true" : "false");
    b.addEventListener("click", onPress);
    return b;
  }

  function render(box, found, state, rerun) {
    box.textContent = "";
    var labels = LABELS[state.lang], bar = document.createElement("div");
    bar.className = "kb-search-scopes";
    if (state.root) {
      var label = document.createElement("span");
      label.textContent = labels.search_section;
      bar.appendChild(label);
      CONFIG.languages.forEach(function (code) {
        var b = button(CONFIG.names[code] || code, code === state.lang, function () { state.lang = code; rerun(); });
        b.lang = code;
        bar.appendChild(b);
      });
    } else if (state.game && found.games[state.game]) {
      bar.appendChild(button(labels.search_scope_game, state.scoped, function () { state.scoped = true; rerun(); }));
      bar.appendChild(button(labels.search_scope_all, !state.scoped, function () { state.scoped = false; rerun(); }));
    }
    if (bar.childNodes.length) box.appendChild(bar);
    if (!found.results.length) {
      var none = document.createElement("p");
      none.className = "kb-search-none";
      none.textContent = labels.no_results;
      box.appendChild(none);
      return;
    }
    var list = document.createElement("ol");
    found.results.forEach(function (r) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = r.url;
      link.className = "kb-search-result";
      link.dataset.entry = r.id;
      var title = document.createElement("span");
      title.className = "kb-search-title";
      title.appendChild(marked(r.title, found.words));
      /* shown in a fallback language: said so, and read in it */
      if (r.shown) {
        title.lang = r.shown;
        var shown = document.createElement("span");
        shown.className = "kb-search-lang";
        shown.textContent = CONFIG.names[r.shown] || r.shown;
        title.appendChild(shown);
      }
      var context = document.createElement("span");
      context.className = "kb-search-context";
      context.textContent = r.context;
      link.appendChild(title);
      link.appendChild(context);
      if (r.snippet) {
        var text = document.createElement("span");
        text.className = "kb-search-snippet";
        text.appendChild(marked(excerpt(r.snippet, found.words), found.words));
        link.appendChild(text);
      }
      item.appendChild(link);
      list.appendChild(item);
    });
    box.appendChild(list);
  }

  function setUp() {
    if (document.querySelector(".kb-search")) return;
    var root = siteRoot(), here = place(root);
    /* lang: the section searched; game: this page's game; scoped: its results first (the default there) */
    var state = {lang: here[0], game: here[1], root: here[2], scoped: true};
    var labels = LABELS[state.lang];
    var form = document.createElement("form");
    form.className = "kb-search";
    form.setAttribute("role", "search");
    var input = document.createElement("input");
    input.type = "search";
    input.name = "q";
    input.placeholder = labels.search_placeholder;
    input.setAttribute("aria-label", labels.search);
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
      if (!queryWords(query).length) {
        box.textContent = ""; form.classList.remove("kb-open"); return;
      }
      search(root, state.lang, query, state.scoped ? state.game : null).then(function (found) {
        if (ticket !== latest) return;
        render(box, found, state, run);
        form.classList.add("kb-open");
        form.dataset.query = query;
        form.dataset.scope = state.root ? state.lang : (state.scoped && state.game) || "";
      });
    }
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 120); });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var first = box.querySelector("a.kb-search-result");
      if (first) window.location.href = first.href; else run();
    });
    window.kbSearch = function (query) { return search(root, state.lang, query, state.scoped ? state.game : null); };
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
