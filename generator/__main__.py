"""Command line: python -m generator COMMAND [options]."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .base.errors import EXIT_INTERRUPTED, EXIT_PROBLEMS, KbError
from .base.paths import BENCH_RESULTS, DATA, REPO
from .base.problems import DataError


def cmd_validate(args: argparse.Namespace) -> int:
    from .validate.validate import validate

    kb, problems = validate(args.data)
    if problems:
        print(problems.report())
        print(f"{len(problems)} problem(s) found", file=sys.stderr)
        return 1
    print(
        f"ok: {len(kb.games)} games, {len(kb.sources)} sources, {len(kb.chapters)} chapters, "
        f"{len(kb.entries)} entries, {len(kb.terms)} glossary terms, {len(kb.noise)} noise ranges"
    )
    return 0


def cmd_coverage(args: argparse.Namespace) -> int:
    """Coverage is reported even when some items have problems (they count as untraced),
    so that editors can measure work in progress; the exit status is then 1."""
    from .validate.coverage import coverage, format_report
    from .validate.validate import validate

    kb, problems = validate(args.data)
    report = coverage(kb)
    if args.json:
        print(
            json.dumps(
                {name: {k: r[k] for k in ("lines", "traced", "noise", "untraced")} for name, r in report.items()}, ensure_ascii=False, indent=1
            )
        )
    else:
        print(format_report(report))
    if problems:
        print(
            f"warning: {len(problems)} problem(s) in the data; items with problems are not counted (run `python -m generator validate`)",
            file=sys.stderr,
        )
        return 1
    return 0


def cmd_codes(args: argparse.Namespace) -> int:
    """Print the table of problem codes as Markdown (docs/error-codes.md is this output)."""
    from .base.problems import CODES

    print("# Problem codes of `python -m generator`\n")
    print("Each problem is printed as `path:line:col: CODE message` followed by a hint. E codes are problems in")
    print("the data: `validate` (and `build`, `serve`) collects all of them before exiting with status 1, and")
    print("`tests/fixtures/invalid/<CODE>[-<case>]/` holds failing examples of each, with `expected.txt`: the exact")
    print("lines `validate` prints. The other codes end a command on their own: B a build stage (status 1),")
    print("U the command line (status 2), O the output that could not be written (status 74), I `ingest`")
    print("(status 1).\n")
    print("| code | meaning | how to fix |")
    print("|---|---|---|")
    for code, (meaning, hint) in CODES.items():
        print(f"| {code} | {meaning} | {hint} |")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    from .tools.ingest import ingest_file

    return ingest_file(args.source, args.source_id, args.language, sys.stdout)


def cmd_build(args: argparse.Namespace) -> int:
    from .pipeline import build
    from .render.aids.aid_qr import NO_SITE_URL, site_url

    report = build(args.data, args.out, skip_unchanged=not args.force)
    print(report.summary())
    if not report.unchanged_release and site_url() is None:
        print(NO_SITE_URL)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    if args.one:
        return bench.one(args.one, args.out)
    return bench.main([int(s) for s in args.sizes.split(",")], args.json)


def port_number(text: str) -> int:
    """--port: a whole number from 1 to 65535 (argparse prints the message and exits 2 otherwise)."""
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"'{text}' is not a port number (1-65535)")
    return int(text)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the site; with watching (the default), rebuild on every change and reload open pages."""
    from .serve import serve

    return serve(args.data, args.out, args.port, watch=not args.no_watch)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("validate", help="check the data's shape and meaning; exit 1 with every problem")
    p.add_argument("--data", type=Path, default=DATA)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("coverage", help="per source: lines traced into entries, classed as noise, or neither")
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_coverage)

    p = sub.add_parser("codes", help="print the table of problem codes (docs/error-codes.md)")
    p.set_defaults(func=cmd_codes)

    p = sub.add_parser("ingest", help="turn a raw text into draft YAML entries for an editor")
    p.add_argument("source", type=Path)
    p.add_argument("--source-id", default=None, help="id for the drafts' origin (default: from the manifest or file name)")
    p.add_argument("--language", default=None, help="language of the text (default: from the manifest)")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("build", help="build the site, search index, cards and rules_check from the data")
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--out", type=Path, default=REPO, help="folder that receives site/, docs/generated/, rules_check/ (default: the repository)")
    p.add_argument("--force", action="store_true", help="build even when nothing changed since the published build")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("bench", help="time and weigh every stage at 1x, 10x and 100x the data; targets met or not")
    p.add_argument("--sizes", default="1,10,100", help="corpus sizes as multiples of the bundled data")
    p.add_argument("--json", type=Path, default=BENCH_RESULTS, help="where to write the results")
    p.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("serve", help="serve the site on 127.0.0.1; rebuild and reload pages when data/ or the templates change")
    p.add_argument("--port", type=port_number, default=8000)
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--no-watch", action="store_true", help="only serve the built site")
    p.add_argument("--out", type=Path, default=REPO, help="folder holding the built site/ (default: the repository)")
    p.set_defaults(func=cmd_serve)

    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)  # the cmd_* function its subcommand set
        return status
    except DataError as err:
        print(err.problems.report())
        print(f"{len(err.problems)} problem(s) found; nothing was written", file=sys.stderr)
        return EXIT_PROBLEMS
    except KbError as err:
        print(f"error: {err.report()}", file=sys.stderr)
        return err.exit_status
    except KeyboardInterrupt:
        print("interrupted; nothing was replaced", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader stopped early (`validate | head`): not a failure to report with a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # what a shell reports for a command ended by SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
