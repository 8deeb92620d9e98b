"""Running a verifier and normalising its untrusted output fail-safe.

Nothing a verifier returns or raises can mark an item preserved unless the
item received exactly one structurally valid finding saying so. Thrown
errors are swallowed without copying their message anywhere.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Iterable, Mapping
from typing import Any, Protocol

from .errors import ContextGuardError
from .item import ContextItem
from .report import STATUSES, Finding, Issue, IssueCode, VerificationReport
from .snapshot import Snapshot, coerce_snapshot

#: Reasons longer than this are cut, so a verifier cannot bloat a report.
MAX_REASON_CHARS = 500


class Verifier(Protocol):
    def verify(self, items: list[ContextItem], context: str) -> Any:
        """Return an iterable of findings ``{"itemId", "status", "reason"?}``, or an awaitable of one."""


def verify_context(
    snapshot: Snapshot | Mapping[str, Any], context: str, verifier: Verifier
) -> VerificationReport:
    """Verify ``context`` against ``snapshot`` with a synchronous verifier."""
    snap = coerce_snapshot(snapshot)
    _check_context(context)
    try:
        output = verifier.verify(list(snap.items), context)
    except Exception:
        return _all_unknown(snap, "verifier_error")
    if inspect.isawaitable(output):
        _discard(output)
        return _all_unknown(snap, "invalid_output")
    return normalize_findings(snap, output)


async def averify_context(
    snapshot: Snapshot | Mapping[str, Any], context: str, verifier: Verifier
) -> VerificationReport:
    """Verify with a verifier whose ``verify`` may be sync or async."""
    snap = coerce_snapshot(snapshot)
    _check_context(context)
    try:
        output = verifier.verify(list(snap.items), context)
        if inspect.isawaitable(output):
            output = await output
    except Exception:
        return _all_unknown(snap, "verifier_error")
    return normalize_findings(snap, output)


def normalize_findings(snapshot: Snapshot, output: object) -> VerificationReport:
    """Turn raw verifier output into a report; see the module docstring for the rules."""
    if isinstance(output, str | bytes | Mapping) or not isinstance(output, Iterable):
        return _all_unknown(snapshot, "invalid_output")
    try:
        raw = list(output)
    except Exception:  # a generator that raises mid-way is a thrown verifier
        return _all_unknown(snapshot, "verifier_error")

    known = {item.id for item in snapshot.items}
    issues: list[Issue] = []
    accepted: dict[str, Finding] = {}
    tainted: set[str] = set()
    seen: set[str] = set()

    def problem(code: IssueCode, item_id: str | None = None) -> None:
        issues.append(Issue(code, item_id))
        if item_id is not None:
            tainted.add(item_id)

    for entry in raw:
        try:
            item_id, status, reason = _fields(entry)
        except Exception:  # not a mapping, or a mapping that misbehaves
            problem("malformed_finding")
            continue
        if type(item_id) is not str:  # exact type: a str subclass could lie in __eq__
            problem("malformed_finding")
            continue
        if item_id not in known:
            issues.append(Issue("unknown_item_id"))  # never echo an id we did not issue
            continue
        if item_id in seen:
            problem("duplicate_finding", item_id)
            continue
        seen.add(item_id)
        if type(status) is not str or status not in STATUSES:
            problem("unsupported_status", item_id)
            continue
        if reason is not None and type(reason) is not str:
            issues.append(Issue("invalid_reason", item_id))  # dropped; the status still counts
            reason = None
        accepted[item_id] = Finding(item_id, status, _bounded(reason))

    findings: list[Finding] = []
    for item in snapshot.items:
        if item.id not in seen:
            issues.append(Issue("missing_finding", item.id))
            findings.append(Finding(item.id, "unknown"))
        elif item.id in tainted or item.id not in accepted:
            findings.append(Finding(item.id, "unknown"))
        else:
            findings.append(accepted[item.id])
    return VerificationReport(tuple(findings), _critical_ids(snapshot), tuple(issues))


def _fields(entry: object) -> tuple[object, object, object]:
    if not isinstance(entry, Mapping):
        raise TypeError("finding is not a mapping")
    return entry.get("itemId"), entry.get("status"), entry.get("reason")


def _bounded(reason: str | None) -> str | None:
    if reason is None or len(reason) <= MAX_REASON_CHARS:
        return reason
    return reason[: MAX_REASON_CHARS - 1] + "…"


def _all_unknown(snapshot: Snapshot, code: IssueCode) -> VerificationReport:
    findings = tuple(Finding(item.id, "unknown") for item in snapshot.items)
    return VerificationReport(findings, _critical_ids(snapshot), (Issue(code),))


def _critical_ids(snapshot: Snapshot) -> frozenset[str]:
    return frozenset(item.id for item in snapshot.items if item.critical)


def _check_context(context: object) -> None:
    if not isinstance(context, str):
        raise ContextGuardError("invalid_input", "the context must be a string")


def _discard(awaitable: Awaitable[Any]) -> None:
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()
