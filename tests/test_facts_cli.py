"""``contextward check`` uses the facts verifier by default."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from contextward.cli import main

SNAPSHOT = {
    "schemaVersion": 1,
    "items": [
        {"id": "g1", "kind": "goal", "content": "Ship OAuth login by Friday.", "critical": False},
        {"id": "c1", "kind": "constraint", "content": "Never push to main.", "critical": True},
        {"id": "c2", "kind": "constraint", "content": "The budget cap is $500.", "critical": True},
        {"id": "r1", "kind": "requirement", "content": "You must add tests.", "critical": True},
    ],
}
SUMMARY = (
    "We will ship OAuth login by Friday. Pushing to main is fine now.\n"
    "The budget cap is $5000. You may add tests.\n"
)


def check(tmp_path: Path, *extra: str) -> tuple[int, str, str]:
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(SNAPSHOT))
    summary = tmp_path / "summary.md"
    summary.write_text(SUMMARY)
    result = CliRunner().invoke(
        main, ["check", "--snapshot", str(snap), "--context", str(summary), *extra]
    )
    return result.exit_code, result.stdout, result.stderr


def test_default_verifier_reports_what_changed_and_why(tmp_path: Path) -> None:
    code, out, err = check(tmp_path, "--json")
    assert (code, err) == (1, "")
    assert json.loads(out) == {
        "schemaVersion": 1,
        "ok": False,
        "findings": [
            {"itemId": "g1", "status": "preserved", "reason": "preserved: verbatim"},
            {
                "itemId": "c1",
                "status": "changed",
                "reason": "changed: negation flipped (removed)",
            },
            {"itemId": "c2", "status": "changed", "reason": "changed: value swapped (currency)"},
            {"itemId": "r1", "status": "changed", "reason": "changed: obligation weakened"},
        ],
        "preserved": ["g1"],
        "changed": ["c1", "c2", "r1"],
        "lost": [],
        "unknown": [],
        "criticalFailures": ["c1", "c2", "r1"],
        "issues": [],
    }


def test_explicit_facts_equals_the_default_and_literal_still_works(tmp_path: Path) -> None:
    assert check(tmp_path, "--json") == check(tmp_path, "--json", "--verifier", "facts")
    code, out, _ = check(tmp_path, "--json", "--verifier", "literal")
    assert code == 1
    assert json.loads(out)["lost"] == ["c1", "c2", "r1"]


def test_help_names_facts_as_the_default(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", "--help"])
    assert result.exit_code == 0
    assert "[facts|literal]" in result.stdout and "default: facts" in result.stdout
