"""Reading YAML safely, with positions for error messages.

ruamel.yaml's round-trip loader keeps the line and column of every key and item, which
is what lets every problem say file:line:col. The document is composed once; the node
graph is checked for anchors and aliases before anything is constructed, so an alias bomb
is refused without ever being expanded.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, SequenceNode

from .problems import Problems


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    return yaml


def _mark_position(error: MarkedYAMLError) -> tuple[int, int]:
    mark = error.problem_mark or error.context_mark
    return (mark.line + 1, mark.column + 1) if mark else (1, 1)


def _utf8_error_position(raw: bytes, offset: int) -> tuple[int, int]:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    col = offset - (before.rfind(b"\n") + 1) + 1
    return line, col


def _first_anchor_or_alias(root):
    """The first anchored node or node reached twice (an alias), walking the composed graph once.

    Composing does not expand aliases (they point at the same node), so this is cheap even for
    an alias bomb; constructing is what would explode, and it never happens for such a file."""
    seen: set[int] = set()
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return node, "alias"
        seen.add(id(node))
        anchor = getattr(node, "anchor", None)
        if anchor is not None and getattr(anchor, "value", anchor):
            return node, "anchor"
        if isinstance(node, MappingNode):  # pushed in reverse so the walk follows document order
            for key, value in reversed(node.value):
                stack += [value, key]
        elif isinstance(node, SequenceNode):
            stack += list(reversed(node.value))
    return None


def load_yaml(path: Path, shown_path: str, problems: Problems) -> Any | None:
    """Load one YAML file; on any problem record it and return None."""
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
        yaml = _yaml()
        root = yaml.compose(text)
        reused = _first_anchor_or_alias(root)
        if reused is not None:
            node, kind = reused
            mark = node.start_mark
            name = f" '{node.anchor}'" if getattr(node, "anchor", None) else ""
            problems.add(shown_path, (mark.line + 1, mark.column + 1), "E005", f"{kind}{name} used")
            return None
        return yaml.constructor.construct_document(root)
    except DuplicateKeyError as err:
        problems.add(shown_path, _mark_position(err), "E002", " ".join(str(err.problem).split()))
    except MarkedYAMLError as err:
        message = " ".join(f"{err.context or ''} {err.problem or ''}".split())
        problems.add(shown_path, _mark_position(err), "E001", message or "invalid YAML")
    except YAMLError as err:  # unmarked errors are rare; still report them, never a traceback
        problems.add(shown_path, (1, 1), "E001", " ".join(str(err).split()))
    return None


def position_of(document: Any, path: list) -> tuple[int, int]:
    """1-based (line, col) of the value at `path` (keys and indices), or of its nearest parent."""
    node = document
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


def key_position(document: Any, path: list, key: str) -> tuple[int, int]:
    """Position of a mapping key (for "unknown field" problems)."""
    node = document
    for step in path:
        node = node[step]
    try:
        line, col = node.lc.key(key)
        return line + 1, col + 1
    except (AttributeError, KeyError, TypeError):
        return position_of(document, path)
