"""The project report: state, decisions, evidence, loop streaks and the last compaction's check.

``render_report(store, root)`` returns one self-contained HTML page (inline
CSS and SVG, no script, no network); ``gather`` reads the same values for
other renderers, ``render_summary`` prints them as a few lines of text.

Must never: write to the store, or show unmasked or unescaped text.
"""

from .chart import Bar, bar_chart
from .model import (
    CheckedItem,
    CompactionCheck,
    DecisionEntry,
    EvidenceEntry,
    ProjectReport,
    gather,
)
from .page import render_page, render_report
from .summary import render_summary

__all__ = [
    "Bar",
    "CheckedItem",
    "CompactionCheck",
    "DecisionEntry",
    "EvidenceEntry",
    "ProjectReport",
    "bar_chart",
    "gather",
    "render_page",
    "render_report",
    "render_summary",
]
