"""Reading YAML safely and fast, with positions for error messages when there are any.

Loading builds plain dicts, lists and scalars straight from the event stream of ruamel.yaml's
C parser (libyaml): about ten times faster and far smaller in memory than round-trip documents,
which matters at a hundred games. Anchors and aliases are refused as soon as the parser reports
one, so an alias bomb is never expanded. Plain scalars resolve as in YAML 1.2's core schema
(null, true/false, integers, floats); everything else, dates included, stays a string. Mapping
keys are always strings (a key written `1:` is the string "1").

Limits keep hostile or mistaken files from exhausting the machine: a file may be at most
MAX_FILE_BYTES (E010), nest at most MAX_DEPTH containers (E015), and an integer may have at most
MAX_DIGITS digits (E016).

Positions (file:line:col) are needed only for a problem. `Positions` parses that one file again
with the same C parser the first time a problem in it asks where something is, and keeps the
line and column of every key and value.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol, TypeAlias

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    NodeEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from ..base.jsontypes import JSON, JSONPath
from ..base.problems import Problems

MAX_FILE_BYTES = 5_000_000
MAX_DEPTH = 40
MAX_DIGITS = 15

NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
INT = re.compile(r"^[-+]?[0-9]+$")
FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
SPECIAL_FLOAT = {".inf": math.inf, "+.inf": math.inf, "-.inf": -math.inf, ".nan": math.nan}
TAG = "tag:yaml.org,2002:"
Scalar: TypeAlias = str | int | float | bool | None
# where each value stands, path -> (line, col), and each mapping key, (path, "key") -> (line, col)
PositionTable: TypeAlias = dict[JSONPath | tuple[JSONPath, str], tuple[int, int]]


class _Mark(Protocol):
    """Where the parser is (0-based): what a ruamel.yaml event's start_mark tells."""

    line: int
    column: int


class _Refused(Exception):
    """A problem found while building, with its code and 0-based mark."""

    def __init__(self, code: str, mark: _Mark, message: str) -> None:
        super().__init__(message)
        self.code, self.mark, self.message = code, mark, message


def _event_parser() -> YAML:
    return YAML(typ="safe", pure=False)  # pure=False: the C parser from ruamel.yaml.clib


def _scalar(event: ScalarEvent) -> Scalar:
    text: str = event.value
    tag = event.tag
    if tag is None and not event.implicit[0]:
        return text  # quoted or block scalar: always a string
    name = tag[len(TAG) :] if tag and tag.startswith(TAG) else tag
    if tag is not None and name not in ("str", "int", "float", "bool", "null"):
        raise _Refused("E001", event.start_mark, f"tag '{tag}' is not allowed")
    if name == "str":
        return text
    lowered = text.lower()
    if name in (None, "null") and NULL.match(text):
        return None
    if name in (None, "bool") and text in BOOL:
        return BOOL[text]
    if name in (None, "int") and INT.match(text):
        digits = len(text.lstrip("+-"))
        if digits > MAX_DIGITS:
            raise _Refused("E016", event.start_mark, f"a number with {digits} digits (at most {MAX_DIGITS})")
        return int(text)
    if name in (None, "float") and lowered in SPECIAL_FLOAT:
        return SPECIAL_FLOAT[lowered]
    if name in (None, "float") and FLOAT.match(text):
        return float(text)
    if name is not None:
        raise _Refused("E001", event.start_mark, f"'{text[:40]}' is not a valid {name}")
    return text


def _is_empty(event: Event) -> bool:
    """A plain scalar with nothing in it: `key:` with its value left out."""
    return isinstance(event, ScalarEvent) and event.value == "" and event.implicit[0] and event.tag is None


class _NoKey(enum.Enum):
    """No key waiting for its value (a sentinel of its own type, so a key is a str or this)."""

    NO_KEY = enum.auto()


_NO_KEY = _NoKey.NO_KEY


class _Frame:
    """A list or mapping being filled. For a mapping: the key waiting for its value, where each key
    stands, and the keys whose value was left empty (a sign of an indentation mistake)."""

    __slots__ = ("container", "path", "key", "key_marks", "empty_keys")

    def __init__(self, container: list[JSON] | dict[str, JSON], path: JSONPath) -> None:
        self.container, self.path = container, path
        self.key: str | _NoKey = _NO_KEY
        self.key_marks: dict[str, _Mark] = {}
        self.empty_keys: list[tuple[str, _Mark]] = []


def _indentation_slip(frame: _Frame, key: str, mark: _Mark) -> str | None:
    """If a key repeats after a key left empty, the lines after that empty key were meant to be
    indented under it (or it was meant to stand less deep): say so."""
    first = frame.key_marks[key]
    for empty_key, empty_mark in frame.empty_keys:
        if first.line < empty_mark.line < mark.line:
            return (
                f"'{key}' stands at the same level as '{empty_key}:' (line {empty_mark.line + 1}), which has no value, "
                f"and repeats '{key}' of line {first.line + 1}: indent the lines after '{empty_key}:' under it, "
                f"or move '{empty_key}:' back to the level where it belongs"
            )
    return None


class _Builder:
    """The one document of an event stream as plain Python data.

    With `positions` (a dict), records where every value and key stands: path -> (line, col),
    and (path, "key") -> (line, col) for a mapping key. A container's position is its key's."""

    def __init__(self, positions: PositionTable | None = None) -> None:
        self.stack: list[_Frame] = []
        self.root: JSON = None
        self.positions = positions

    def _record(self, path: JSONPath, mark: _Mark, key_mark: _Mark | None = None) -> None:
        if self.positions is not None:
            self.positions[path] = (mark.line + 1, mark.column + 1)
            if key_mark is not None:
                self.positions[(path, "key")] = (key_mark.line + 1, key_mark.column + 1)

    def add(self, value: JSON, event: NodeEvent) -> JSONPath:
        """Place a value; returns its path."""
        mark = event.start_mark
        if not self.stack:
            self.root = value
            return ()
        top = self.stack[-1]
        if isinstance(top.container, list):
            path = top.path + (len(top.container),)
            top.container.append(value)
            self._record(path, mark)
            return path
        if top.key is _NO_KEY:
            self._set_key(top, value, event)
            return top.path
        path = top.path + (top.key,)
        key_mark = top.key_marks[top.key]
        top.container[top.key] = value
        if _is_empty(event):
            top.empty_keys.append((top.key, key_mark))
        self._record(path, key_mark if isinstance(value, (dict, list)) else mark, key_mark)
        top.key = _NO_KEY
        return path

    def _set_key(self, top: _Frame, value: JSON, event: NodeEvent) -> None:
        mark = event.start_mark
        if isinstance(value, (dict, list)):
            raise _Refused("E001", mark, "a mapping or list used as a key")
        assert isinstance(event, ScalarEvent)  # a value that is no container came from a scalar
        key: str = value if isinstance(value, str) else event.value
        if key in top.key_marks:
            slip = _indentation_slip(top, key, mark)
            if slip:
                raise _Refused("E007", mark, slip)
            keys = list(top.key_marks)
            in_list = len(self.stack) >= 2 and isinstance(self.stack[-2].container, list)
            if in_list and len(keys) >= 4 and key == keys[1]:  # a whole item, then its second key again: a new item lost its first line
                raise _Refused(
                    "E002",
                    mark,
                    f'duplicate key "{key}" (first at line {top.key_marks[key].line + 1}): '
                    f"a new list item seems to start here without its first line ('- {keys[0]}: …')",
                )
            raise _Refused("E002", mark, f'duplicate key "{key}" (first at line {top.key_marks[key].line + 1})')
        top.key = key
        top.key_marks[key] = mark

    def open(self, container: list[JSON] | dict[str, JSON], event: NodeEvent) -> None:
        if len(self.stack) >= MAX_DEPTH:
            raise _Refused("E015", event.start_mark, f"lists and mappings nested more than {MAX_DEPTH} deep")
        path = self.add(container, event)
        self.stack.append(_Frame(container, path))

    def feed(self, events: Iterable[Event]) -> JSON:
        documents = 0
        for event in events:
            if isinstance(event, (ScalarEvent, MappingStartEvent, SequenceStartEvent)) and event.anchor:
                raise _Refused("E005", event.start_mark, f"anchor '{event.anchor}' used")
            if isinstance(event, ScalarEvent):
                self.add(_scalar(event), event)
            elif isinstance(event, MappingStartEvent):
                self.open({}, event)
            elif isinstance(event, SequenceStartEvent):
                self.open([], event)
            elif isinstance(event, (MappingEndEvent, SequenceEndEvent)):
                self.stack.pop()
            elif isinstance(event, AliasEvent):
                raise _Refused("E005", event.start_mark, f"alias '{event.anchor}' used")
            elif isinstance(event, DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise _Refused("E001", event.start_mark, "a second YAML document in one file; keep one document per file")
        return self.root


def _utf8_error_position(raw: bytes, offset: int) -> tuple[int, int]:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    col = offset - (before.rfind(b"\n") + 1) + 1
    return line, col


def read_bytes(path: Path, shown_path: str, problems: Problems) -> bytes | None:
    """A data file's bytes, or None with the problem recorded (too large, unreadable)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            problems.add(shown_path, (1, 1), "E010", f"the file has {size:,} bytes (at most {MAX_FILE_BYTES:,})")
            return None
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        problems.add(shown_path, (1, 1), "E008", f"the file cannot be read ({err.strerror or type(err).__name__})")
        return None
    if len(raw) > MAX_FILE_BYTES:  # grew since stat, or a special file that reports no size
        problems.add(shown_path, (1, 1), "E010", f"the file has more than {MAX_FILE_BYTES:,} bytes")
        return None
    return raw


Diagnosis: TypeAlias = tuple[tuple[int, int], str, str]  # (position, code, message) of a syntax error


def _parser_problem(err: MarkedYAMLError, text: str) -> Diagnosis:
    """(position, code, message) for a syntax error, naming the usual slips in words."""
    mark = err.problem_mark or err.context_mark
    position = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    slip = _slip_near(text.split("\n"), mark, position, err.problem or "", err.context_mark) if mark is not None else None
    if slip is None:
        slip = _misaligned_block(err, position)
    if slip is not None:
        return slip
    message = " ".join(f"{err.context or ''} {err.problem or ''}".split()) or "invalid YAML"
    return position, "E001", message


def _slip_near(lines: list[str], mark: _Mark, position: tuple[int, int], problem: str, begun: _Mark | None) -> Diagnosis | None:
    """A usual slip at or above where the parser stopped (`mark`), looked for in this order: a
    quote left open (the parser stops lines below it, at the next quote: as far up as QUOTE_REACH lines, or
    to where the block it was reading began, `begun`, if that is farther), block text not indented under its
    a `{…}` or `[…]` left open on its line, key, a colon missing before a flow collection, a mapping value where none
    may stand, a key without its colon; first
    of all a tab in the indentation of the line where it stopped (YAML indents with spaces only)."""
    reach = max(QUOTE_REACH, mark.line - begun.line + 1) if begun is not None else QUOTE_REACH
    return (
        _tab_in_indentation(lines, mark, problem)
        or _unclosed_quote_above(lines, mark.line, reach)
        or _text_after_closing_quote(lines, mark)
        or (_reserved_first_character(lines, mark) if "cannot start any token" in problem else None)
        or (_unclosed_flow(lines, begun) if "did not find expected ','" in problem else None)
        or _unindented_block_text(lines, mark.line)
        or _colon_missing_before_flow(lines, mark.line, position[0])
        or (_misplaced_mapping_value(lines, mark, position) if "mapping values are not allowed" in problem else None)
        or (_colon_lost_above(lines, mark.line) if "could not find expected ':'" in problem else None)  # the line above is a key
    )


def _tab_in_indentation(lines: list[str], mark: _Mark, problem: str) -> Diagnosis | None:
    """A tab among the spaces that indent the line where the parser stopped, at that tab or saying it found one ("found
    a tab character that violates indentation"; at a tab, "found character that cannot start any token"). A tab
    elsewhere (in a block of text, where it is text) is not blamed."""
    text = lines[mark.line] if mark.line < len(lines) else ""
    indentation = text[: len(text) - len(text.lstrip(" \t"))]
    at_tab = mark.column < len(text) and text[mark.column] == "\t"
    if "\t" not in indentation or not (at_tab or "tab character" in problem):
        return None
    return (
        (mark.line + 1, indentation.index("\t") + 1),
        "E001",
        "a tab indents this line: YAML indents with spaces only (write spaces, as many as the lines around it have)",
    )


RESERVED_FIRST = "`@%"  # YAML keeps these for itself: an unquoted value may not begin with one (`code`, @name, %)
FLOW_FIRST = "|>"  # block text's marks: inside {…} or […] they may not begin an unquoted value either


def _reserved_first_character(lines: list[str], mark: _Mark) -> Diagnosis | None:
    """An unquoted value that begins with a character YAML keeps for itself (a Markdown `code` span, @, %), or with a
    block text's mark (| or >) inside {…} or […], named at that character."""
    text = lines[mark.line] if mark.line < len(lines) else ""
    first = text[mark.column] if mark.column < len(text) else ""
    if not first or first not in RESERVED_FIRST + FLOW_FIRST:
        return None
    where = "inside {…} or […] " if first in FLOW_FIRST else ""
    return (
        (mark.line + 1, mark.column + 1),
        "E001",
        f"{where}a value may not begin with '{first}' unless it is quoted: put the whole value in double quotes (\"{first}…\")",
    )


def _colon_missing_before_flow(lines: list[str], line: int, shown_line: int) -> Diagnosis | None:
    """`name {en: …, ru: …}`: YAML reads text up to the first comma, then stops."""
    key_before_flow = KEY_BEFORE_FLOW.match(lines[line]) if line < len(lines) else None
    if key_before_flow is None:
        return None
    name = key_before_flow.group(2)
    return (shown_line, key_before_flow.start(2) + 1), "E001", f"a colon is missing after '{name}': write '{name}: {{…}}'"


def _misplaced_mapping_value(lines: list[str], mark: _Mark, position: tuple[int, int]) -> Diagnosis:
    """For "mapping values are not allowed here": a key on this line run together with its value (`pl:"a: b: c"`,
    which YAML reads as text up to a later colon), a colon inside a plain value, a key above that lost its colon, or
    else a key that stands too deep."""
    line = lines[mark.line] if mark.line < len(lines) else ""
    if run_together_here := KEY_WITHOUT_SPACE.match(line):
        name, value = run_together_here.group(2), run_together_here.group(3)
        return (mark.line + 1, run_together_here.start(2) + 1), "E001", run_together(f"{name}:{value}", name, value)
    before = line[: mark.column]
    if re.search(r":(\s|$)", before):
        return position, "E001", "a colon and a space inside an unquoted value start a new mapping: put the value in quotes"
    return _colon_lost_above(lines, mark.line) or (
        position,
        "E007",
        "this key stands deeper than the key above it, which already has a value: align it with its siblings",
    )


def _colon_lost_above(lines: list[str], line: int) -> Diagnosis | None:
    """A key written without its colon (`kind rule`), or without the space after it (`kind:rule`), on the line above
    `line`, named at its place."""
    lost = _key_without_colon_above(lines, line)
    if lost is None:
        return None
    at, name, value = lost
    if value is not None:
        return at, "E001", run_together(f"{name}:{value}", name, value)
    return at, "E001", f"a colon is missing after '{name}': write '{name}: …'"


def run_together(key: str, name: str, value: str = "…") -> str:
    """What is wrong with `key`, a name and its value written as one word ('kind:rule', 'en{translated_from'), in words
    (a long value cut short: the message names the slip, not the whole text)."""
    lost = f"a space is missing after '{name}:'" if key[len(name)] == ":" else f"a colon is missing after '{name}'"
    if len(value) > RUN_TOGETHER_SHOWN and key.endswith(value):
        value = value[:RUN_TOGETHER_SHOWN] + "…"
        key = key[: len(name) + 1] + value
    return f"'{key}' is a name and its value run together: {lost} (write '{name}: {value}')"


RUN_TOGETHER_SHOWN = 40  # characters of a run-together value the message repeats


def _misaligned_block(err: MarkedYAMLError, position: tuple[int, int]) -> Diagnosis | None:
    """A line that is not aligned with the block mapping or list it seems to belong to."""
    context = err.context or ""
    block = "mapping" if "block mapping" in context else "list" if "block collection" in context else None
    if not (block and (err.problem or "").startswith("did not find expected")):
        return None
    start = err.context_mark
    where = f" (the {block} started at line {start.line + 1}, column {start.column + 1})" if start else ""
    return position, "E007", f"this line is not aligned with the {block} it seems to belong to{where}"


KEY_BEFORE_FLOW = re.compile(r"^( *(?:- +)?)([A-Za-z_][\w-]*) +[{\[]")  # `labels {en: …, ru: …}`: a name, a space, a flow collection
KEY_WITHOUT_COLON = re.compile(r"^( *(?:- +)?)([a-z_]+) +[^\s:#][^:#]*$")  # `- id citow/x`: a name, a space, a value, no colon
KEY_WITHOUT_SPACE = re.compile(r"^( *(?:- +)?)([a-z_]+):([^\s:#{\[][^#]*?)\s*$")  # `kind:rule`: a name, its colon, the value at once


def _key_without_colon_above(lines: list[str], line: int) -> tuple[tuple[int, int], str, str | None] | None:
    """((line, column), name, value) of a key written without its colon on the line above `line` (`- id
    citow/x`; value None), or without the space after it (`kind:rule`; value "rule"): YAML read it as text, and
    the keys below it as standing too deep or as the rest of that text."""
    for n in range(min(line, len(lines)) - 1, -1, -1):
        if lines[n].strip() and not lines[n].lstrip().startswith("#"):
            if lost := KEY_WITHOUT_COLON.match(lines[n]):
                return (n + 1, lost.start(2) + 1), lost.group(2), None
            if run_together := KEY_WITHOUT_SPACE.match(lines[n]):
                return (n + 1, run_together.start(2) + 1), run_together.group(2), run_together.group(3)
            return None
    return None


QUOTED_VALUE = re.compile(r"^ *(?:- +)?(?:[^\s#:\"'][^:#]*: +)?([\"'])(.*)$")  # `key: "text`, `- 'text`: a value that opens a quote
UNCLOSED = {'"': re.compile(r'^(?:[^"\\]|\\.)*\\?$'), "'": re.compile(r"^(?:[^']|'')*$")}  # the rest of the line never closes it


QUOTE_REACH = 30  # lines above a syntax error looked at for a quote left open


def _unclosed_quote_above(lines: list[str], line: int, reach: int = QUOTE_REACH) -> Diagnosis | None:
    """The nearest line at or above `line` whose quoted value is not closed on that line: YAML reads
    on into the lines below (the data never spans a quoted value over lines), so the error it
    reports stands lower, where the quotes stop pairing up."""
    for n in range(min(line, len(lines) - 1), max(-1, line - reach), -1):
        match = QUOTED_VALUE.match(lines[n])
        if match and UNCLOSED[match.group(1)].match(match.group(2)):
            return _quote_left_open(n + 1, match.start(1) + 1, match.group(1))
    return None


def _text_after_closing_quote(lines: list[str], mark: _Mark) -> Diagnosis | None:
    """A quoted value with text after its closing quote on the line where the parser stopped (`ru: ""Text…"`: a quote
    typed twice closes an empty value, and the text after it is read as something else), named at that text."""
    value = QUOTED_VALUE.match(lines[mark.line]) if mark.line < len(lines) else None
    closing = CLOSING[value.group(1)].match(value.group(2)) if value else None
    if value is None or closing is None:
        return None
    closed_at = value.start(2) + closing.end()  # 1-based column of the closing quote
    after = value.group(2)[closing.end() :]
    if not after.strip() or after.lstrip().startswith(("#", ":")):  # a comment, or a quoted key and its colon
        return None
    quote = value.group(1)
    return (
        (mark.line + 1, closed_at + len(after) - len(after.lstrip()) + 1),
        "E001",
        f"text follows the {quote} at column {closed_at}, which closes this quoted value: remove the extra {quote}, or quote the whole value",
    )


CLOSING = {'"': re.compile(r'(?:[^"\\]|\\.)*"'), "'": re.compile(r"(?:[^']|'')*'(?!')")}  # a quoted value, up to its closing quote


def _quote_left_open(line: int, column: int, quote: str) -> Diagnosis:
    """The quote at `line`:`column` (1-based) opens text that its line never closes."""
    return (line, column), "E001", f"this quoted text is not closed on its line: end it with {quote} (or remove the opening {quote})"


def _unclosed_flow(lines: list[str], begun: _Mark | None) -> Diagnosis | None:
    """A flow mapping or list (`{en: …, ru: …}`, `[a, b]`) that its line does not close: the data writes each on one
    line, and YAML reads on into the lines below and stops there ("did not find expected ',' or '}'"). `begun`: where
    the parser says the flow collection began."""
    if begun is None or begun.line >= len(lines):
        return None
    text = lines[begun.line][begun.column :]
    if not text.startswith(("{", "[")):
        return None
    closed, open_quote = _flow_on_line(text)
    if closed:
        return None
    if open_quote is not None:  # `{source: x, lines: "3-5}`: the quote, not the brace, is what was left open
        return _quote_left_open(begun.line + 1, begun.column + open_quote + 1, text[open_quote])
    closer = "}" if text[0] == "{" else "]"
    return (begun.line + 1, begun.column + 1), "E001", f"this {text[0]} is not closed on its line: end it with {closer}"


def _flow_on_line(text: str) -> tuple[bool, int | None]:
    """Whether the flow collection that `text` opens is closed on it (brackets in quoted text and in a comment aside),
    and where in `text` a quote opens that the line never closes (None: none)."""
    depth, quote, opened, previous, escaped = 0, "", 0, " ", False
    for at, char in enumerate(text):
        if quote:  # inside quoted text: only its end counts (a \" in double quotes is no end)
            escaped, quote = (char == "\\" and quote == '"' and not escaped), ("" if char == quote and not escaped else quote)
        elif char in "\"'":
            quote, opened = char, at
        elif char == "#" and previous in " \t":
            return False, None  # a comment to the line's end
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if not depth:
                return True, None
        previous = char
    return False, (opened if quote else None)


BLOCK_HEADER = re.compile(r"^( *)(- +)?([^\s#][^#]*?): *[|>][-+0-9]* *(#.*)?$")  # `text: |`, `- en: >-`


def _unindented_block_text(lines: list[str], error_line: int) -> Diagnosis | None:
    """A syntax error just after a block of text (`pl: |`) whose first line stands no deeper than
    its key: the text was read as keys and values."""
    for header in range(max(0, error_line - 3), min(error_line, len(lines))):
        match = BLOCK_HEADER.match(lines[header])
        if match is None:
            continue
        following = [n for n in range(header + 1, min(error_line + 1, len(lines))) if lines[n].strip()]
        if not following:
            continue
        first = following[0]
        indent = len(lines[first]) - len(lines[first].lstrip(" "))
        if indent <= len(match.group(1)) + len(match.group(2) or ""):
            key = match.group(3)
            return (
                (first + 1, indent + 1),
                "E007",
                f"this line is the text of '{key}:' (line {header + 1}) but is not indented under it: indent the text further than '{key}:'",
            )
    return None


# What YAML refuses to read (its printable set, c-printable, left out), and Unicode's noncharacters it refuses too.
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]")
CONTROL_NAMES = {0: "NUL", 7: "BEL", 8: "BS", 0x0B: "VT", 0x0C: "FF", 0x1B: "ESC", 0x7F: "DEL"}


def _control_character(text: str) -> tuple[tuple[int, int], str] | None:
    """((line, column), message) of the first character YAML would refuse, counted in characters."""
    found = CONTROL.search(text)
    if found is None:
        return None
    before = text[: found.start()]
    code = ord(found.group())
    name = f" ({CONTROL_NAMES[code]})" if code in CONTROL_NAMES else ""
    return (before.count("\n") + 1, found.start() - (before.rfind("\n") + 1) + 1), f"control character U+{code:04X}{name} in the file"


def parse_yaml(raw: bytes, shown_path: str, problems: Problems) -> JSON:
    """Plain data of one YAML document's bytes; on any problem record it and return None."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        problems.add(shown_path, _utf8_error_position(raw, err.start), "E003", f"byte 0x{raw[err.start]:02x} is not valid UTF-8")
        return None
    control = _control_character(text)
    if control is not None:
        problems.add(shown_path, control[0], "E084", control[1])
        return None
    if not text.strip() or all(line.strip().startswith("#") or not line.strip() for line in text.splitlines()):
        problems.add(shown_path, (1, 1), "E004", "the file holds no YAML document")
        return None
    try:
        return _Builder().feed(_event_parser().parse(text))
    except _Refused as err:
        problems.add(shown_path, (err.mark.line + 1, err.mark.column + 1), err.code, err.message)
    except MarkedYAMLError as err:
        position, code, message = _parser_problem(err, text)
        problems.add(shown_path, position, code, message)
    except YAMLError as err:  # unmarked errors are rare; still report them, never a traceback
        problems.add(shown_path, (1, 1), "E001", " ".join(str(err).split())[:300])
    return None


def load_yaml(path: Path, shown_path: str, problems: Problems) -> JSON:
    """Load one YAML file as plain data; on any problem record it and return None."""
    raw = read_bytes(path, shown_path, problems)
    return None if raw is None else parse_yaml(raw, shown_path, problems)


class Positions:
    """Where things stand in one YAML file, read only when a problem needs a position.

    The file already loaded cleanly; it is parsed once more, by the same parser, the first time a
    position is asked for. Should it have changed or vanished since, positions fall back to 1:1."""

    def __init__(self, path: Path):
        self.path = path
        self._positions: PositionTable | None = None

    def _table(self) -> PositionTable:
        if self._positions is None:
            self._positions = {}
            try:
                text = self.path.read_bytes()[:MAX_FILE_BYTES].decode("utf-8")
                _Builder(self._positions).feed(_event_parser().parse(text))
            except (OSError, UnicodeDecodeError, YAMLError, _Refused):
                pass  # keep what was recorded before the file stopped making sense
        return self._positions

    def of(self, path: Sequence[str | int]) -> tuple[int, int]:
        """1-based (line, col) of the value at `path` (keys and indices), or of its nearest parent.
        A list or mapping stands where its key does."""
        table = self._table()
        steps = tuple(path)
        for length in range(len(steps), 0, -1):
            position = table.get(steps[:length])
            if position is not None:
                return position
        return (1, 1)

    def of_key(self, path: Sequence[str | int], key: str | int) -> tuple[int, int]:
        """Position of a mapping key (for "unknown field" problems)."""
        return self._table().get((tuple(path) + (key,), "key")) or self.of(path)

    def of_text_line(self, path: Sequence[str | int], key: str, text: str, offset: int) -> tuple[int, int]:
        """Position of character `offset` of `text`, the block text (`key: |`) at `key` of `path`: a
        block's text starts on the line after its key, two spaces deeper."""
        key_line, key_column = self.of_key(path, key)
        return key_line + 1 + text.count("\n", 0, offset), key_column + 2 + offset - (text.rfind("\n", 0, offset) + 1)
