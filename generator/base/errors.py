"""The one family of errors a user can cause, and what the command line does with each.

Every failure of a command that is not a bug is a `KbError`: a stable code, a message, a location
where there is one (file:line:col) and a hint saying how to fix it. Problems in the data are
collected first and raised together as `problems.DataError`, one of the family. `__main__` catches
the family in one place and maps it to an exit status; anything else is a bug and may show a
traceback.
"""

from __future__ import annotations

from .escaping import terminal_text
from .problems import CODES

EXIT_PROBLEMS = 1  # the data has problems, or a build stage refused it
EXIT_USAGE = 2  # the command line is wrong (argparse uses 2 too)
EXIT_IO = 74  # the output could not be written (disk full, permissions): EX_IOERR
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


class KbError(Exception):
    """A failure the user can act on. Subclasses set `code`, a code of the table (problems.CODES), which
    gives the hint unless one is passed; `location` is (path, line, col)."""

    code: str
    exit_status = EXIT_PROBLEMS

    def __init__(self, message: str, location: tuple[str, int, int] | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location
        self.hint = CODES[self.code][1] if hint is None else hint  # an unknown code throws

    def report(self) -> str:
        where = f"{terminal_text(self.location[0])}:{self.location[1]}:{self.location[2]}: " if self.location else ""
        hint = f"\n    hint: {terminal_text(self.hint)}" if self.hint else ""
        return f"{where}{self.code} {terminal_text(self.message)}{hint}"


class UsageError(KbError):
    """The command was asked for something it cannot do as given (exit 2, like argparse's own errors)."""

    code = "U001"
    exit_status = EXIT_USAGE


class OutputError(KbError):
    """Writing the output failed (a full disk, no permission): nothing was replaced."""

    code = "O001"
    exit_status = EXIT_IO


class FrontEndMissing(KbError):
    """A package the site vendors (Pyodide, Workbox: node_modules; the browser wheels) is not installed."""

    code = "B006"
