/* Cite a paragraph: every paragraph and bullet of a rule ends with its number ("30.4b", a link to itself:
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
