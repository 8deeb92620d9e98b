"""``contextward init | status | contract | note | journal | doctor | export | import``.

Each command parses, calls the store library, prints. Exit 0 ok, 1 a check
failed or a warning fired, 2 bad input or an unusable store (one line on
stderr, never a traceback).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..redact import mask
from ..store import JOURNAL_TYPES, JournalEntry, project_root, session_id_from_env
from ..store.contract import add_constraint, load_contract, remove_constraint
from ..store.doctor import diagnose
from ..store.export import export_lines
from ..store.importer import LOADED, import_export
from ..store.paths import store_dir
from ..store.setup import initialise
from ._io import BadInput, echo_json, say
from ._store import config, errors, read_store, write_store


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@click.command("init")
def init_command() -> None:
    """Create .contextward/ (database, config.toml, contract.md, .gitignore) if missing."""
    from ..state import StateError, StateProject, adopt_journal_decisions

    with errors():
        result = initialise()
    say(f"contextward store at {result.root / '.contextward'}")
    with write_store(config(quiet=True)) as store:
        try:
            adopted = adopt_journal_decisions(store, StateProject.open(result.root))
        except StateError as exc:
            raise BadInput(str(exc)) from None
    if adopted:
        say(f"  moved {adopted} owner decision(s) from the journal to STATE.md")
    for name in result.created:
        say(f"  created {name}")
    for name in result.kept:
        say(f"  kept    {name}")


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status_command(as_json: bool) -> None:
    """Store, journal, evidence, loops and contract at a glance. Exit 1 when a loop is blocked."""
    from ..status import project_status

    cfg = config()
    with errors():
        data = project_status(project_root(), cfg)
    blocked = data.pop("blocked")
    if as_json:
        echo_json(data)
    else:
        _print_status(data)
    sys.exit(1 if blocked or cfg.warnings else 0)


def _print_status(data: dict[str, Any]) -> None:
    counts = data["contract"]
    contract = (
        f"contract: {sum(counts.values())} constraints ({counts['seed']} seed · "
        f"{counts['personal']} personal · {counts['project']} project)"
    )
    if data["store"] is None:
        say("contextward status · no store yet (run `contextward init`)")
        say(contract)
        return
    journal = data["journal"]
    say(f"contextward status · schema {data['store']['schema_version']}")
    say(
        f"journal: {journal['total']} entries (owner {journal['owner']} · agent {journal['agent']})"
        f" · prompts {data['prompts']}"
    )
    last = data["evidence"]["last"]
    if last is None:
        say("evidence: no runs yet")
    else:
        label = "ok" if last["verdict"] == "ok" else last["verdict"].upper()
        say(
            f"evidence: {data['evidence']['runs']} runs · last {last['id']} exit "
            f"{last['exit_code']} {label} {last['duration_ms']}ms `{_short(last['command'], 60)}`"
        )
    loops = data["loops"]
    if not loops:
        say("loops: none")
    for loop in loops:
        state = "BLOCKED" if loop["blocked"] else "failing"
        say(f"loops: {state} `{_short(loop['command'], 60)}` · {loop['streak']} in a row")
    say(contract)
    if data["config_warnings"]:
        say(f"config: {data['config_warnings']} warning(s); see `contextward doctor`")


@click.group("contract")
def contract_group() -> None:
    """List, add or remove standing constraints (seed · personal · project)."""


@contract_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def contract_list(as_json: bool) -> None:
    """Every constraint in force, seeds first."""
    contract = load_contract(project_root())
    for problem in contract.problems:
        say(f"contextward: warning: {problem}", err=True)
    if as_json:
        echo_json(
            [
                {"id": c.id, "text": mask(c.text), "layer": c.layer, "provenance": c.provenance}
                for c in contract.constraints
            ]
        )
        return
    for c in contract.constraints:
        origin = c.layer if c.trusted else f"{c.layer}, agent (unverified)"
        say(f"{c.id} [{origin}] {c.text}")


@contract_group.command("add")
@click.argument("text")
@click.option("--global", "personal", is_flag=True, help="Add to the personal layer.")
@click.option("--id", "constraint_id", default=None, help="Use (or reword) this id.")
def contract_add(text: str, personal: bool, constraint_id: str | None) -> None:
    """Add an owner constraint to the project (or, with --global, the personal layer)."""
    root = project_root()
    with errors():
        before = {c.id for c in load_contract(root).constraints}
        row = add_constraint(
            root, text, layer="personal" if personal else "project", constraint_id=constraint_id
        )
    if constraint_id is None and row.id in before:
        say(f"already in the contract: {row.id} [{row.layer}] (nothing added)")
        return
    say(f"added {row.id} to the {'personal' if personal else 'project'} layer")


@contract_group.command("remove")
@click.argument("constraint_id", metavar="ID")
@click.option("--global", "personal", is_flag=True, help="Remove from the personal layer.")
def contract_remove(constraint_id: str, personal: bool) -> None:
    """Remove an owner constraint (seeds cannot be removed)."""
    with errors():
        row = remove_constraint(
            project_root(), constraint_id, layer="personal" if personal else "project"
        )
    say(f"removed {row.id} from the {'personal' if personal else 'project'} layer")


@click.command("note")
@click.argument("type_", metavar="TYPE", type=click.Choice(JOURNAL_TYPES))
@click.argument("text")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable; commas split).")
def note_command(type_: str, text: str, tags: tuple[str, ...]) -> None:
    """Journal a correction, risk, note or lesson; a decision goes to STATE.md (owner)."""
    from ..state import StateError
    from ..state.notes import note

    with write_store(config()) as store:
        try:
            noted = note(store, type_, text, tags=tags, session_id=session_id_from_env())
        except StateError as exc:
            raise BadInput(str(exc)) from None
    if noted.home == "state":
        say(f"noted {'rejected approach' if noted.rejected else 'decision'} in STATE.md (owner)")
        for hint in noted.hints:  # what was left out of the line: a warning, not output
            say(f"contextward: warning: {hint}", err=True)
        return
    tag_text = f" [{','.join(noted.tags)}]" if noted.tags else ""
    say(f"noted {noted.ref} {noted.type}{tag_text} (owner)")
    for hint in noted.hints:
        say(f"hint: {hint}")


@click.command("journal")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 200))
@click.option("--type", "type_", type=click.Choice(JOURNAL_TYPES), default=None)
@click.option("--tag", "tags", multiple=True, help="Only entries with every one of these tags.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def journal_command(limit: int, type_: str | None, tags: tuple[str, ...], as_json: bool) -> None:
    """Recent journal entries, newest first; agent entries are marked unverified."""
    entries: list[JournalEntry] = []
    with read_store(config()) as store:
        if store is not None:
            entries = store.journal.list(limit=limit, type=type_, tags=tags)
    if as_json:
        echo_json([e.to_dict() for e in entries])
        return
    if not entries:
        say("journal: no entries")
    for e in entries:
        who = "owner" if e.trusted else "agent (unverified)"
        tag_text = f" [{','.join(e.tags)}]" if e.tags else ""
        say(
            f"{e.id} · {e.created_at[:16].replace('T', ' ')} · {e.type} · {who} · {e.text}{tag_text}"
        )


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def doctor_command(as_json: bool) -> None:
    """Check the store, configuration and contract; say what is wrong. Exit 1 on a problem."""
    report = diagnose()
    if as_json:
        echo_json(
            {
                "ok": report.ok,
                "findings": [
                    {"level": f.level, "code": f.code, "message": f.message}
                    for f in report.findings
                ],
            }
        )
    else:
        for f in report.findings:
            say(f"{f.level:<7} {f.code}: {f.message}")
        say("doctor: ok" if report.ok else "doctor: problems found")
    sys.exit(0 if report.ok else 1)


@click.command("export")
@click.option(
    "--output", "-o", default="-", metavar="FILE", help="Write JSON lines here (default stdout)."
)
def export_command(output: str) -> None:
    """Export every retained row as JSON lines (secrets masked)."""
    count = 0
    with read_store(config()) as store:
        if store is None:
            raise BadInput("no store yet (run `contextward init`)")
        if output != "-" and store.root is not None:
            inside = store_dir(store.root).resolve()
            if Path(output).resolve().is_relative_to(inside):
                # Opening the database (or its journal) for writing would truncate it.
                raise BadInput(f"export {output}: is inside the store; write it elsewhere")
        try:
            handle = sys.stdout if output == "-" else open(output, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise BadInput(f"export {output}: cannot be written ({exc.strerror})") from None
        try:
            for line in export_lines(store):
                handle.write(line)
                count += 1
            count -= 1  # the footer is no row
        finally:
            if handle is not sys.stdout:
                handle.close()
    say(f"exported {count} rows", err=True)


@click.command("import")
@click.argument("file", metavar="FILE")
def import_command(file: str) -> None:
    """Load an export back: journal, lessons, prompts, evidence (importing twice adds nothing)."""
    try:
        handle = open(file, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise BadInput(f"import {Path(file).name}: cannot be read ({exc.strerror})") from None
    with handle, errors(), write_store(config()) as store:
        result = import_export(store, handle)
    for ledger in LOADED:
        say(
            f"{ledger}: {result.added[ledger]} added, {result.present[ledger]} already there",
            err=True,
        )
    left = sum(result.skipped.values())
    if left:
        names = ", ".join(sorted(result.skipped))
        say(f"not imported: {left} rows of {names} (see docs/store.md)", err=True)


commands = (
    contract_group,
    doctor_command,
    export_command,
    import_command,
    init_command,
    journal_command,
    note_command,
    status_command,
)

__all__ = ["commands"]
