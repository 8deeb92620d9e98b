"""Decoding JSON lines with counted skips (shared by the JSONL readers).

Never raises on a bad line: every skipped line is counted by reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..message import Skips
from .base import BOM, ByteSource


def objects(source: ByteSource, skips: Skips) -> Iterator[dict[str, Any]]:
    """Each line's JSON object; blank lines are ignored, others skipped and counted."""
    for number, raw, torn in source.lines():
        if raw is None:
            skips.add("line_too_large")
            continue
        # Detection skips a byte order mark; so does reading.
        line = raw.removeprefix(BOM) if number == 1 else raw
        if not line.strip():
            continue
        repaired = False
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            # A stray byte (a Latin-1 paste) must not cost the owner's message: read the
            # line with U+FFFD in its place; a line that is not JSON even so is binary.
            text, repaired = line.decode("utf-8", "replace"), True
        try:
            obj = json.loads(text)
        except RecursionError:  # as a JSON document's element is counted
            skips.add("nested_too_deeply")
            continue
        except ValueError:  # malformed, or an integer too long to convert
            skips.add("not_utf8" if repaired else "torn_last_line" if torn else "malformed_json")
            continue
        if repaired:
            skips.add("not_utf8_replaced")
        if isinstance(obj, dict):
            yield obj
        else:
            skips.add("not_an_object")
