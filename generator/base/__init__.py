"""What every stage shares, importing nothing of any stage: the one error family (`errors`) and the
problem codes (`problems`), the languages as data (`languages`), the one way data text becomes HTML
(`safe_markdown`) and reaches a script or a terminal (`escaping`), source line ranges (`linerange`),
text and glossary-term matching (`textmatch`, `termmatch`), JSON Schemas with their `$ref`s inlined and
the one walk along a rules_check input schema (`json_schema`), and child processes that die with the
build (`children`)."""
