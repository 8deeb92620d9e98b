"""``contextward report [--html FILE]``: the project's record as one HTML page, or a digest."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..report import gather, render_page, render_summary
from ..store import Store, project_root
from ._io import BadInput, say
from ._store import config, read_store


@click.command("report")
@click.option(
    "--html",
    "html_path",
    metavar="FILE",
    help="Write the self-contained HTML page to FILE ('-' for standard output).",
)
def command(html_path: str | None) -> None:
    """The project at a glance: state, decisions, evidence, loops, last compaction.

    Without --html, prints a short text digest. The page has no script and
    loads nothing from the network; secrets are masked. Nothing is written to
    the store (an empty report when there is none yet).
    """
    root = project_root()
    with read_store(config(root)) as found:
        if found is None:
            with Store.memory() as empty:
                report = gather(empty, root)
        else:
            report = gather(found, root)
    if html_path is None:
        say(render_summary(report))
        say("page: contextward report --html report.html (self-contained, open it anywhere)")
        return
    page = render_page(report)
    if html_path == "-":
        sys.stdout.write(page)
        return
    try:
        Path(html_path).write_text(page, encoding="utf-8")
    except IsADirectoryError:
        raise BadInput(f"--html {html_path}: is a directory") from None
    except OSError as exc:
        raise BadInput(
            f"--html {html_path}: cannot be written ({exc.strerror or 'I/O error'})"
        ) from None
    say(f"written: {html_path}")
