/* Landing on a rule. Cite a paragraph: every paragraph and bullet of a rule ends with its number ("30.4b", a link to itself:
 * generator/base/safe_markdown.py). A tap puts its address in the address bar and copies it, saying so;
 * where the clipboard is not available (a page opened from disk) the address bar has it anyway. */
(function () {
  "use strict";
  var config = window.kbLanguages || {labels: {}};
  var lang = document.documentElement.lang;
  var words = config.labels[lang] || config.labels.en || {};
  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("a.kb-para"), function (mark) {
      if (words.copy_link) mark.title = words.copy_link;
    });
    document.addEventListener("click", function (event) {
      var mark = event.target.closest && event.target.closest("a.kb-para");
      if (!mark) return;
      event.preventDefault();
      var target = mark.getAttribute("href");
      history.replaceState(null, "", target);
      document.querySelector(target).scrollIntoView({block: "start"});
      var link = window.location.href;
      if (!navigator.clipboard || !window.isSecureContext) return;
      navigator.clipboard.writeText(link).then(function () {
        var said = document.createElement("span");
        said.className = "kb-para-copied";
        said.setAttribute("role", "status");
        said.textContent = words.link_copied || "";
        mark.after(said);
        setTimeout(function () { said.remove(); }, 2500);
      }, function () { /* refused: the address bar has the link */ });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();

/* The search words marked on the page a result opens: the query is kept (for that one landing) when a result is
 * chosen, and on the page the words of the landing entry that begin like a query word are marked. */
(function () {
  "use strict";
  var KEY = "kb-landing", FOLD = (window.kbLanguages || {}).fold || {};
  function fold(text) {
    return Array.from(text.normalize("NFC").toLowerCase()).map(function (c) { return FOLD[c] || c; }).join("");
  }
  function remember(href) {
    var input = document.querySelector(".kb-search input");
    try { sessionStorage.setItem(KEY, JSON.stringify({href: href, query: input ? input.value : ""})); } catch (err) { /* storage off */ }
  }
  document.addEventListener("click", function (event) {
    var result = event.target.closest && event.target.closest("a.kb-search-result");
    if (result) remember(result.href);
  }, true);
  document.addEventListener("submit", function (event) {  /* Enter opens the first result */
    var first = event.target.querySelector && event.target.querySelector("a.kb-search-result");
    if (first) remember(first.href);
  }, true);

  function mark() {
    var kept = null;
    try { kept = JSON.parse(sessionStorage.getItem(KEY) || "null"); sessionStorage.removeItem(KEY); } catch (err) { return; }
    if (!kept || String(kept.href).split("#")[0] !== window.location.href.split("#")[0]) return;
    /* a word's beginning (up to five letters) finds its other forms: "отступил" marks "Отступление" */
    var starts = (fold(String(kept.query)).match(/[\p{L}\p{N}]+/gu) || []).filter(function (w) { return w.length >= 3; })
      .map(function (w) { return Array.from(w).slice(0, 5).join(""); });
    if (!starts.length) return;
    var target = window.location.hash ? document.getElementById(decodeURIComponent(window.location.hash.slice(1))) : null;
    /* an entry's id is on its heading: its words are marked in the whole entry */
    var scope = (target && (target.closest("section.kb-entry") || target)) || document.querySelector("article") || document.body;
    var walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT), nodes = [];
    while (walker.nextNode()) if (!walker.currentNode.parentElement.closest("script, style, mark, .kb-para, details")) nodes.push(walker.currentNode);
    nodes.forEach(function (node) {
      var text = node.nodeValue, word = /[\p{L}\p{N}]+/gu, found, parts = [], last = 0;
      while ((found = word.exec(text))) {
        var folded = fold(found[0]);
        if (starts.some(function (start) { return folded.indexOf(start) === 0; })) {
          parts.push(document.createTextNode(text.slice(last, found.index)));
          var hit = document.createElement("mark");
          hit.className = "kb-hit";
          hit.textContent = found[0];
          parts.push(hit);
          last = found.index + found[0].length;
        }
      }
      if (!parts.length) return;
      parts.push(document.createTextNode(text.slice(last)));
      parts.forEach(function (part) { node.parentNode.insertBefore(part, node); });
      node.remove();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark); else mark();
})();
