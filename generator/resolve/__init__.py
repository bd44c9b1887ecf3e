"""Stage 3, resolve: what the renderers need that is derived from the knowledge base, computed once
(`resolve`): pages and anchors, the language a reader sees with its fallbacks, clarifications by the
entries they touch, glossary terms in text, the data version."""
