"""The bounded texts injected into a host: the session brief (and the state block).

Public surface::

    from contextward.brief import render_brief
    brief = render_brief(store)            # Brief(text, digest); same text -> same digest
    if brief.changed_since(last_digest):   # inject only when it changed
        inject(brief.text)

The state block lives in ``contextward.brief.state_block`` (imported directly:
it pulls in the state package, which the brief does not need).

Must never: import ``hosts`` or ``cli``, or write to the store.
"""

from __future__ import annotations

from .session_brief import (
    MAX_CHARS,
    Brief,
    BriefCaps,
    BriefSection,
    brief_if_changed,
    render_brief,
    render_file_brief,
)

__all__ = [
    "MAX_CHARS",
    "Brief",
    "BriefCaps",
    "BriefSection",
    "brief_if_changed",
    "render_brief",
    "render_file_brief",
]
