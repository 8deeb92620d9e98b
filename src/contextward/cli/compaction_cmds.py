"""``contextward compact-test`` and ``contextward restore``: the compaction loop, by hand."""

from __future__ import annotations

import io
from typing import Any

import click

from ..brief.restore import RestorePlan, plan_restore, render_replaced, render_restore
from ..compaction import Capture, CheckOutcome, capture, check_summary
from ..inspect import InspectError, open_transcript
from ..inspect.provider import Answered
from ..printable import counted, json_text
from ..store import Store, project_root, session_id_from_env
from ._io import BadInput, display_name, one_stdin, open_input, read_text, say, storable_value
from ._store import read_store
from .inspect_io import ANSWER_OPTION, FORMAT_OPTION, answer_text, provider_notice, read_all
from .render import report_table


@click.command("compact-test")
@click.argument("transcript", metavar="TRANSCRIPT|-")
@click.option("--summary", "summary_path", required=True, metavar="FILE", help="The summary.")
@FORMAT_OPTION
@ANSWER_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print everything as one JSON object.")
def compact_test(
    transcript: str, summary_path: str, fmt: str | None, answer: str | None, as_json: bool
) -> None:
    """What a compaction would cost: inspect, snapshot, check the summary, restore.

    Nothing is written to the project store. Exit 0 when the summary kept every
    item, 1 when something would need restoring, 2 on bad input. With ``--answer``,
    inspection runs in provider mode from a model's answer to ``inspect --prompt``.
    """
    one_stdin(transcript=transcript, summary=summary_path, answer=answer)
    summary = read_text(summary_path, what="summary", lenient=True)
    provider = Answered(answer_text(answer, transcript)) if answer is not None else None
    with Store.memory() as store:
        taken = _capture(store, transcript, fmt, provider)
        outcome = check_summary(store, summary, snapshot_record=taken.record)
        assert outcome is not None  # a snapshot was just stored
        plan = plan_restore(store)
    restore = "\n\n".join(part for part in (render_restore(plan), render_replaced(plan)) if part)
    if as_json:
        data = {
            "schema_version": 1,
            # As ``inspect --json``: the mode, and why an answer was not used or how much
            # of it was refused, so CI can tell a fallback from a used answer.
            "inspection": {
                "mode": taken.result.mode,
                "messages": taken.result.messages,
                "counts": taken.result.counts(),
                **taken.result.provider_notes(),
            },
            "snapshot": taken.snapshot.to_dict(),
            "report": outcome.report.to_dict(),
            "restore": restored_items(plan),
            "replaced_later": [
                {"item": old.to_dict(), "later": new.to_dict()} for old, new in plan.replaced
            ],
            "dropped_per_summary": [item.to_dict() for item in plan.dropped],
        }
        click.echo(json_text(data))
    else:
        say(render_loop(taken, outcome, restore))
    raise SystemExit(0 if outcome.report.ok else 1)


def restored_items(plan: RestorePlan) -> list[dict[str, Any]]:
    """The restored items as JSON: each with its ``status``, ``said_by`` (``agent`` or
    ``summary``) when it is not the owner's word; for a goal a later statement changed a
    detail of, that statement (``since``); for a terse item, what it replaced
    (``in_place_of``) or the question it answered (``answering``), as the block says."""
    return [
        {
            **item.to_dict(),
            "status": plan.statuses.get(item.id, ""),
            **({"said_by": plan.said_by(item.id)} if plan.said_by(item.id) else {}),
            **({"since": plan.since[item.id].to_dict()} if item.id in plan.since else {}),
            **_context(plan, item.id),
        }
        for item in plan.items
    ]


def _context(plan: RestorePlan, item_id: str) -> dict[str, str]:
    if item_id in plan.in_place_of:
        return {"in_place_of": plan.in_place_of[item_id]}
    if item_id in plan.answering:
        return {"answering": plan.answering[item_id]}
    return {}


def render_loop(taken: Capture, outcome: CheckOutcome, restore: str) -> str:
    """The loop as a person reads it: inspection, guidance, snapshot, check, restore."""
    counts = ", ".join(f"{n} {action}" for action, n in taken.result.counts().items())
    return "\n".join(
        [
            f"1. inspect: {counted(taken.result.messages, 'message')} -> {counts}",
            "\n2. guidance handed to the host's summariser:\n",
            taken.guidance,
            f"\n3. snapshot: {len(taken.snapshot.items)} items must survive "
            f"({sum(i.critical for i in taken.snapshot.items)} critical)",
            "\n4. the summary, checked (facts verifier):\n",
            report_table(taken.snapshot, outcome.report),
            "\n5. restore block injected after the compaction:\n",
            restore
            or (
                "(nothing to restore: the summary kept every critical item)"
                if outcome.report.ok
                else "(nothing to restore: what the summary lost or changed is not critical; "
                "see the check above)"
            ),
        ]
    )


def run_loop(transcript: bytes, summary: str) -> tuple[Capture, CheckOutcome, RestorePlan]:
    """The whole loop on an in-memory store: nothing touches the project's store."""
    with Store.memory() as store:
        taken = capture(
            store, open_transcript(io.BytesIO(transcript)).messages, root=project_root()
        )
        outcome = check_summary(store, summary, snapshot_record=taken.record)
        assert outcome is not None  # a snapshot was just stored
        return taken, outcome, plan_restore(store)


def _capture(
    store: Store, transcript: str, fmt: str | None, provider: Answered | None = None
) -> Capture:
    with open_input(transcript, what="transcript") as stream:
        try:
            opened = open_transcript(stream, fmt)
            taken = capture(store, opened.messages, root=project_root(), provider=provider)
        except InspectError as exc:
            raise BadInput(f"transcript {display_name(transcript)}: {exc}") from None
    read_all(transcript, taken.result.messages, opened.skips.counts, notice=True, fmt=fmt)
    if provider is not None:
        provider_notice(taken.result)
    return taken


@click.command("restore")
@click.option(
    "--session",
    "session_id",
    metavar="ID",
    callback=storable_value,
    help="Only that session's last compaction (default: $CONTEXTWARD_SESSION_ID).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the items as JSON.")
def restore(session_id: str | None, as_json: bool) -> None:
    """Show the critical items the last compaction lost or changed (what the hooks restore).

    With a session (``--session``, else ``$CONTEXTWARD_SESSION_ID``), that session's last
    compaction, as its hooks and the MCP server restore it; without, the project's last.
    """
    session = session_id or session_id_from_env()
    with read_store() as store:
        plan = (
            plan_restore(store, session_id=session)
            if store is not None
            else RestorePlan((), None, False, {})
        )
    if as_json:
        say(
            json_text(
                {
                    "schema_version": 1,
                    "snapshot_seq": plan.snapshot_seq,
                    "checked": plan.checked,
                    "items": restored_items(plan),
                    "replaced_later": [
                        {"item": old.to_dict(), "later": new.to_dict()}
                        for old, new in plan.replaced
                    ],
                    "dropped_per_summary": [item.to_dict() for item in plan.dropped],
                }
            )
        )
    else:
        shown = [render_restore(plan, max_chars=1_000_000), render_replaced(plan)]
        say("\n\n".join(part for part in shown if part) or "nothing to restore")
    raise SystemExit(1 if plan.items else 0)


commands = (compact_test, restore)
