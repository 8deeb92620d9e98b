"""Can surface features tell the assistant's kept facts that are memories from noise?

``python -m bench.inspect_features [SPLIT [PREFIX]]`` (default: dev sessions of the later
authors, ``w``): for every candidate the rules keep as an assistant ``fact`` and the
annotators agree on, the share of memories among those with each feature value. A
feature that separated them would show shares near 0 or 1; the README of
bench/data/inspect and docs/inspect.md cite what this prints. Tuning aid only: never
run it on a held-out split to change a rule.
"""

from __future__ import annotations

import io
import re
import sys
from collections import Counter, defaultdict

from bench.inspect_eval import overlaps, render, sessions
from contextward.inspect import inspect_stream
from contextward.inspect.lexicon import IDENTIFIER
from contextward.inspect.supersession import _subject_words

_DIGIT = re.compile(r"\d")


def features(split: str, prefix: str) -> dict[tuple[str, str], Counter[str]]:
    stats: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for session in sessions(split):
        if not session.name.startswith(prefix):
            continue
        result = inspect_stream(io.BytesIO(render(session)))
        roles = {str(m["id"]): str(m["role"]) for m in session.messages}
        order = list(roles)
        kept = [c for c in result.candidates if c.kind not in ("transient", "tool_output")]
        for index, c in enumerate(kept):
            if c.action != "keep" or c.kind != "fact" or roles.get(c.sources[0]) != "assistant":
                continue
            labels = [label for label in session.labels if overlaps(label, c)]
            if any(label.disputed for label in labels):
                continue
            truth = "memory" if labels else "noise"
            at = order.index(c.sources[0])
            after = next((roles[o] for o in order[at + 1 :] if roles[o] != "tool"), "end")
            siblings = [d for d in kept if d.sources == c.sources]
            words = _subject_words(c.content)
            later = max(
                (
                    len(words & _subject_words(d.content)) / len(words)
                    for d in kept[index + 1 :]
                    if d.sources != c.sources
                ),
                default=0.0,
            )
            values = {
                "first in its message": str(siblings[0] is c),
                "names an identifier": str(bool(IDENTIFIER.search(c.content))),
                "has a number": str(bool(_DIGIT.search(c.content))),
                "longer than 90 characters": str(len(c.content) > 90),
                "next speaker": after,
                "right after a tool run": str(at > 0 and roles[order[at - 1]] == "tool"),
                "restated later (>= 30% of its words)": str(bool(words) and later >= 0.3),
            }
            for name, value in values.items():
                stats[(name, value)][truth] += 1
    return stats


def report(split: str = "dev", prefix: str = "w") -> str:
    lines = [f"assistant facts kept by the rules ({split}, sessions {prefix}*): share of memories"]
    for (name, value), counts in sorted(features(split, prefix).items()):
        total = counts["memory"] + counts["noise"]
        lines.append(
            f"  {name:<40} {value:<10} {counts['memory'] / total:5.0%} of {total:4d} are memories"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(*sys.argv[1:3]))
