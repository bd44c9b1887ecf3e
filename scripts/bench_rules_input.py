"""Benchmark of rules_check's refusals of hostile input up to the 256 KiB cap (the target: each refused in <= 50 ms).

    .venv/bin/python scripts/bench_rules_input.py [--repeat N]

For every check, the command line's main() runs in-process on inputs made to cost the most before the refusal:
one byte over the cap, a 256 KiB array, string and object in a field of the check (or an unknown field), 256 KiB of
JSON with a byte that is not UTF-8 at its end, a lone surrogate at the end of a 256 KiB array of strings, and
nesting as deep as 256 KiB allows, and a document filling every bound of the check's schema with a bad string at its
end (found only after everything else). Prints, per case, the slowest check (best of N runs), whether the target is
met, and how long the largest documents the schema accepts take to be answered. The data is made from data/ in a temporary folder (no site build).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import rules_check  # noqa: E402
from generator.render.rules_data import render_rules_data  # noqa: E402
from generator.resolve.resolve import resolve  # noqa: E402
from generator.validate.validate import load_valid  # noqa: E402
from generator.write.release import write_files  # noqa: E402
from rules_check import __main__ as cli_main  # noqa: E402
from rules_check import core, limits  # noqa: E402

CAP = limits.MAX_INPUT_BYTES
TARGET_MS = 50


def _field(shape: limits.Shape, kind: str) -> str:
    """A top-level field of the check's input that takes `kind`, else an unknown one."""
    for name, sub in sorted(shape.properties.items()):
        if kind in sub.kinds or sub.any:
            return name
    return "unknown_field"


def _fill(opening: bytes, item: bytes, closing: bytes, room: int) -> bytes:
    count = max((room - len(opening) - len(closing)) // len(item), 1)
    return opening + item * count + closing


def _keys(room: int) -> bytes:
    """Distinct keys, `"k0": 0, "k1": 0, …`, to about `room` bytes."""
    count = room // 16
    return b", ".join(b'"k%07d": 0' % i for i in range(count))


def _largest(node: dict | bool, defs: dict, depth: int = 0) -> object:
    """A document filling every bound of `node` (lists to maxItems, maps to maxProperties, strings to maxLength)."""
    if not isinstance(node, dict) or depth > 12:
        return 0
    while "$ref" in node:
        node = defs[node["$ref"].split("/")[-1]]
    if "const" in node or "enum" in node:
        return node.get("const", (node.get("enum") or [0])[0])
    if "oneOf" in node and "type" not in node:
        return max((_largest(b, defs, depth + 1) for b in node["oneOf"]), key=lambda d: len(json.dumps(d)))
    kind = node.get("type", "object")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "array":
        return [_largest(node.get("items", {}), defs, depth + 1) for _ in range(min(node.get("maxItems", 8), 256))]
    if kind == "string":
        return "a" * node.get("maxLength", 8)
    if kind in ("integer", "number"):
        return node.get("minimum", 0)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    document = {name: _largest(sub, defs, depth + 1) for name, sub in node.get("properties", {}).items()}
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        names = node.get("propertyNames", {}).get("enum") or [f"k{i}" for i in range(node.get("maxProperties", 4))]
        document.update({name: _largest(extra, defs, depth + 1) for name in names[: node.get("maxProperties", 64)]})
    return document


def _broken_at_the_end(document: object) -> object:
    """The document with its last string replaced by "!!": in no enum, against every pattern, yet a string of a
    length the bounds allow, so that only the schema finds it, after looking at everything else."""
    if isinstance(document, dict):
        for key in reversed(list(document)):
            broken = _broken_at_the_end(document[key])
            if broken is not document[key]:
                return {**document, key: broken}
    elif isinstance(document, list):
        for index in reversed(range(len(document))):
            broken = _broken_at_the_end(document[index])
            if broken is not document[index]:
                return [*document[:index], broken, *document[index + 1 :]]
    elif isinstance(document, str):
        return "!!"
    return document


def cases(game: str, check: str) -> dict[str, bytes]:
    shape = core.input_shape(game, check)
    array, string, mapping = _field(shape, "array"), _field(shape, "string"), _field(shape, "object")
    room = CAP - 64
    return {
        "over the cap": b" " * (CAP + 1),
        "256 KiB array": _fill(b'{"%s": [' % array.encode(), b"0,", b"0]}", room),
        "256 KiB string": _fill(b'{"%s": "' % string.encode(), b"x", b'"}', room),
        "256 KiB object": b'{"%s": {' % mapping.encode() + _keys(room) + b"}}",
        "not UTF-8 at the end": _fill(b'{"%s": [' % array.encode(), b"0,", b'0], "x": "\xff"}', room),
        "surrogate at the end": _fill(b'{"%s": [' % array.encode(), b'"a",', b'"\\ud800"]}', room),
        "nested to the cap": b"[" * (room // 2) + b"]" * (room // 2),
        "every bound filled, a bad string at the end": json.dumps(
            _broken_at_the_end(_largest({"$ref": f"#/$defs/{check}_input"}, core.schema(game)["$defs"]))
        ).encode("utf-8"),
    }


def refuse(game: str, check: str, data: bytes) -> tuple[float, int]:
    stdin, stdout, stderr = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    sys.stdout = sys.stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    try:
        start = time.perf_counter()
        status = cli_main.main([game, check])
        return time.perf_counter() - start, status
    finally:
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        with contextlib.redirect_stdout(io.StringIO()):
            write_files(Path(folder), render_rules_data(resolve(load_valid(REPO / "data"))))
        os.environ["RULES_CHECK_DATA"] = folder
        worst: dict[str, tuple[float, str]] = {}
        answered: list[tuple[float, str]] = []  # the largest documents the schema accepts: answers, rule refusals
        for game in rules_check.available_games():
            for check in rules_check.game(game).check_methods():
                for case, data in cases(game, check).items():
                    runs = [refuse(game, check, data) for _ in range(args.repeat)]
                    best, status = min(runs)
                    if status != 2:
                        answered.append((best, f"{game} {check} (exit {status})"))
                    elif best > worst.get(case, (0.0, ""))[0]:
                        worst[case] = (best, f"{game} {check}")
    print(f"{'refused as input (exit 2)':48} {'slowest check':42} {'ms':>7}")
    for case, (seconds, where) in worst.items():
        print(f"{case:48} {where:42} {seconds * 1000:7.1f}")
    slowest = max(seconds for seconds, _ in worst.values()) * 1000
    met = slowest <= TARGET_MS
    print(f"every input refusal in at most {slowest:.1f} ms: target {TARGET_MS} ms {'met' if met else 'MISSED'}")
    if answered:
        seconds, where = max(answered)
        print(
            f"the largest documents the schema accepts ({len(answered)} checks) answered or refused by a rule in at "
            f"most {seconds * 1000:.1f} ms ({where})"
        )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
