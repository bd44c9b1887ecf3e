"""python -m rules_check GAME CHECK [FILE]  — reads a JSON object (FILE or standard input), prints a JSON result.
python -m rules_check GAME CHECK --help    — what the check computes, quoting the entries it implements.
python -m rules_check --list               — every check by game, with a line of help and its entries.

GAME is a game id (wizards-quest; wizards_quest works too). The data comes from rules_check/data/
(written by `python -m generator build`) or the folder in RULES_CHECK_DATA.
Exit status: 0 result printed; 2 invalid input (the message names the field; also input that is not UTF-8,
not JSON or larger than 256 KiB); 1 impossible under the rules (the message names the rule). A refusal quotes
at most 60 characters of the value it refuses.
"""

from __future__ import annotations

import json
import os
import sys
import unicodedata

from . import CheckId, DataFileError, InputError, RulesError, available_games, describe, game, limits, run
from .core import game_id


def list_checks() -> None:
    for name in available_games():
        data = game(name).data
        for check, info in data.checks.items():
            print(f"{CheckId(name, check).command}: {info['help']} [{', '.join(info['implements'])}]")


def _read(argv: list[str]) -> bytes | str:
    """At most one byte more than the cap, from the file named or standard input (a text stream in tests)."""
    if len(argv) == 3:
        with open(argv[2], "rb") as stream:
            return stream.read(limits.MAX_INPUT_BYTES + 1)
    if hasattr(sys.stdin, "buffer"):
        return sys.stdin.buffer.read(limits.MAX_INPUT_BYTES + 1)
    return sys.stdin.read(limits.MAX_INPUT_BYTES + 1)


def read_input(argv: list[str]) -> object:
    """The JSON input; InputError for what cannot be read, is larger than the cap, is not UTF-8 or not JSON (too
    deep, numbers too long, NaN included). Nothing larger than the cap is read or parsed."""
    try:
        data = _read(argv)
    except OSError as err:
        raise InputError("(input)", f"cannot read input: {err}") from None
    try:
        return limits.parse(data) if isinstance(data, str) else limits.loads(limits.decode(data))
    except ValueError as err:
        raise InputError("(input)", str(err)) from None


def printable(text: str) -> str:
    """Text any UTF-8 stream can take: a lone surrogate (from a file name, say) written as its escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def error_line(message: str) -> str:
    """An error as one printable line: a control character a refusal quotes from the input (a line break, a
    terminal's escape) is written as its escape (`\\n`, `\\x1b`), so the input can neither add lines nor command
    the terminal."""
    return printable("".join(char.encode("unicode_escape").decode("ascii") if unicodedata.category(char) == "Cc" else char for char in message))


def main(argv: list[str]) -> int:
    try:
        if argv[:1] == ["--list"]:
            list_checks()
            return 0
        if len(argv) not in (2, 3) or argv[0] in ("-h", "--help"):
            print((__doc__ or "").strip(), file=sys.stderr)
            return 2
        name, check = game_id(argv[0]), argv[1]
        if name not in available_games() or check not in game(name).data.checks:
            print(error_line(f"error: unknown check '{CheckId(name, check).command}'; see --list"), file=sys.stderr)
            return 2
        if argv[2:] in (["-h"], ["--help"]):
            print(describe(name, check))
            return 0
        result = run(name, check, read_input(argv))
    except InputError as err:
        print(error_line(f"error: invalid input: {err}"), file=sys.stderr)
        return 2
    except RulesError as err:
        print(error_line(f"error: {err}"), file=sys.stderr)
        return 1
    except DataFileError as err:
        print(error_line(f"error: {err}"), file=sys.stderr)
        return 2
    print(printable(json.dumps(result, ensure_ascii=False, indent=1, sort_keys=True)))
    return 0


def entry_point() -> int:
    """main(), with a closed standard output (`--list | head -1`) ending quietly instead of in a traceback."""
    try:
        status = main(sys.argv[1:])
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python flushes stdout again at exit
        return 0
    return status


if __name__ == "__main__":
    sys.exit(entry_point())
