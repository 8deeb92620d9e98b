"""A host's compaction continuation message: its summary is inspected, its boilerplate is noise.

Found end to end with the real Claude Code CLI: after a second compaction the
continuation message (flagged ``isCompactSummary``, and the same text written
again without the flag) was read as the owner speaking, and three of its
boilerplate sentences became critical constraints.
"""

from __future__ import annotations

import io
import json

from contextward.inspect import (
    Candidate,
    InspectionResult,
    Message,
    build_guidance,
    inspect_messages,
    inspect_stream,
    open_transcript,
)
from contextward.inspect.continuation import is_continuation, summary_units

TRANSCRIPT_PATH = (
    "/srv/dev/.claude/projects/-srv-dev-shop/0b6f2c1e-5d4a-4b7e-9c21-8f3e1a2b4c5d.jsonl"
)
PREAMBLE = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation."
)
DETAILS = (
    "If you need specific details from before compaction (like exact code snippets, error "
    f"messages, or content you generated), read the full transcript at: {TRANSCRIPT_PATH}"
)
CONTINUE = (
    "Please continue the conversation from where we left it off without asking the user any "
    "further questions. Continue with the last task that you were asked to work on."
)
SUMMARY_BODY = """Analysis:
Let me chronologically analyze the conversation. The user asked for rate limiting in the gateway.

Summary:
1. Primary Request and Intent:
   The user asked to add rate limiting to the API gateway in services/gateway. Never change the public API of the gateway.

2. Key Technical Concepts:
   - Token bucket per API key
   - Redis for shared counters

3. Files and Code Sections:
   - services/gateway/limit.py
     ```python
     class TokenBucket:
         def take(self, key: str) -> bool: ...
     ```

4. Errors and fixes:
   - ImportError for redis.asyncio: fixed by pinning redis>=5.0.

5. Problem Solving:
   An in-process limiter was dropped because the gateway runs 6 replicas, so counts were per pod.

6. All user messages:
   - "Add rate limiting to the gateway. Never change the public API."
   - "Use Redis, not memcached."

7. Pending Tasks:
   - Wire the limiter into the auth routes.

8. Current Work:
   Writing tests for the token bucket in tests/gateway/test_limit.py.

9. Optional Next Step:
   Run "pytest tests/gateway -q"."""
SUMMARY = f"{PREAMBLE}\n\n{SUMMARY_BODY}\n\n{DETAILS}\n{CONTINUE}"

_ENVELOPE = {
    "isSidechain": False,
    "userType": "external",
    "cwd": "/srv/dev/shop",
    "sessionId": "0b6f2c1e-5d4a-4b7e-9c21-8f3e1a2b4c5d",
    "version": "2.1.240",
    "gitBranch": "feature/rate-limit",
}


def _line(**fields: object) -> str:
    return json.dumps({**_ENVELOPE, **fields})


def _boundary(uuid: str, parent: str, trigger: str) -> str:
    return _line(
        type="system",
        subtype="compact_boundary",
        uuid=uuid,
        parentUuid=None,
        logicalParentUuid=parent,
        content="Conversation compacted",
        compactMetadata={"trigger": trigger, "preTokens": 181_204, "postTokens": 9_310},
        level="info",
    )


def transcript() -> bytes:
    """A session compacted twice; the second continuation message carries no flag."""
    lines = [
        _line(
            type="user",
            uuid="u1",
            parentUuid=None,
            message={
                "role": "user",
                "content": "Add rate limiting to the gateway. Never change the public API.",
            },
        ),
        _line(
            type="assistant",
            uuid="a1",
            parentUuid="u1",
            message={
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Looking at the gateway."},
                    {
                        "type": "tool_use",
                        "id": "toolu_01",
                        "name": "Bash",
                        "input": {"command": "ls services/gateway"},
                    },
                ],
            },
        ),
        _line(
            type="user",
            uuid="r1",
            parentUuid="a1",
            message={
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01", "content": "limit.py"}
                ],
            },
        ),
        _boundary("b1", "r1", "auto"),
        _line(
            type="user",
            uuid="s1",
            parentUuid="b1",
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
            message={"role": "user", "content": SUMMARY},
        ),
        _line(
            type="user",
            uuid="u2",
            parentUuid="s1",
            message={"role": "user", "content": "Use Redis, not memcached."},
        ),
        _boundary("b2", "u2", "manual"),
        _line(
            type="user",
            uuid="s2",
            parentUuid="b2",
            message={"role": "user", "content": [{"type": "text", "text": SUMMARY}]},
        ),
    ]
    return ("\n".join(lines) + "\n").encode()


def _by_content(result: InspectionResult, text: str) -> Candidate:
    return next(c for c in result.candidates if c.content == text)


def test_the_reader_reads_both_continuation_messages_as_summaries() -> None:
    read = open_transcript(io.BytesIO(transcript()))
    messages = list(read.messages)
    summaries = [m for m in messages if m.summary]
    assert [(m.id, m.role) for m in summaries] == [("s1", "system"), ("s2", "system")]
    assert all(m.text == SUMMARY for m in summaries)
    assert read.skips.counts["compact_boundary"] == 2
    assert not any(m.role == "user" and is_continuation(m.text) for m in messages)


def test_boilerplate_is_transient_noise_never_an_owner_constraint() -> None:
    result = inspect_stream(io.BytesIO(transcript()))
    for text in (
        "This session is being continued from a previous conversation that ran out of context.",
        "The summary below covers the earlier portion of the conversation.",
        DETAILS,
        "Please continue the conversation from where we left it off without asking the user "
        "any further questions.",
        "Continue with the last task that you were asked to work on.",
        "Analysis:",
        "Let me chronologically analyze the conversation.",
    ):
        c = _by_content(result, text)
        assert (c.kind, c.action, c.critical) == ("transient", "drop", False), text
        assert c.sources == ("s1", "s2")  # the two copies merged, both sources listed
    must = build_guidance(result).must_preserve
    assert not any("compaction" in c.content or "continue" in c.content.lower() for c in must)
    assert not any(TRANSCRIPT_PATH in c.content for c in must)


def test_the_summary_content_is_still_inspected() -> None:
    result = inspect_stream(io.BytesIO(transcript()))
    expected = {
        "Never change the public API of the gateway.": "constraint",
        "An in-process limiter was dropped because the gateway runs 6 replicas, "
        "so counts were per pod.": "rejected",
        "Wire the limiter into the auth routes.": "todo",
        "Writing tests for the token bucket in tests/gateway/test_limit.py.": "state",
        'Run "pytest tests/gateway -q".': "todo",
    }
    for text, kind in expected.items():
        c = _by_content(result, text)
        assert (c.kind, c.action) == (kind, "keep"), text
        assert "s1" in c.sources
    # The summary quoting the owner's message is the owner's message: merged, not superseded,
    # and kept without the summary's quotation marks.
    redis = _by_content(result, "Use Redis, not memcached.")
    assert redis.kind == "decision" and redis.action == "keep"
    assert set(redis.sources) == {"s1", "u2", "s2"}
    assert redis.superseded_by is None
    # Section titles of the summary are not memories.
    assert _by_content(result, "Pending Tasks:").action == "drop"


def test_an_unflagged_continuation_in_generic_messages_is_a_summary_too() -> None:
    result = inspect_messages(
        [
            Message("u1", "user", SUMMARY),
            Message("u2", "user", "Never push to main."),
        ]
    )
    kept = {c.content: c for c in result.candidates if c.action == "keep"}
    assert "Never push to main." in kept
    assert "Never change the public API of the gateway." in kept
    assert not any("continue" in text.lower() for text in kept)
    assert not any(text.startswith(("This session", "If you need")) for text in kept)


def test_a_continuation_sent_as_a_system_message_is_a_summary_too() -> None:
    # Generic messages from a host that gives its summary the system role: the same
    # message, read the same way, so the quoted owner's word is the owner's.
    as_user = inspect_messages([Message("s1", "user", SUMMARY)])
    as_system = inspect_messages([Message("s1", "system", SUMMARY)])
    assert [(c.content, c.kind, c.action) for c in as_system.candidates] == [
        (c.content, c.kind, c.action) for c in as_user.candidates
    ]
    assert "Never change the public API of the gateway." in {
        c.content for c in as_system.candidates if c.action == "keep"
    }


def test_a_pi_summary_s_empty_sections_and_branch_preamble_are_noise() -> None:
    # pi writes "- (none)" under a section with nothing in it, and opens a branch summary
    # with a sentence of its own: neither is anything to keep (a "(none)" kept as a rule
    # would be checked for in every summary after).
    summary = (
        "The user explored a different conversation branch before returning here.\n"
        "Summary of that exploration:\n\n## Goal\nMove the invoice PDFs to object storage.\n\n"
        "## Constraints & Preferences\n- (none)\n\n## Key Decisions\n- None.\n\n"
        "## Critical Context\n- 无\n\n## Next Steps\n1. Copy the PDFs in batches of 500"
    )
    lines = [
        {"type": "session", "version": 3, "id": "s1", "cwd": "/p"},
        {"type": "branch_summary", "id": "b1", "parentId": None, "summary": summary},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    result = inspect_stream(io.BytesIO(data))
    kept = {c.content: c.kind for c in result.candidates if c.action != "drop"}
    assert kept == {
        "Move the invoice PDFs to object storage.": "goal",
        "Copy the PDFs in batches of 500": "todo",
    }


def test_summary_units_mark_boilerplate_and_keep_spans_verbatim() -> None:
    pieces = summary_units(SUMMARY)
    boiler = [u.text for u in pieces if u.boilerplate]
    assert boiler[:2] == [
        "This session is being continued from a previous conversation that ran out of context.",
        "The summary below covers the earlier portion of the conversation.",
    ]
    assert DETAILS in boiler
    assert boiler[-1] == "Continue with the last task that you were asked to work on."
    assert all(u.text in SUMMARY for u in pieces)
    # Without boilerplate the split is the ordinary one.
    assert [u.boilerplate for u in summary_units("Never push to main.")] == [False]


def test_is_continuation_looks_at_the_opening_words_only() -> None:
    assert is_continuation("  " + PREAMBLE)
    assert is_continuation("this session is being continued from a previous conversation …")
    assert not is_continuation("Note: " + PREAMBLE)
    assert not is_continuation("Never push to main.")


def test_items_under_a_summary_section_take_its_kind() -> None:
    pi_summary = (
        "## Goal\nAdd OAuth login to the billing service.\n\n"
        "## Progress\n### Done\n- [x] Callback route\n### In Progress\n- [ ] Refresh tokens\n\n"
        "## Next Steps\n1. Wire the logout endpoint"
    )
    result = inspect_messages([Message("c1", "system", pi_summary, summary=True)])
    got = {c.content: (c.kind, c.action) for c in result.candidates}
    assert got == {
        "## Goal": ("transient", "drop"),
        "Add OAuth login to the billing service.": ("goal", "keep"),
        "## Progress": ("transient", "drop"),
        "### Done": ("transient", "drop"),
        "[x] Callback route": ("state", "keep"),
        "### In Progress": ("transient", "drop"),
        "[ ] Refresh tokens": ("todo", "keep"),
        "## Next Steps": ("transient", "drop"),
        "Wire the logout endpoint": ("todo", "keep"),
    }


def test_a_quoted_owner_message_is_split_and_a_rule_lifted_later_is_retired_in_it() -> None:
    """Claude Code's "All user messages" quotes a message whole: kept as one item, the
    quote held "Never push to main." after the owner lifted it, and the restore restated it."""
    summary = (
        PREAMBLE + "\n\nSummary:\n1. Primary Request and Intent:\n   Build the release tooling.\n"
        "6. All user messages:\n   - We're building the release tooling. Never push to main.\n"
    )
    lift = "pushing to main is fine now, the repo is a sandbox."
    first = Message("u1", "user", "We're building the release tooling. Never push to main.")
    for before in ([first], []):  # the whole transcript, and what follows its compaction
        result = inspect_messages(
            [*before, Message("s1", "user", summary, summary=True), Message("u2", "user", lift)]
        )
        quoted = [c for c in result.candidates if "s1" in c.sources]
        assert "We're building the release tooling. Never push to main." not in {
            c.content for c in quoted
        }
        rule = next(c for c in quoted if c.content == "Never push to main.")
        assert (rule.action, rule.superseded_by) == ("drop", _by_content(result, lift).id)


def test_a_numbered_section_title_is_kept_apart_from_its_text_on_the_same_line() -> None:
    """A walkthrough's next snapshot held "[goal] Primary Request and Intent: Goal: …":
    the title's words then stood in the item a later summary had to repeat."""
    summary = (
        PREAMBLE + "\n\nSummary:\n1. Primary Request and Intent: Goal: migrate the invoice "
        "service to Python 3.12.\n3. Pending Tasks: write the migration notes.\n"
    )
    result = inspect_messages([Message("s1", "user", summary, summary=True)])
    kept = {c.content: c.kind for c in result.candidates if c.action == "keep"}
    assert kept["Goal: migrate the invoice service to Python 3.12."] == "goal"
    assert kept["write the migration notes."] == "todo"
    assert not any(text.startswith(("Primary Request", "Pending Tasks")) for text in kept)


def test_a_quoted_owner_message_of_two_sentences_keeps_no_stray_quotation_mark() -> None:
    summary = (
        "6. All user messages:\n"
        '   - "Never push directly to main; always open a PR."\n'
        '   - "每页改成 200 条。后面再说。"\n'
    )
    result = inspect_messages([Message("c1", "user", summary, summary=True)])
    contents = {c.content for c in result.candidates}
    assert "Never push directly to main; always open a PR." in contents
    assert {"每页改成 200 条。", "后面再说。"} <= contents
    assert not any(c.count('"') % 2 for c in contents)


def test_a_correction_after_a_summary_with_a_next_step_retires_the_quoted_choice() -> None:
    """The summary's own "Optional Next Step" keeps the summary's turn, before the turns of
    the owner messages it quotes: read first going back, it ended a correction's reach
    short of the quoted choice, which stayed in must-preserve beside the correction."""
    summary = (
        PREAMBLE + "\n\nSummary:\n1. All user messages:\n"
        '   - "Add a JSON endpoint for the audit log."\n'
        '   - "Never expose the actor IP address."\n'
        '   - "Page the results with offsets."\n'
        "2. Optional Next Step:\n   Add the pagination tests.\n"
    )
    correction = "Actually page the results with cursors, offsets skip rows under writes."
    result = inspect_messages(
        [
            Message("u1", "user", "Add a JSON endpoint for the audit log."),
            Message("s1", "user", summary, summary=True),
            Message("a1", "assistant", "Writing the pagination tests now."),
            Message("u2", "user", correction),
        ]
    )
    choice = _by_content(result, "Page the results with offsets.")
    assert choice.superseded_by == _by_content(result, correction).id
    assert _by_content(result, "Never expose the actor IP address.").superseded_by is None
