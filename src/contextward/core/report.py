"""Verification findings and the report built from them.

The report holds item ids, statuses, verifier reasons and structural issue
codes; never context text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["preserved", "changed", "lost", "unknown"]
STATUSES: tuple[Status, ...] = ("preserved", "changed", "lost", "unknown")

#: Codes of structural problems in verifier output, as recorded in ``issues``.
IssueCode = Literal[
    "verifier_error",
    "invalid_output",
    "missing_finding",
    "duplicate_finding",
    "malformed_finding",
    "unknown_item_id",
    "unsupported_status",
    "invalid_reason",
]


@dataclass(frozen=True, slots=True)
class Finding:
    item_id: str
    status: Status
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"itemId": self.item_id, "status": self.status}
        if self.reason is not None:
            data["reason"] = self.reason
        return data


@dataclass(frozen=True, slots=True)
class Issue:
    """A structural problem in verifier output; ``item_id`` only when it names a snapshot item."""

    code: IssueCode
    item_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code}
        if self.item_id is not None:
            data["itemId"] = self.item_id
        return data


@dataclass(frozen=True, slots=True)
class VerificationReport:
    """One finding per snapshot item, in snapshot order, plus derived id buckets."""

    findings: tuple[Finding, ...]
    critical_ids: frozenset[str] = field(default_factory=frozenset)
    issues: tuple[Issue, ...] = ()

    def ids(self, status: Status) -> list[str]:
        return [f.item_id for f in self.findings if f.status == status]

    @property
    def preserved(self) -> list[str]:
        return self.ids("preserved")

    @property
    def changed(self) -> list[str]:
        return self.ids("changed")

    @property
    def lost(self) -> list[str]:
        return self.ids("lost")

    @property
    def unknown(self) -> list[str]:
        return self.ids("unknown")

    @property
    def critical_failures(self) -> list[str]:
        return [
            f.item_id
            for f in self.findings
            if f.item_id in self.critical_ids and f.status != "preserved"
        ]

    @property
    def ok(self) -> bool:
        return not self.issues and all(f.status == "preserved" for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schemaVersion": 1,
            "ok": self.ok,
            "findings": [f.to_dict() for f in self.findings],
            "preserved": self.preserved,
            "changed": self.changed,
            "lost": self.lost,
            "unknown": self.unknown,
            "criticalFailures": self.critical_failures,
            "issues": [i.to_dict() for i in self.issues],
        }
