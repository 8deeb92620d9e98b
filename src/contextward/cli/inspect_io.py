"""Shared plumbing of the inspection commands: open a transcript, map errors, render tables.

Owns turning a FILE argument into an ``InspectionResult`` with one-line errors
(exit 2) that never echo transcript content. No policy lives here.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from typing import BinaryIO

import click

from ..inspect import (
    FORMATS,
    Candidate,
    CandidateSink,
    InspectError,
    InspectionResult,
    PolicyConfig,
    ReviewDecision,
    inspect_into,
    inspect_stream,
    parse_decisions,
)
from ..inspect.message import listed, unreadable
from ..inspect.provider import (
    MAX_ANSWER_BYTES,
    REFUSED_WHY,
    Answered,
    ProviderAnswerError,
    asked,
)
from ..inspect.readers import open_transcript
from ..printable import counted, json_text, one_line
from ..redact import mask
from ..store.paths import project_root
from ..thresholds import policy_for
from ._io import BadInput, display_name, one_stdin, open_input, read_json, read_text

FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Transcript format (default: detected from its shape).",
)
ANSWER_OPTION = click.option(
    "--answer",
    "answer",
    metavar="FILE",
    default=None,
    help="Provider mode: a model's answer to `contextward inspect --prompt` for this transcript.",
)
_PREVIEW = 72


def load(
    path: str,
    fmt: str | None,
    answer: str | None = None,
    *,
    notice: bool = True,
    provider_notes: bool = True,
) -> InspectionResult:
    """Inspect the transcript at ``path`` (``-`` for stdin), in provider mode with ``answer``.

    A transcript none of whose messages could be read is bad input; one that lost some
    is said on stderr (``notice``), since the rest was inspected without them, and so is
    what became of the answer (``provider_notes``). A command that may still refuse its
    other input says them after it (``notices``): a refusal is its one line.
    """
    provider = Answered(answer_text(answer, path)) if answer is not None else None
    result = _inspected(
        path,
        fmt,
        lambda stream, config: inspect_stream(stream, fmt, config=config, provider=provider),
        notice=notice,
    )
    if provider is not None and provider_notes:
        provider_notice(result)
    return result


def load_into(path: str, fmt: str | None, sink: CandidateSink) -> InspectionResult:
    """``load`` in rules mode, each candidate put in ``sink`` as soon as nothing can
    change it (``inspect_into``): the result holds none. Says nothing of what was
    skipped (``notice=False``)."""
    return _inspected(
        path,
        fmt,
        lambda stream, config: inspect_into(stream, sink, fmt, config=config),
        notice=False,
    )


def _inspected(
    path: str,
    fmt: str | None,
    inspect: Callable[[BinaryIO, PolicyConfig], InspectionResult],
    *,
    notice: bool,
) -> InspectionResult:
    config = policy_for(project_root())  # the project's thresholds, if it sets any
    with open_input(path, what="transcript") as stream:
        try:
            result = inspect(stream, config)
        except InspectError as exc:
            raise BadInput(f"transcript {display_name(path)}: {exc}") from None
    read_all(path, result.messages, result.skipped, notice=notice, fmt=fmt)
    return result


def notices(path: str, result: InspectionResult, fmt: str | None, answer: str | None) -> None:
    """What ``load(…, notice=False, provider_notes=False)`` left unsaid, said now."""
    read_all(path, result.messages, result.skipped, notice=True, fmt=fmt)
    if answer is not None:
        provider_notice(result)


def provider_notice(result: InspectionResult) -> None:
    """Say on stderr why a model's answer was not used, how much of it was refused, and
    how many of the rules' unsure finds it passed by (dropped as noise)."""
    if result.fallback_reason is not None:
        click.echo(f"contextward: answer not used ({result.fallback_reason}): rules mode", err=True)
        return
    if result.provider_rejected:
        click.echo(
            f"contextward: {result.provider_rejected} proposal(s) of the answer rejected "
            "(not found verbatim in the transcript, of no known kind, tool output "
            "proposed as a rule, or a fragment of a sentence)",
            err=True,
        )
    if result.provider_repeated:
        click.echo(
            f"contextward: {counted(result.provider_repeated, 'proposal')} of the answer "
            "left out as word-for-word repeats of an earlier one",
            err=True,
        )
    if result.provider_passed:
        click.echo(
            f"contextward: {counted(result.provider_passed, 'unsure find')} of the rules "
            "that the answer passed by dropped as noise (of the owner's words, only plain remarks)",
            err=True,
        )
    if result.provider_refused:
        click.echo(f"contextward: {_refused(result.provider_refused)}", err=True)


def _refused(n: int) -> str:
    return f"{counted(n, 'proposal')} of the answer {REFUSED_WHY}"


def read_all(
    path: str,
    messages: int,
    skipped: Mapping[str, int],
    *,
    notice: bool,
    fmt: str | None = None,
) -> None:
    """Refuse a transcript of which no message could be read; say what a damaged one lost."""
    lost = unreadable(skipped)
    parts = listed(lost)
    if not messages:
        if fmt is not None and skipped:
            # Read as the format it was told, not the one it is: say so, with what was seen.
            why = (
                f"no message could be read as {fmt} (skipped: {listed(skipped)}); "
                "is it another format? Without --format it is detected"
            )
        elif parts:
            why = f"no message could be read (skipped: {parts})"
        else:
            why = "it has no messages"
        raise BadInput(f"transcript {display_name(path)}: {why}")
    if lost and notice:
        click.echo(
            # A file's name may hold a newline or a secret: masked and on one line, as errors are.
            f"contextward: transcript {one_line(mask(display_name(path)))}: "
            f"{counted(sum(lost.values()), 'record')} "
            f"could not be read ({parts}); inspected {counted(messages, 'message')} without them",
            err=True,
        )


def answer_text(answer: str, transcript: str) -> str:
    one_stdin(transcript=transcript, answer=answer)
    return read_text(answer, what="answer", limit=MAX_ANSWER_BYTES)


def provider_prompt(path: str, fmt: str | None) -> str:
    """What a host's model is asked about the transcript at ``path`` (provider mode)."""
    with open_input(path, what="transcript") as stream:
        try:
            transcript = open_transcript(stream, fmt)
            messages = list(transcript.messages)
        except (InspectError, ProviderAnswerError) as exc:
            raise BadInput(f"transcript {display_name(path)}: {exc}") from None
    # A transcript of no readable message is refused as inspect refuses it, and what a
    # damaged one lost is said, as its answer's inspection will say it.
    read_all(path, len(messages), transcript.skips.counts, notice=True, fmt=fmt)
    return asked(messages)


def load_decisions(path: str | None) -> tuple[ReviewDecision, ...]:
    if path is None:
        return ()
    try:
        return parse_decisions(read_json(path, what="decisions"))
    except InspectError as exc:
        raise BadInput(f"decisions {path}: {exc}") from None


def skipped_line(result: InspectionResult) -> str | None:
    if not result.skipped:
        return None
    return f"skipped: {listed(result.skipped)}"


HEADER = ("ACTION", "KIND", "CRIT", "ID", "CONTENT")


def candidates_table(result: InspectionResult) -> str:
    rows = [HEADER, *(row(c) for c in result.candidates)]
    widths = [max(len(cells[col]) for cells in rows) for col in range(4)]
    lines = [table_line(cells, widths) for cells in rows]
    superseded = sum(1 for c in result.candidates if c.superseded_by)
    lines += summary_lines(result, len(result.candidates), result.counts(), superseded)
    return "\n".join(lines)


def row(c: Candidate) -> tuple[str, str, str, str, str]:
    """A candidate's cells in the table."""
    return (c.action, c.kind, "yes" if c.critical else "", c.id, preview(c.content))


def table_line(cells: tuple[str, ...], widths: list[int]) -> str:
    """A row of the table, its first four cells padded to ``widths``."""
    line = "  ".join(cell.ljust(w) for cell, w in zip(cells[:4], widths, strict=True))
    return (line + "  " + cells[4]).rstrip()


def summary_lines(
    result: InspectionResult, candidates: int, counts: Mapping[str, int], superseded: int
) -> list[str]:
    """What the table says under its rows: how many candidates of how many messages,
    what the policy does with them, and what was skipped."""
    lines = [
        "",
        f"{counted(candidates, 'candidate')} from "
        f"{counted(result.messages, 'message')} "
        f"({result.format or 'messages'}, {result.mode} mode): "
        f"keep {counts['keep']} · drop {counts['drop']} · review {counts['review']}"
        + (f" · superseded {superseded}" if superseded else ""),
    ]
    skipped = skipped_line(result)
    if skipped:
        lines.append(skipped)
    return [line.rstrip() for line in lines]


def preview(text: str) -> str:
    """``text`` on one line, at most ``_PREVIEW`` columns wide: a wide (CJK) character
    takes two, so Chinese rows are as wide as English ones."""
    flat = one_line(mask(text))
    if len(flat) <= _PREVIEW // 2 or width(flat) <= _PREVIEW:
        return flat
    out, used = [], 1  # room for the ellipsis
    for ch in flat:
        used += _columns(ch)
        if used > _PREVIEW:
            break
        out.append(ch)
    return "".join(out) + "…"


def width(text: str) -> int:
    """The columns ``text`` takes in a terminal (East Asian wide and full-width take two)."""
    return sum(_columns(ch) for ch in text)


def _columns(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def dumps(data: object) -> str:
    return json_text(data)
