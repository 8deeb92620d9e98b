"""Small inline SVG charts for the report: horizontal bars with a label and a value each.

Owns: turning (label, value, colour) rows into one self-contained ``<svg>``
element sized by its rows, with a text alternative for screen readers.

Must never: load anything (fonts, images, scripts) or emit unescaped text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

ROW_HEIGHT = 22
LABEL_WIDTH = 150
BAR_WIDTH = 260
VALUE_WIDTH = 70


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: float
    colour: str
    note: str = ""  # shown after the value (e.g. "/ 3")


def bar_chart(bars: Sequence[Bar], *, title: str, maximum: float | None = None) -> str:
    """One horizontal bar per row; ``maximum`` fixes the scale (default: the largest value)."""
    top = maximum if maximum is not None else max((b.value for b in bars), default=0)
    width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH
    height = ROW_HEIGHT * max(1, len(bars)) + 4
    parts = [
        f'<svg class="chart" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    for row, bar in enumerate(bars):
        y = row * ROW_HEIGHT + 2
        length = 0.0 if top <= 0 else BAR_WIDTH * max(0.0, min(bar.value, top)) / top
        if bar.value > 0:
            length = max(length, 2.0)  # a non-zero value is always visible
        value = f"{bar.value:g}{bar.note}"
        parts.append(
            f'<text x="{LABEL_WIDTH - 8}" y="{y + 15}" text-anchor="end">{escape(bar.label)}</text>'
            f'<rect x="{LABEL_WIDTH}" y="{y + 3}" width="{BAR_WIDTH}" height="{ROW_HEIGHT - 8}" '
            f'fill="#eef0f3" rx="3"/>'
            f'<rect x="{LABEL_WIDTH}" y="{y + 3}" width="{length:.1f}" '
            f'height="{ROW_HEIGHT - 8}" fill="{escape(bar.colour)}" rx="3"/>'
            f'<text x="{LABEL_WIDTH + BAR_WIDTH + 8}" y="{y + 15}">{escape(value)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


__all__ = ["Bar", "bar_chart"]
