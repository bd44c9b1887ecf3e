"""Validate, rules-check catalogues: each game's checks.yaml names the entries its checks implement and the
params, tables and other entries they read; every one must exist, so that a renamed param is a coded problem
here (E040-E042, with file:line:col and a hint) and never a crash of the rules_check package.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_check.core import CheckId

from ..base.jsontypes import JSONObject
from ..base.problems import Problems
from ..load.load import LoadedData
from ..load.model import KnowledgeBase, Where
from .schema import fits_schema


def check_catalogues(loaded: LoadedData, kb: KnowledgeBase, problems: Problems) -> None:
    """Fill kb.checks from the games' checks.yaml files and report what they name that the data lacks."""
    for unloaded in loaded.unloaded:
        if unloaded.kind == "checks" and unloaded.game:
            kb.unchecked_checks[unloaded.game] = unloaded.path  # the examples' `check:` names are not checked
    for doc in loaded.documents:
        if doc.kind != "checks" or doc.game not in kb.games:
            continue  # a missing game was reported already (E037)
        if not fits_schema("checks.schema.json", doc.data):
            kb.unchecked_checks[str(doc.game)] = doc.path  # its shape problem was reported already
            continue
        kb.checks[doc.game] = doc.data["checks"]
        reported: set[tuple[str, str]] = set()  # (entry, param or "table"): one problem however many checks read it
        for name, item in doc.data["checks"].items():
            _check_item(kb, Where(doc, ["checks", name]), item, problems, reported)


def _check_item(kb: KnowledgeBase, where: Where, item: JSONObject, problems: Problems, reported: set[tuple[str, str]]) -> None:
    check = f"{where.document.game}.{where.path[-1]}"
    for field in ("implements", "tables", "cites"):
        for i, entry_id in enumerate(item.get(field, [])):
            named_at = Where(where.document, [*where.path, field, i])
            if (
                _known_entry(kb, entry_id, named_at, problems)
                and field == "tables"
                and "table" not in kb.entries[entry_id]
                and (entry_id, "table") not in reported
            ):
                reported.add((entry_id, "table"))
                _report(
                    problems,
                    kb.where[entry_id],
                    ["id"],
                    "E042",
                    f"rules-check {check} ({_line_of(named_at)}) reads the table of '{entry_id}', which has none",
                )
    for entry_id, names in item.get("params", {}).items():
        named_at = Where(where.document, [*where.path, "params", entry_id])
        shown = _line_of(named_at)
        if not _known_entry(kb, entry_id, named_at, problems):
            continue
        params = kb.entries[entry_id].get("params", {})
        for name in names:
            if name not in params and (entry_id, name) not in reported:
                reported.add((entry_id, name))
                there = ", ".join(sorted(params)) or "none"
                _report(
                    problems,
                    kb.where[entry_id],
                    ["params"] if params else ["id"],
                    "E041",
                    f"rules-check {check} ({shown}) reads params.{name} of '{entry_id}'; its params: {there}",
                )


def _line_of(where: Where) -> str:
    return f"{where.document.path}:{where.document.positions.of(where.path)[0]}"


def _known_entry(kb: KnowledgeBase, entry_id: str, where: Where, problems: Problems) -> bool:
    if entry_id in kb.entries:
        return True
    if entry_id not in kb.unchecked_ids and kb.game_of(entry_id) not in kb.unchecked_games:  # said by its own problem
        _report(problems, where, [], "E040", f"no entry '{entry_id}' in the data")
    return False


def _report(problems: Problems, where: Where, sub_path: Sequence[str | int], code: str, message: str) -> None:
    problems.add(where.document.path, where.document.positions.of([*where.path, *sub_path]), code, message)


def known_checks(kb: KnowledgeBase) -> set[CheckId]:
    """The checks an example's `check:` may name (CheckId.parse reads it)."""
    return {CheckId(game, name) for game, checks in kb.checks.items() for name in checks}


def checks_by_entry(kb: KnowledgeBase) -> dict[str, list[str]]:
    """Entry id -> the checks implementing it ("game.check"), for the site's "computed by" line."""
    result: dict[str, list[str]] = {}
    for game, checks in kb.checks.items():
        for name, item in checks.items():
            for entry_id in item["implements"]:
                result.setdefault(entry_id, []).append(str(CheckId(game, name)))
    return result
