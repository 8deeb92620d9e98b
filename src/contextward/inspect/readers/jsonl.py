"""Decoding JSON lines with counted skips (shared by the JSONL readers).

Never raises on a bad line: every skipped line is counted by reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..message import Skips
from .base import ByteSource


def objects(source: ByteSource, skips: Skips) -> Iterator[dict[str, Any]]:
    """Each line's JSON object; blank lines are ignored, others skipped and counted."""
    for _number, line, torn in source.lines():
        if line is None:
            skips.add("line_too_large")
            continue
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            skips.add("not_utf8")
            continue
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            skips.add("torn_last_line" if torn else "malformed_json")
            continue
        if isinstance(obj, dict):
            yield obj
        else:
            skips.add("not_an_object")
