/* Term previews: a tap (or Enter) on a linked glossary term shows its definition in place.
   The previews are on the page already (made by the generator, escaped like all its text) as
   popovers, so Escape or a tap outside closes them; this script only opens one beside its term.
   Without it, or for a term with no preview, the link opens the glossary as before. */
(function () {
  "use strict";
  const GAP = 6;

  function place(preview, link) {
    const box = link.getBoundingClientRect();
    const width = preview.offsetWidth, height = preview.offsetHeight;
    const below = box.bottom + GAP + height <= window.innerHeight || box.top < height + GAP;
    preview.style.top = Math.max(GAP, below ? box.bottom + GAP : box.top - height - GAP) + "px";
    preview.style.left = Math.min(Math.max(GAP, box.left), window.innerWidth - width - GAP) + "px";
  }

  document.addEventListener("click", function (event) {
    const link = event.target.closest && event.target.closest("a.kb-term");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    const preview = document.getElementById("preview-" + decodeURIComponent(new URL(link.href).hash.slice(1)));
    if (!preview || typeof preview.showPopover !== "function") return;
    event.preventDefault();
    if (preview.matches(":popover-open")) return;
    preview.showPopover();
    place(preview, link);
    link.setAttribute("aria-expanded", "true");
    preview.addEventListener("toggle", function closed(e) {
      if (e.newState !== "closed") return;
      preview.removeEventListener("toggle", closed);
      link.setAttribute("aria-expanded", "false");
      if (!document.activeElement || document.activeElement === document.body || preview.contains(document.activeElement)) link.focus();
    });
    preview.querySelector("a").focus({preventScroll: true});
  });
})();
