"""Problems found in the data: a stable code, a position, a message and a hint.

Every check reports through `Problems.add`; commands print all of them and exit 1.
The table of codes below is the single list of every code a command prints: the data's problems
(E…) and the other failures of the error family (base/errors.py: B… a build stage, U… the command
line, O… the output, I… ingest), each with its meaning and its hint. An unknown code throws;
docs/error-codes.md is generated from the table (`python -m generator codes`), tests/fixtures/invalid/
holds one failing fixture per E code, and a test finds every code the generator's source names here.
"""

# ruff: noqa: E501  (the table of codes keeps one code per line, however long its hint)
from __future__ import annotations

from dataclasses import dataclass, field

from .escaping import terminal_text

CODES: dict[str, tuple[str, str]] = {
    # code: (what it means, how to fix it)
    "E001": ("YAML syntax error", "Fix the YAML syntax at the position shown (indentation, a missing colon, an unclosed quote)."),
    "E002": (
        "duplicate key in a mapping",
        "Remove or rename one of the two keys (YAML keeps only one of them); where a new list item starts, give it its first line (`- id: …`).",
    ),
    "E003": ("file is not UTF-8", "Re-save the file as UTF-8 (no BOM needed)."),
    "E004": ("empty file", "Delete the file or give it content; an empty YAML file holds nothing to load."),
    "E005": ("YAML anchors and aliases are not allowed", 'Write the value out in full; aliases can expand exponentially ("billion laughs").'),
    "E006": ("file out of place", "Move the file to a place the loader knows (see docs/data-format.md) or delete it."),
    "E007": (
        "wrong indentation",
        "Keys of one mapping stand exactly one under the other; what belongs to a key is indented further than the key (spaces, two per level).",
    ),
    "E008": (
        "file or folder cannot be read",
        "Check that it exists, is a plain file or folder, and that you may read it; the loader reads everything under data/.",
    ),
    "E009": ("link out of the data folder", "Copy the file into the data folder instead of linking to it; links may only point inside data/."),
    "E010": ("file too large", "Split the file (a chapter into several chapters); a data file may be at most 5 MB."),
    "E011": ("required field missing", "Add the field; the schema in schemas/ lists what each object needs."),
    "E012": ("wrong type", "Give a value of the type the schema asks for (e.g. a list, not a string)."),
    "E013": ("unknown field", "Remove the field or fix its spelling; the schema lists the allowed fields."),
    "E014": ("value not allowed", "Use one of the allowed values or the pattern the schema gives."),
    "E015": ("nested too deep", "Flatten the structure: data files need at most a few levels of nesting (the limit is 40)."),
    "E016": ("number too large", "Numbers are limited to 15 digits, and source line numbers to 6; check for a slip of the keyboard."),
    "E020": ("duplicate id", "Ids are unique across entries, chapters and glossary terms; rename one (ids are stable once published)."),
    "E021": ("unknown reference", "Point the reference at an existing id, or add the entry it names."),
    "E022": ("unknown source", "Use a source id from data/sources/manifest.yaml."),
    "E023": ("line range outside its source", "Lines are 1-based and must lie inside the source file; ranges go low-high."),
    "E024": ("required language missing", "Add the language: the game's required_languages (game.yaml) must all be present."),
    "E025": ("languages do not line up", "title, text and origin must name the same languages."),
    "E026": (
        "bad translation origin",
        "translated_from must name another language of the same entry, and at least one version must come from a source or the editors.",
    ),
    "E027": ("source language does not match", "A language's origin must cite a source in that language."),
    "E028": ("source belongs to another game", "Cite a source listed in this game's game.yaml."),
    "E030": (
        "numbers differ between language versions",
        "Make the numbers agree, or add numbers_differ naming the clarification that explains the difference.",
    ),
    "E031": ("quote not found in the cited lines", "Quote the source verbatim (whitespace may differ) and cite the lines it stands on."),
    "E032": (
        "correction not found in the cited lines",
        "A correction's `from` must be the text as the source has it, within the entry's cited lines.",
    ),
    "E033": (
        "text does not match its cited lines",
        "Cite the lines the text was taken from, and carry all of them; a line range must not claim more or less than the text holds.",
    ),
    "E034": ("id of another game", "An entry's id starts with the id of the game folder it lives in."),
    "E035": ("source file changed", "Source texts are kept unchanged; restore the file or update its sha256 in the manifest deliberately."),
    "E036": ("source file missing", "Copy the file into data/sources/ or remove it from the manifest."),
    "E037": ("game not set up", "Create data/games/<game>/game.yaml, and list the game's sources in the manifest."),
    "E039": ("unknown rules-check", "example.check names a function of rules_check: game.check as listed by `python -m rules_check --list`."),
    "E038": ("duplicate chapter order", "Chapter files are ordered by their NN- prefix; give each a different number."),
    "E050": (
        "source-language text differs from its cited lines",
        "Carry the cited lines word for word; record each repair under `corrections` (from: what the source has, to: what the text says), or cite the right lines.",
    ),
    "E051": (
        "declared correction not applied",
        "The text must contain the correction's `to`; apply the repair in the text or remove the correction.",
    ),
    "E052": (
        "working note in published text",
        "Remove the editors' working note (helper, TODO, FIXME, session …) from text players read; keep such notes in the issue tracker.",
    ),
    "E053": (
        "aid summary states a number its entry lacks",
        "A summary restates its entry: every number it gives must be in the entry's text, params or table (an ordered list's item numbers, 0 and 1 excepted); fix the summary or the entry.",
    ),
    "E054": (
        "translation does not use the glossary's term",
        "Name each concept the original names with the glossary's term for this language (data/games/<game>/glossary.yaml, `names`), inflected as the sentence needs; if the text really uses another inflected form, add it to the term's `forms`.",
    ),
    "E055": (
        "glossary name without its standing",
        "A term's name in a language none of the game's sources is written in says where it comes from: `status: {pl: published}` with `status_source: {pl: [key]}` (the key listed in docs/editorial/terms-<lang>-<game>.md), or `status: {pl: uncertain}` for our own rendering.",
    ),
    "E064": (
        "aid names a table or column that does not exist",
        "In cards.yaml, hide_columns and a faction's rows name a table entry, its column keys and, in `where`, an English value some row has; fix the name or the table.",
    ),
    "E060": (
        "link or image the site would refuse",
        "Link only to the site's own pages ([[id]] references) or to https:// addresses; javascript:, file:, data: and other schemes are refused.",
    ),
    "E061": (
        "image in an entry printed on a player aid",
        "Player aids fetch nothing: remove the image, or take the entry out of the aid in cards.yaml.",
    ),
    "E062": (
        "language definition incomplete",
        'Each data/languages/<code>/ folder holds language.yaml (code = folder name, fallbacks that exist) and ui.yaml; see docs/data-format.md, "Languages".',
    ),
    "E063": (
        "game in an undefined language",
        "Add data/languages/<code>/ (language.yaml and ui.yaml) for the language, or remove it from the game's languages.",
    ),
    "E065": (
        "interface text with an unknown place",
        "An interface text may use only the {places} the generator fills for it (translated_from: {lang}; fallback: {shown}; calculator.failed: {error}); write other braces out of it.",
    ),
    "E067": (
        "synonym for an unknown glossary term",
        "In synonyms.yaml, `terms` maps a glossary term's id (as in a game's glossary.yaml: game/term/name) to the words players use for it; fix the id or add the term.",
    ),
    "E068": (
        "synonym the glossary or the list already has",
        "Leave out a word that is already the term's name, variant or form in this language (search finds those already), or a word listed as its own synonym.",
    ),
    "E066": (
        "search folding that is not letter to letter",
        'folding maps one letter to another ("ł": "l"); a mark, digit or space there would change every query and index word.',
    ),
    "E069": (
        "answer table the check cannot fill",
        "An answer table (calculators.yaml, answer_tables) names a check of checks.yaml, its rows' and columns' input fields and its outputs as rules_check/schemas/<game>.schema.json names them (a digit for a list's item: lines.0.cards), a range the schema allows, and labels for its headings; docs/data-format.md, \"Answer tables\".",
    ),
    "E070": (
        "aid omits an entry of its play checklist",
        "The checklist (cards.yaml, aid.checklist) names what a group needs to play a whole game from the aid: add the entry to one of the aid's sections, or, if the game can be played without it, take it off the checklist.",
    ),
    "E071": (
        "play checklist names no entry of its game",
        "aid.checklist lists entry ids of this game (data/games/<game>/chapters/); fix the id or remove it from the checklist.",
    ),
    "E072": (
        "section or faction colours too alike",
        "Each section and each faction of an aid needs a colour of its own, set apart from the other sections' and factions' and from the aids' fixed colours (warning red #c0392b, answer tables #2f5d50, open questions #555555, QR code #111111) by a CIE76 ΔE of 18 or more: pick a darker, lighter or other hue.",
    ),
    "E080": (
        "calculator without its words",
        'Each check of checks.yaml needs, in calculators.yaml beside it, a title and an answer sentence in every language of the game; docs/data-format.md, "Calculators".',
    ),
    "E081": (
        "calculator field without a label",
        "Give the field or choice a label in calculators.yaml, in every language of the game (or `term:` a glossary term); the names are those of rules_check/schemas/<game>.schema.json.",
    ),
    "E082": (
        "answer names an unknown output field",
        "An answer's {places} are fields of the check's output schema (dotted for nested fields); `:percent` is the only format.",
    ),
    "E083": ("label names an unknown glossary term", "`term:` takes a glossary term id (data/games/<game>/glossary.yaml), e.g. citow/term/khorne."),
    "E043": (
        "worked example's inputs do not fit its check",
        "An example's `inputs` are what the calculator and the command line are given: make them fit the check's input schema (rules_check/schemas/<game>.schema.json), e.g. no list longer than the schema allows.",
    ),
    "E084": (
        "control character in a data file",
        "Delete the invisible character at the position shown (often pasted from a terminal or a word processor): YAML reads no control characters but tab and line breaks.",
    ),
    "E085": (
        "theme language Material does not have",
        "`theme:` in language.yaml names a language of Material for MkDocs (its interface: search box, navigation labels), e.g. en, pl, ru, pt-BR; pick the nearest one it has.",
    ),
    "E086": (
        "chapter without entries",
        "A chapter holds its entries (`entries:` with `- id: …` items under it): restore the ones emptied by mistake, or delete the chapter file; references to its game's ids are checked again once it has them.",
    ),
    "E087": (
        "character an aid cannot print",
        "The player aids' font (DejaVu Sans Condensed) has no glyph for it, and a PDF would drop it: write it out in words or a character the font has (Latin, Polish, Cyrillic), or take the entry out of the aid in cards.yaml.",
    ),
    "E088": (
        "answer table too wide for its aid card",
        'An answer table prints on an aid card of its own, where a value never wraps and a heading wraps only between words: each column is as wide as its widest value or heading word. Shorten the label that holds the word named, break that word with a space, or declare fewer columns (`to:`, `values:`); docs/data-format.md, "Answer tables".',
    ),
    "E089": (
        "refusal without its words",
        'Each refusal in REFUSALS of rules_check/games/<game>.py (its English message) needs, under `refusals:` in the game\'s calculators.yaml, a message in every other language of the game, with the English {places} and no others; a key there names a refusal the module has. docs/data-format.md, "Calculators".',
    ),
    "E040": ("rules-check needs an unknown entry", "checks.yaml names entries of this game by id: fix the id, or restore the entry the check reads."),
    "E041": (
        "rules-check needs a missing param",
        "The check reads this param: restore its name in the entry's params, or rename it in checks.yaml and rules_check/games/<game>.py.",
    ),
    "E042": (
        "rules-check needs a missing table",
        "The check reads this entry's table rows: give the entry its table, or change checks.yaml and rules_check/games/<game>.py.",
    ),
    # B: a build stage failed on data that validates (exit 1)
    "B001": ("the site engine failed", "This is a bug in the generator or the theme, not in the data: report it with the message above."),
    "B002": (
        "another build is writing to the output folder",
        "Wait for the other build to finish, or stop it; two builds into one folder would mix their outputs.",
    ),
    "B004": (
        "a player aid does not fit or does not render cleanly",
        "Shorten or remove entries in the aid (data/games/<game>/cards.yaml), or fix the entry named.",
    ),
    "B005": ("a player aid asks for a file or URL", "Remove the image or link destination from the entry named; player aids print text only."),
    "B006": (
        "a package the site vendors is not installed",
        "Run bash scripts/setup.sh: it installs the pinned npm packages (package-lock.json) and the browser wheels.",
    ),
    "B007": (
        "the calculators' start-up snapshot could not be made",
        "A bug, or a Pyodide the snapshot cannot be made with: report the message; package-lock.json pins the version that works.",
    ),
    # U: the command line asks for what cannot be done as given (exit 2)
    "U001": ("the command cannot do what it was asked", "Run `python -m generator COMMAND --help` for what the command takes."),
    "U002": ("the port cannot be served on", "Choose another port with --port N (1024-65535), or stop the program that uses this one."),
    # O: the output could not be written (exit 74)
    "O001": (
        "the output could not be written",
        "Free some disk space or fix the folder's permissions, then build again; the published site is unchanged.",
    ),
    # I: ingest cannot read a source text (exit 1)
    "I001": ("no such source file", "Give the path of a plain-text rulebook file."),
    "I002": ("source text is not UTF-8", "Re-save the text as UTF-8."),
    "I003": ("unknown language", "Pass --language with one of the languages defined in data/languages/."),
}
DATA_CODES = [code for code in CODES if code.startswith("E")]  # what `validate` reports: one fixture each in tests/fixtures/invalid/


@dataclass(order=True)
class Problem:
    path: str
    line: int
    col: int
    code: str
    message: str = field(compare=False)
    note: str = field(default="", compare=False)  # what was left unchecked because of this problem

    def format(self) -> str:
        hint = CODES[self.code][1]
        note = f"\n    note: {self.note}" if self.note else ""
        return f"{terminal_text(self.path)}:{self.line}:{self.col}: {self.code} {terminal_text(self.message)}\n    hint: {hint}{note}"


class Problems:
    """Collects problems so that all of them are reported before the command exits."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, path: str, position: tuple[int, int], code: str, message: str) -> None:
        if code not in DATA_CODES:
            raise KeyError(f"unknown problem code {code}")
        self.items.append(Problem(path, position[0], position[1], code, message))

    def add_note(self, path: str, note: str) -> None:
        """Attach a note to the first problem reported in `path` (the root problem of that file)."""
        in_file = sorted(p for p in self.items if p.path == path)
        if in_file:
            in_file[0].note = note

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def report(self) -> str:
        return "\n".join(p.format() for p in sorted(self.items))


class DataError(Exception):
    """Raised by a pipeline stage when the data has problems; carries all of them."""

    def __init__(self, problems: Problems):
        super().__init__(f"{len(problems)} problem(s) in the data")
        self.problems = problems
