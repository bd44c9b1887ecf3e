"""The one way data text reaches a generated script: a JSON literal.

HTML is escaped by the autoescaping templates and `markupsafe.escape` (site.py's `nav_item` for the
navigation); scripts get data only through `js_literal`, never inside code or comment text. A JSON
literal cannot end a comment or a string, and with `</`, U+2028 and U+2029 escaped it is safe in an
inline `<script>` and in every JavaScript engine."""
from __future__ import annotations

import json
from typing import Any

_UNSAFE_IN_SCRIPTS = {"</": "<\\/", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def js_literal(value: Any, sort_keys: bool = False) -> str:
    """`value` as a JavaScript expression that is data only (compact JSON, non-ASCII letters kept)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)
    for unsafe, safe in _UNSAFE_IN_SCRIPTS.items():
        text = text.replace(unsafe, safe)
    return text
