"""context-guardian-core (rules mode) on the inspection evaluation's labelled sessions.

context-guardian-core's ``ContextGuardian().inspect(messages)`` (no provider:
its local, deterministic rules mode, the CLI default) turns messages into
memory candidates with a keep / drop / review action. Each labelled session
of ``bench/data/inspect`` is given to it as the message list it documents
(``role``, ``content``, ``id``, ``tool_name``, ``is_error``) and scored with
``bench.inspect_eval.Score``, the same scorer as ours, beside our rules and
the keyword baseline.

Adaptation, stated so it can be checked: its categories map onto our kinds
(working_state and file_state -> state, failed_attempt -> rejected,
user_preference -> preference, important_fact -> fact, temporary ->
transient); a message it excludes as evidence (tool results, system text)
yields no candidate at all, so it is scored as one dropped candidate
holding the whole message (which is what the tool does with it). It has no
transcript readers of its own (its host adapters are TypeScript), so it
reads the messages, where ours reads the rendered Claude Code / pi files.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from bench import inspect_eval
from bench.peers import installed_version, skipped
from contextward.inspect import CRITICAL_KINDS, Candidate, InspectionResult

DISTRIBUTION = "context-guardian-core"
CATEGORY_TO_KIND = {
    "goal": "goal",
    "requirement": "requirement",
    "constraint": "constraint",
    "decision": "decision",
    "todo": "todo",
    "working_state": "state",
    "file_state": "state",
    "failed_attempt": "rejected",
    "user_preference": "preference",
    "important_fact": "fact",
    "tool_output": "tool_output",
    "temporary": "transient",
}


def inspect_session(session: inspect_eval.Session) -> InspectionResult:
    """The peer's candidates for one session, as our ``InspectionResult`` for the scorer."""
    from context_guardian import ContextGuardian

    found = ContextGuardian().inspect(session.messages)
    if found.mode != "rules":
        raise RuntimeError(f"{DISTRIBUTION} ran in {found.mode!r} mode, not rules")
    out: list[Candidate] = []
    covered: set[str] = set()
    for position, c in enumerate(found.candidates):
        kind = CATEGORY_TO_KIND.get(c.category.value, "fact")
        out.append(
            Candidate(
                c.id,
                kind,
                c.content,
                c.importance,
                c.confidence,
                c.suggested_action.value,
                kind in CRITICAL_KINDS,
                c.reason or "",
                tuple(c.source_message_ids),
                position=position,
            )
        )
        covered.update(c.source_message_ids)
    for position, m in enumerate(session.messages):
        mid = str(m["id"])
        if mid not in covered:
            kind = "tool_output" if m["role"] == "tool" else "transient"
            out.append(
                Candidate(
                    f"excluded-{mid}",
                    kind,
                    str(m["content"]),
                    0.0,
                    1.0,
                    "drop",
                    False,
                    "excluded as evidence by the peer",
                    (mid,),
                    position=len(found.candidates) + position,
                )
            )
    return InspectionResult(tuple(out), len(session.messages))


def score_peer(split: str) -> tuple[inspect_eval.Score, float]:
    total = inspect_eval.Score()
    start = time.perf_counter()
    for session in inspect_eval.sessions(split):
        total.add(session, inspect_session(session))
    return total, time.perf_counter() - start


def results() -> tuple[str | None, list[tuple[str, list[tuple[str, inspect_eval.Score]]]]]:
    """(peer version or None, [(split, [(tool label, score)...])])."""
    version = installed_version(DISTRIBUTION)
    out = []
    for split in inspect_eval.SPLITS:
        ours, _, _ = inspect_eval.score(split)
        scores = [
            ("contextward rules", ours),
            ("keyword baseline", inspect_eval.score_baseline(split)),
        ]
        if version is not None:
            scores.append((f"context-guardian-core {version} rules", score_peer(split)[0]))
        out.append((split, scores))
    return version, out


def table(scores: Sequence[tuple[str, inspect_eval.Score]]) -> list[str]:
    width = max(len(name) for name, _ in scores) + 2
    lines = [f"  {'metric':<30}" + "".join(f"{name:>{width}}" for name, _ in scores) + "  target"]
    columns = [score.rows() for _, score in scores]
    for cells in zip(*columns, strict=True):
        name, target = cells[0][0], cells[0][2]
        lines.append(
            f"  {name:<30}" + "".join(f"{c[1]:>{width}}" for c in cells) + f"  {target}".rstrip()
        )
    return lines


def evaluate() -> str:
    version = installed_version(DISTRIBUTION)
    if version is None:
        return skipped(DISTRIBUTION, "inspection peer, rules mode")
    _, splits = results()
    lines = [
        f"# inspection side by side: contextward vs {DISTRIBUTION} {version} "
        "(rules mode, offline; bench/peers/context_guardian.py)",
        "  data: bench/data/inspect sessions, scored by bench.inspect_eval.Score for every tool; "
        "a message the peer excludes as evidence counts as one dropped candidate.",
    ]
    for split, scores in splits:
        sessions = inspect_eval.sessions(split)
        labels = sum(len(s.labels) for s in sessions)
        lines.append(f"\n## {split}: {len(sessions)} sessions, {labels} labelled spans")
        lines.extend(table(scores))
    return "\n".join(lines)


if __name__ == "__main__":
    print(evaluate())
