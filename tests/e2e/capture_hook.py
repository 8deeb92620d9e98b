"""A tiny Claude Code hook for proving the harness: it records real payloads.

Owns: appending each event's stdin payload (with the hook's exit-relevant env) as one
JSON line to the file named by argv[1], and printing fixed markers that the tests then
look for in the fake API's request log: SessionStart and UserPromptSubmit answer with
``additionalContext``, PreCompact prints plain text (which feeds the summariser), and
PreToolUse denies or asks when the Bash command contains HARNESS_DENY or HARNESS_ASK.
Must never: import anything beyond the stdlib, or exit non-zero.
"""

from __future__ import annotations

import json
import os
import sys

SESSION_MARKER = "HARNESS_SESSIONSTART_MARKER"
PROMPT_MARKER = "HARNESS_PROMPT_MARKER"
PRECOMPACT_MARKER = "HARNESS_PRECOMPACT_MARKER: keep the word banana in the summary"


def main() -> int:
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw)
    except json.JSONDecodeError:
        payload = {"_unparsed": raw}
    event = str(payload.get("hook_event_name", ""))
    env = {k: v for k, v in os.environ.items() if k.startswith("CLAUDE")}
    with open(sys.argv[1], "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"event": event, "payload": payload, "env": env}) + "\n")
    if event in ("SessionStart", "UserPromptSubmit"):
        marker = SESSION_MARKER if event == "SessionStart" else PROMPT_MARKER
        context = f"{marker} (source={payload.get('source', '-')})"
        out = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
        print(json.dumps(out))
    elif event == "PreCompact":
        print(PRECOMPACT_MARKER)
    elif event == "PreToolUse":
        command = str((payload.get("tool_input") or {}).get("command", ""))
        for word, decision in (("HARNESS_DENY", "deny"), ("HARNESS_ASK", "ask")):
            if word in command:
                out = {
                    "hookSpecificOutput": {
                        "hookEventName": event,
                        "permissionDecision": decision,
                        "permissionDecisionReason": f"harness {decision}",
                    }
                }
                print(json.dumps(out))
                break
    return 0


if __name__ == "__main__":
    sys.exit(main())
