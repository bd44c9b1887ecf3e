"""Reading YAML safely and fast, with positions for error messages when there are any.

Loading builds plain dicts, lists and scalars straight from the event stream of ruamel.yaml's
C parser (libyaml): about ten times faster and far smaller in memory than round-trip documents,
which matters at a hundred games. Anchors and aliases are refused as soon as the parser reports
one, so an alias bomb is never expanded. Plain scalars resolve as in YAML 1.2's core schema
(null, true/false, integers, floats); everything else, dates included, stays a string.

Positions (file:line:col) are needed only for a problem. `Positions` reparses that one file
with the round-trip loader the first time a problem in it asks where something is.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent, DocumentStartEvent, MappingEndEvent, MappingStartEvent, ScalarEvent, SequenceEndEvent, SequenceStartEvent

from .problems import Problems

NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
INT = re.compile(r"^[-+]?[0-9]+$")
FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
SPECIAL_FLOAT = {".inf": math.inf, "+.inf": math.inf, "-.inf": -math.inf, ".nan": math.nan}
TAG = "tag:yaml.org,2002:"


class _Refused(Exception):
    """A problem found while building, with its code and 0-based mark."""
    def __init__(self, code: str, mark, message: str):
        super().__init__(message)
        self.code, self.mark, self.message = code, mark, message


def _event_parser() -> YAML:
    return YAML(typ="safe", pure=False)  # pure=False: the C parser from ruamel.yaml.clib


def _scalar(event: ScalarEvent):
    text = event.value
    tag = event.tag
    if tag is None and not event.implicit[0]:
        return text  # quoted or block scalar: always a string
    name = tag[len(TAG):] if tag and tag.startswith(TAG) else tag
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
        return int(text)
    if name in (None, "float") and lowered in SPECIAL_FLOAT:
        return SPECIAL_FLOAT[lowered]
    if name in (None, "float") and FLOAT.match(text):
        return float(text)
    if name is not None:
        raise _Refused("E001", event.start_mark, f"'{text}' is not a valid {name}")
    return text


def _build(events) -> Any:
    """The one document of an event stream as plain Python data."""
    stack: list = []          # containers being filled: a list, or a _MappingFrame
    root = None
    documents = 0

    def add(value, mark):
        nonlocal root
        if not stack:
            root = value
            return
        top = stack[-1]
        if isinstance(top, list):
            top.append(value)
        elif top.key is _NO_KEY:
            if isinstance(value, (dict, list)):
                raise _Refused("E001", mark, "a mapping or list used as a key")
            if value in top.key_lines:
                raise _Refused("E002", mark, f'duplicate key "{value}" (first at line {top.key_lines[value]})')
            top.key = value
            top.key_lines[value] = mark.line + 1
        else:
            top.mapping[top.key] = value
            top.key = _NO_KEY

    for event in events:
        if isinstance(event, (ScalarEvent, MappingStartEvent, SequenceStartEvent)) and event.anchor:
            raise _Refused("E005", event.start_mark, f"anchor '{event.anchor}' used")
        if isinstance(event, ScalarEvent):
            add(_scalar(event), event.start_mark)
        elif isinstance(event, MappingStartEvent):
            mapping: dict = {}
            add(mapping, event.start_mark)
            stack.append(_MappingFrame(mapping))
        elif isinstance(event, SequenceStartEvent):
            sequence: list = []
            add(sequence, event.start_mark)
            stack.append(sequence)
        elif isinstance(event, (MappingEndEvent, SequenceEndEvent)):
            stack.pop()
        elif isinstance(event, AliasEvent):
            raise _Refused("E005", event.start_mark, f"alias '{event.anchor}' used")
        elif isinstance(event, DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise _Refused("E001", event.start_mark, "a second YAML document in one file; keep one document per file")
    return root


_NO_KEY = object()


class _MappingFrame:
    """A mapping being built, the key waiting for its value, and the line of each key so far."""
    __slots__ = ("mapping", "key", "key_lines")

    def __init__(self, mapping: dict):
        self.mapping, self.key, self.key_lines = mapping, _NO_KEY, {}


def _utf8_error_position(raw: bytes, offset: int) -> tuple[int, int]:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    col = offset - (before.rfind(b"\n") + 1) + 1
    return line, col


def load_yaml(path: Path, shown_path: str, problems: Problems) -> Any | None:
    """Load one YAML file as plain data; on any problem record it and return None."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        problems.add(shown_path, _utf8_error_position(raw, err.start), "E003",
                     f"byte 0x{raw[err.start]:02x} is not valid UTF-8")
        return None
    if not text.strip() or all(line.strip().startswith("#") or not line.strip() for line in text.splitlines()):
        problems.add(shown_path, (1, 1), "E004", "the file holds no YAML document")
        return None
    try:
        return _build(_event_parser().parse(text))
    except _Refused as err:
        problems.add(shown_path, (err.mark.line + 1, err.mark.column + 1), err.code, err.message)
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        message = " ".join(f"{err.context or ''} {err.problem or ''}".split())
        problems.add(shown_path, (mark.line + 1, mark.column + 1) if mark else (1, 1), "E001", message or "invalid YAML")
    except YAMLError as err:  # unmarked errors are rare; still report them, never a traceback
        problems.add(shown_path, (1, 1), "E001", " ".join(str(err).split()))
    return None


class Positions:
    """Where things stand in one YAML file, read only when a problem needs a position.

    The file already loaded cleanly, so the round-trip reparse cannot fail; it is done once
    per file and keeps ruamel's line/column of every key and item."""

    def __init__(self, path: Path):
        self.path = path
        self._document = None

    def _commented(self):
        if self._document is None:
            self._document = YAML(typ="rt").load(self.path.read_text(encoding="utf-8"))
        return self._document

    def of(self, path: list) -> tuple[int, int]:
        """1-based (line, col) of the value at `path` (keys and indices), or of its nearest parent."""
        node = self._commented()
        position = (1, 1)
        for step in path:
            lc = getattr(node, "lc", None)
            try:
                if isinstance(step, int) and isinstance(node, list):
                    if lc is not None:
                        line, col = lc.item(step)
                        position = (line + 1, col + 1)
                    node = node[step]
                elif isinstance(node, dict) and step in node:
                    if lc is not None:
                        line, col = lc.value(step) if not isinstance(node[step], (dict, list)) else lc.key(step)
                        position = (line + 1, col + 1)
                    node = node[step]
                else:
                    break
            except (KeyError, IndexError, TypeError):
                break
        return position

    def of_key(self, path: list, key: str) -> tuple[int, int]:
        """Position of a mapping key (for "unknown field" problems)."""
        node = self._commented()
        try:
            for step in path:
                node = node[step]
            line, col = node.lc.key(key)
            return line + 1, col + 1
        except (AttributeError, KeyError, IndexError, TypeError):
            return self.of(path)
