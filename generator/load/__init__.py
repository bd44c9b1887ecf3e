"""Stage 1, load: every file under data/ read into documents, refusing what is out of place (`load`),
through one YAML reader that keeps positions for error messages (`yamlio`); and the typed model of
the knowledge base (`model`) that validate builds from them and every later stage reads."""
