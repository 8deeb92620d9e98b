"""Does the restore block restate a replaced statement as one that "still holds"?

The replacement probes (``bench.inspect_probe``) run through the whole loop: inspect,
snapshot, check a compaction summary, plan the restore. The summaries are in
``bench/data/inspect/probe/summaries/<probe>.json``, written by helpers who saw only
the probe sessions (never the rules), as a host's summariser would write them:

- ``faithful``: what currently holds, in the summariser's own words;
- ``wrong`` (controls only): the summariser's mistake, the earlier statement (which
  still holds) replaced by or merged into a value or name said later.

Where supersession missed a replacement, the old statement is still in the snapshot,
the faithful summary does not say it, and a plain restore restates it as holding. The
restore reads such an item as replaced when a later statement of the session explains
the summary's change (``brief.restore.replaced_later``); a wrong summary must still get
the statement restored. Both columns come from one run: "every failure" is the restore
without that reading (every lost or changed critical item restated).

Unseen probe: totals only, as everywhere (``bench.inspect_probe``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.inspect_probe import messages, probes
from contextward.brief.restore import RestorePlan, plan_restore
from contextward.compaction import capture, check_summary
from contextward.store import Store

SUMMARIES = Path(__file__).parent / "data" / "inspect" / "probe" / "summaries"

HEAD = ["sessions", "count", "every failure restated", "with the later-word check"]


@dataclass
class Counts:
    sessions: int = 0
    plain: int = 0
    checked: int = 0


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() in " ".join(b.split()).casefold()


def _plan(session: dict[str, Any], summary: str) -> RestorePlan:
    with Store.memory() as store:
        capture(store, messages(session), root=None)
        check_summary(store, summary)
        return plan_restore(store)


def score(data: Path) -> dict[str, Counts]:
    """Per row: sessions, and how many go wrong restored plainly / with the check."""
    summaries = json.loads((SUMMARIES / data.name).read_text(encoding="utf-8"))
    rows = {
        "replacements, faithful summary: a replaced statement restated": Counts(),
        "controls, wrong summary: a current statement not restated": Counts(),
        "controls, faithful summary: an item read as replaced": Counts(),
    }
    replaced_row, wrong_row, faithful_row = rows.values()
    for session in json.loads(data.read_text(encoding="utf-8"))["sessions"]:
        written = summaries[session["id"]]
        plan = _plan(session, written["faithful"])
        hidden = [old for old, _ in plan.replaced]
        if session["replaces"]:
            replaced_row.sessions += 1
            restated = [
                item
                for item in plan.items
                for text in session["replaced"]
                if _same(text, item.content)
            ]
            again = [
                item for item in hidden for text in session["replaced"] if _same(text, item.content)
            ]
            replaced_row.checked += bool(restated)
            replaced_row.plain += bool(restated or again)
            continue
        faithful_row.sessions += 1
        faithful_row.checked += bool(hidden)
        wrong = _plan(session, written["wrong"])
        wrong_row.sessions += 1
        wrong_row.checked += bool(wrong.replaced)
    return rows


#: Claude Code's /compact summary lists every user message word for word before it states
#: the current state: a summary error then sits after a verbatim copy of the item.
QUOTED_HEAD = ["summaries laid out as Claude Code's", "sessions", "a change found after the copy"]


def quoted(session: dict[str, Any], summary: str) -> str:
    said = "\n".join(f'   - "{m.text}"' for m in messages(session) if m.role == "user")
    return (
        "<summary>\n1. Primary Request and Intent: see the messages below.\n"
        f"2. All user messages:\n{said}\n3. Current state:\n{summary}\n</summary>"
    )


def quoted_rows(data: Path) -> list[list[str]]:
    """Controls with each summary after the owner's messages quoted: how many wrong ones
    are caught (an item reported changed after its verbatim copy), and how many faithful
    ones are read as changing something."""
    summaries = json.loads((SUMMARIES / data.name).read_text(encoding="utf-8"))
    found = {"wrong": 0, "faithful": 0}
    controls = [
        s for s in json.loads(data.read_text(encoding="utf-8"))["sessions"] if not s["replaces"]
    ]
    for session in controls:
        for kind in found:
            with Store.memory() as store:
                capture(store, messages(session), root=None)
                outcome = check_summary(store, quoted(session, summaries[session["id"]][kind]))
            assert outcome is not None
            found[kind] += any(
                "after a verbatim copy" in (f.reason or "") for f in outcome.report.findings
            )
    n = len(controls)
    return [
        ["controls, wrong summary: the error found", str(n), f"{found['wrong']} of {n}"],
        ["controls, faithful summary: a change reported", str(n), f"{found['faithful']} of {n}"],
    ]


def rows(data: Path) -> list[list[str]]:
    return [
        [name, str(c.sessions), f"{c.plain} of {c.sessions}", f"{c.checked} of {c.sessions}"]
        for name, c in score(data).items()
    ]


def evaluate() -> str:
    lines = []
    for title, data in probes():
        lines.append(f"restore after a compaction: {title}; summaries by a helper")
        lines.append(f"  {HEAD[0]:<64}" + "".join(f"{h:>26}" for h in HEAD[1:]))
        for row in rows(data):
            lines.append(f"  {row[0]:<64}" + "".join(f"{v:>26}" for v in row[1:]))
        lines.append(f"  {QUOTED_HEAD[0]:<64}" + "".join(f"{h:>30}" for h in QUOTED_HEAD[1:]))
        for row in quoted_rows(data):
            lines.append(f"  {row[0]:<64}" + "".join(f"{v:>26}" for v in row[1:]))
    return "\n".join(lines)


if __name__ == "__main__":
    print(evaluate())
