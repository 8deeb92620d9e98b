"""Peer tools run on contextward's own labelled sets, side by side (``make eval``).

Each module adapts one tool from the package index that runs offline and
reports the same metrics as our evaluation on the same data, labelled with
the installed version. A peer that is not installed is skipped with a
printed reason (``pip install '.[eval]'`` installs both). Adapters call the
peers' public Python API exactly as their documentation shows; they never
patch or tune them.
"""

from __future__ import annotations

from importlib import metadata


def installed_version(distribution: str) -> str | None:
    """The installed version of a distribution, or None when it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def skipped(distribution: str, what: str) -> str:
    """The line printed instead of a peer's results when it is not installed."""
    return (
        f"# {distribution}: skipped, not installed ({what}); "
        f"install it with: pip install '.[eval]'  (or: pip install {distribution})"
    )


def pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


__all__ = ["installed_version", "pct", "skipped"]
