"""Stage 4, render: from the resolved knowledge base to (path, content) pairs, one renderer per output;
none of them writes the published output (write does). `renderer` holds their one interface
(`Renderer`: a stage name, the release part it writes, `files(release)`) and the renderers the
pipeline runs, in order.

- `site`: one page per chapter per language, HTML from autoescaping templates; `mkdocs_hooks` hands
  its navigation, titles and tables of contents to mkdocs and Material, escaped;
- `search`: the search index per language, in small script-loadable files;
- `aids/`: the printed player aids (`cards` makes their HTML; `aid_layout` and `aid_compose` lay it
  out and make the PDFs in worker processes);
- `rules_data`: the data the rules_check package reads; `answer_tables`: its answers printed in advance;
  `calculators`: its checks as forms on the site, run in the browser (`make_snapshot.mjs`, run with
  Node.js, makes Pyodide's start-up snapshot);
- `offline`: a service worker per language section."""
