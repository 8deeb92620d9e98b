"""STATE.md parsing and editing: tolerant reads, edits that keep every line they did not write."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextward.state.document import (
    TEMPLATE,
    Decision,
    LogEntry,
    StateDocument,
    parse_decision,
    parse_field,
    parse_log_entry,
)

SEED_EXAMPLE = """# State

## Current
focus: Building context-guard plugin
phase: planning
task: plans/260411-context-guard-plugin/
blockers: none
next: Switch to /execute, build steps 1-3
handoff: Execute should read all 3 artifacts. Start with step 1.

## Decisions
- Pure JS only, no native deps [2026-04-11]
- Default budget 20 images [2026-04-11]
- [REJECTED] js-tiktoken — WASM dep, replaced with custom BPE [2026-04-11]

## Log
- [2026-04-11 14:00] Plan complete with 9 build steps
- [2026-04-11 13:30] Anchor established — hook behavior verified
- [auto] [2026-04-11 14:23] Session ended, 14 tool calls, 5 files modified
"""


def test_reads_the_seed_format() -> None:
    view = StateDocument.parse(SEED_EXAMPLE).view()
    assert dict(view.fields) == {
        "focus": "Building context-guard plugin",
        "phase": "planning",
        "task": "plans/260411-context-guard-plugin/",
        "blockers": "none",
        "next": "Switch to /execute, build steps 1-3",
        "handoff": "Execute should read all 3 artifacts. Start with step 1.",
    }
    assert view.decisions == (
        Decision("Pure JS only, no native deps", False, "", "2026-04-11"),
        Decision("Default budget 20 images", False, "", "2026-04-11"),
        Decision("js-tiktoken", True, "WASM dep, replaced with custom BPE", "2026-04-11"),
    )
    assert (view.locked, view.rejected) == (2, 1)
    assert view.log[2] == LogEntry(
        "Session ended, 14 tool calls, 5 files modified", "2026-04-11 14:23", True
    )
    assert view.sections == ("current", "decisions", "log")


def test_hand_edits_any_key_case_bold_bullets_prose_and_duplicates() -> None:
    text = (
        "Intro prose.\n"
        "### CURRENT:\n"
        "**Focus:** the parser\n"
        "- PHASE: Testing\n"
        "__Next Steps__: write docs\n"
        "Focus: a duplicate, ignored\n"
        "Some prose: with a colon is not a field\n"
        "## Notes\n"
        "focus: not in Current, ignored\n"
    )
    view = StateDocument.parse(text).view()
    assert dict(view.fields) == {"focus": "the parser", "phase": "Testing", "next": "write docs"}
    assert view.sections == ("current",)


def test_missing_sections_and_junk_read_as_empty() -> None:
    view = StateDocument.parse("\x00\x01 binary \udcff junk\n#no heading\n").view()
    assert view.fields == {}
    assert view.decisions == ()
    assert view.log == ()


def test_with_fields_rewrites_known_keys_in_place_and_keeps_the_rest() -> None:
    text = (
        "# State\n"
        "preamble stays\n"
        "## Current\n"
        "FOCUS: old\n"
        "a hand-written remark\n"
        "focus: duplicate\n"
        "phase: planning\n"
        "\n"
        "## Custom\n"
        "kept: verbatim\n"
    )
    edited = StateDocument.parse(text).with_fields({"focus": "new", "next": "ship"})
    assert edited.text() == (
        "# State\n"
        "preamble stays\n"
        "## Current\n"
        "focus: new\n"
        "a hand-written remark\n"
        "phase: planning\n"
        "next: ship\n"
        "\n"
        "## Custom\n"
        "kept: verbatim\n"
    )


def test_sections_are_added_in_canonical_order_when_missing() -> None:
    doc = StateDocument.parse("## Log\n- [2026-01-01 10:00] old\n")
    doc = doc.with_fields({"focus": "x"}).with_decision("Use WAL [2026-01-02]")
    assert doc.text() == (
        "## Current\n"
        "focus: x\n"
        "\n"
        "## Decisions\n"
        "- Use WAL [2026-01-02]\n"
        "\n"
        "## Log\n"
        "- [2026-01-01 10:00] old\n"
    )


def test_empty_text_gets_the_template_shape() -> None:
    doc = StateDocument.parse("").with_decision("A [2026-01-01]")
    assert doc.text() == "## Decisions\n- A [2026-01-01]\n"
    assert StateDocument.empty().text() == TEMPLATE


def test_log_cap_trims_oldest_entries_only() -> None:
    text = "## Log\nprose before\n- [2026-01-01 10:00] one\n- [2026-01-01 11:00] two\nprose after\n"
    doc = StateDocument.parse(text).with_log("[2026-01-01 12:00] three", cap=2)
    assert doc.text() == (
        "## Log\nprose before\n- [2026-01-01 11:00] two\nprose after\n- [2026-01-01 12:00] three\n"
    )


def test_crlf_files_stay_crlf() -> None:
    text = "## Current\r\nfocus: a\r\n\r\n## Decisions\r\n- x [2026-01-01]\r\n"
    doc = StateDocument.parse(text).with_fields({"focus": "b"}).with_decision("y [2026-01-02]")
    assert doc.text() == (
        "## Current\r\nfocus: b\r\n\r\n## Decisions\r\n- x [2026-01-01]\r\n- y [2026-01-02]\r\n"
    )


def test_decision_and_log_line_parsing() -> None:
    assert parse_decision("prose without bullet") is None
    assert parse_decision("* [rejected]: Mongo -- no joins [2026-02-03]") == Decision(
        "Mongo", True, "no joins", "2026-02-03"
    )
    assert parse_log_entry("- plain milestone") == LogEntry("plain milestone")


@given(st.text())
def test_parse_round_trips_any_text(text: str) -> None:
    assert StateDocument.parse(text).text() == text


lines = st.lists(
    st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=30), max_size=12
)


@given(lines)
def test_edits_never_drop_a_line_they_did_not_understand(body: list[str]) -> None:
    text = "\n".join(["## Current", *body, "## Decisions", *body, "## Log", *body])
    before = StateDocument.parse(text)
    after = (
        before.with_fields({"focus": "f"}).with_decision("d [2026-01-01]").with_log("l", cap=10**6)
    )
    remaining = list(after.lines)
    for line in before.lines:
        if line.strip() and _understood(line):
            continue
        assert line in remaining
        remaining.remove(line)


def _understood(line: str) -> bool:
    parsed = parse_field(line.rstrip("\r"))
    return parsed is not None and parsed[0] == "focus"
