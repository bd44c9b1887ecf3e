"""The one way data text reaches a generated script (a JSON literal), and a terminal (control characters shown).

HTML is escaped by the autoescaping templates and `markupsafe.escape` (site.py's `nav_item` for the
navigation); scripts get data only through `js_literal`, never inside code or comment text. A JSON
literal cannot end a comment or a string, and with `</`, U+2028 and U+2029 escaped it is safe in an
inline `<script>` and in every JavaScript engine."""

from __future__ import annotations

import json
import re
from typing import Any

_UNSAFE_IN_SCRIPTS = {"</": "<\\/", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def js_literal(value: Any, sort_keys: bool = False) -> str:
    """`value` as a JavaScript expression that is data only (compact JSON, non-ASCII letters kept)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)
    for unsafe, safe in _UNSAFE_IN_SCRIPTS.items():
        text = text.replace(unsafe, safe)
    return text


# C0 and C1 control characters and DEL: in a terminal they move the cursor, erase lines, set the
# window title (ESC sequences); data text shows them as escapes instead.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_text(text: str) -> str:
    """Text from the data (a file name, a key, a value in a message) as a terminal may print it: each
    control character (and each bidirectional override) written as its escape (`\\x1b`), so data can
    neither forge lines nor hide or recolour them."""
    return _CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), text)
