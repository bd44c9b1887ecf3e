"""Tools beside the pipeline, run from the command line: `ingest` turns a raw rulebook text into draft
entries for an editor (`python -m generator ingest`); `foreign_text` counts English left unmarked on
the pages of a built site (`python -m generator.tools.foreign_text SITE`). They use the shared base,
never the pipeline."""
