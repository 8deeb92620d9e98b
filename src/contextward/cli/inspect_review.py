"""``contextward review``: ask in the terminal about each candidate the policy left for review.

When nobody can answer (stdin is not a terminal), no decision is invented:
unresolved items are kept (conservative) and the output says so.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from ..inspect import Candidate, ReviewDecision, build_guidance
from ..printable import counted, one_line, printable
from ..redact import mask
from ._io import BadInput
from .inspect_io import ANSWER_OPTION, FORMAT_OPTION, dumps, load, load_decisions

_ANSWERS = {"k": "keep", "d": "drop", "s": None, "keep": "keep", "drop": "drop", "skip": None}


_CHOICE = click.Choice(list(_ANSWERS), case_sensitive=False)


def _answer(value: str) -> str:
    """One of ``_ANSWERS``, typed with spaces around it or not (" d "); asked again if not."""
    return str(_CHOICE.convert(value.strip(), None, None))


@click.command("review")
@click.argument("file", metavar="FILE")
@FORMAT_OPTION
@ANSWER_OPTION
@click.option("--save", "save_path", metavar="F", help="Write the decisions as JSON to F.")
@click.option("--assume-tty", is_flag=True, hidden=True, help="Ask even without a terminal.")
def command(
    file: str, fmt: str | None, save_path: str | None, assume_tty: bool, answer: str | None
) -> None:
    """Review the undecided candidates of FILE; exit 1 when nobody could answer them all.

    With --save F holding decisions from an earlier review, those stand and only the
    rest are asked: a review stopped half way goes on where it stopped."""
    # Before anyone answers, not after.
    earlier = _check_writable(save_path, file) if save_path else ()
    result = load(file, fmt, answer)
    ids = {c.id for c in result.candidates}
    standing = [d for d in earlier if d.candidate_id in ids]
    decided = {d.candidate_id for d in standing}
    pending = tuple(c for c in result.with_action("review") if c.id not in decided)
    if decided:
        click.echo(
            f"Decided earlier in {one_line(mask(str(save_path)))}: "
            f"{counted(len(decided), 'candidate')}; the rest are asked.\n"
        )
    interactive = assume_tty or (file != "-" and sys.stdin is not None and sys.stdin.isatty())
    decisions: list[ReviewDecision] = []
    complete = True
    if pending and not interactive:
        complete = False
        click.echo(
            f"No review happened: nobody can answer here (stdin is not a terminal). "
            f"{len(pending)} unresolved item(s) kept (conservative), listed as unresolved; "
            f"no decision was made.\n"
        )
    elif pending:
        decisions, complete = _ask(pending)
    elif decided:
        click.echo("Nothing left to review.\n")
    else:
        click.echo("Nothing to review: the policy decided every candidate.\n")
    if save_path and not decisions and Path(save_path).exists():
        # Nothing was decided: earlier decisions in the file stand.
        click.echo(f"(Nothing decided: {one_line(mask(save_path))} left as it was.)\n")
    elif save_path:
        # The earlier decisions first (those of candidates not in this transcript too: the
        # file is not ours to prune), then the new ones.
        saved = [*earlier, *decisions]
        try:
            Path(save_path).write_text(dumps([d.to_dict() for d in saved]) + "\n", encoding="utf-8")
        except OSError as exc:
            # The answers are not lost: they go to stderr, ready for --decisions.
            click.echo(dumps([d.to_dict() for d in saved]), err=True)
            raise BadInput(
                f"decisions {save_path}: cannot be written ({exc.strerror or 'I/O error'}); "
                "the decisions are on stderr above"
            ) from None
    elif decisions:
        click.echo("(These decisions are not saved: --save F writes them for --decisions F.)\n")
    click.echo(build_guidance(result, [*standing, *decisions], reviewed=complete).text())
    raise SystemExit(0 if complete else 1)


def _check_writable(path: str, transcript: str) -> tuple[ReviewDecision, ...]:
    """A one-line error now if ``--save`` could not write ``path`` later, or would write
    over a file that holds no decisions (the transcript under review, anything else);
    else the decisions it holds."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise BadInput(f"decisions {path}: is a directory")
    if transcript != "-" and target.exists() and _same(target, Path(transcript)):
        raise BadInput(f"decisions {path}: is the transcript under review; choose another file")
    earlier: tuple[ReviewDecision, ...] = ()
    if target.is_file() and target.stat().st_size:
        try:
            earlier = load_decisions(path)
        except BadInput:
            raise BadInput(
                f"decisions {path}: exists and holds no decisions; not written over"
            ) from None
    if not folder.is_dir():
        raise BadInput(f"decisions {path}: its folder does not exist")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise BadInput(f"decisions {path}: cannot be written (permission denied)")
    return earlier


def _same(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def _ask(pending: Sequence[Candidate]) -> tuple[list[ReviewDecision], bool]:
    """A person's answers, and whether they answered every item (Ctrl-D or Ctrl-C stops
    the review: what was answered stands, the rest stays unresolved and kept)."""
    click.echo(f"{len(pending)} candidate(s) need a decision. Answer k(eep), d(rop) or s(kip).")
    decisions: list[ReviewDecision] = []
    for n, candidate in enumerate(pending, 1):
        click.echo(f"\n[{n}/{len(pending)}] {candidate.kind}  {candidate.id}")
        click.echo(f"  {printable(mask(candidate.content))}")
        click.echo(f"  why undecided: {one_line(mask(candidate.reason))}")
        try:
            answer = click.prompt(
                "keep, drop or skip (k, d, s)",
                value_proc=_answer,
                default="k",
                show_choices=False,
            )
        except click.Abort:
            click.echo(
                f"\n\nReview stopped: {n - 1} of {len(pending)} answered; "
                f"{len(pending) - n + 1} left unresolved and kept (conservative).\n"
            )
            return decisions, False
        action = _ANSWERS[answer.lower()]
        if action is not None:
            decisions.append(ReviewDecision(candidate.id, action))  # type: ignore[arg-type]
    click.echo("")
    return decisions, True
