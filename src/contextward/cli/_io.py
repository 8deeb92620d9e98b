"""Reading user-named files for commands, with one-line errors that never echo content."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import click

from ..printable import counted, json_text, printable
from ..redact import mask, mask_data
from ..store.text import storable

#: Exit code for usage, input or environment errors (DESIGN.md).
EXIT_BAD_INPUT = 2


class BadInput(click.ClickException):
    """A problem with what the user gave us: one line on stderr, exit 2."""

    exit_code = EXIT_BAD_INPUT


def one_stdin(**inputs: str | None) -> None:
    """Refuse two of ``inputs`` (name: path) both read from standard input: the second
    would read nothing and fail on that, not on the cause."""
    named = [name for name, path in inputs.items() if path == "-"]
    if len(named) > 1:
        raise BadInput(f"the {named[0]} and the {named[1]} cannot both be standard input")


def say(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print human output: secrets masked, escape sequences and control characters gone
    (stored text may hold anything a transcript, a commit subject or a note held)."""
    click.echo(printable(mask(text)), err=err, nl=nl)


def echo_json(data: Any) -> None:
    """Print ``data`` as indented JSON, every string secret-masked as the text outputs are
    (a file named after a token, a path in a digest); JSON escapes control characters."""
    click.echo(json_text(mask_data(data)))


def storable_value(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A click callback: an argument's undecodable bytes (lone surrogates) become U+FFFD,
    so a stray byte in an id cannot fail a write to the store."""
    return storable(value) if isinstance(value, str) else value


def require_stdio() -> None:
    """A one-line error when the process was started with stdin or stdout closed."""
    if sys.stdin is None or sys.stdout is None:
        raise BadInput("standard input or output is closed")


@contextmanager
def open_input(path: str, *, what: str) -> Iterator[BinaryIO]:
    """A user-named file (or stdin for ``-``) opened for binary reading, streaming.

    Errors while opening *or reading* become one-line ``BadInput`` naming ``what``.
    """
    try:
        if path == "-":
            if sys.stdin is None:  # started with stdin closed (`<&-`)
                raise BadInput(f"{what} standard input: closed")
            yield sys.stdin.buffer
            return
        with Path(path).open("rb") as stream:
            yield stream
    except FileNotFoundError:
        raise BadInput(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise BadInput(f"{what} {path}: is a directory") from None
    except PermissionError:
        raise BadInput(f"{what} {path}: permission denied") from None
    except OSError as exc:
        raise BadInput(f"{what} {path}: cannot be read ({exc.strerror or 'I/O error'})") from None


def display_name(path: str) -> str:
    return "standard input" if path == "-" else path


def read_text(path: str, *, what: str, limit: int | None = None, lenient: bool = False) -> str:
    """Read a UTF-8 file, or stdin for ``-``; more than ``limit`` bytes is an error.

    ``lenient`` (a summary to check): bytes that are not UTF-8 are read as U+FFFD and
    counted on stderr, so one stray byte does not stop the check of the rest. A summary
    holding nothing but white space is an error too: checked, it would report every item
    lost, which says nothing about a summary the host never wrote.
    """
    with open_input(path, what=what) as stream:
        data = stream.read() if limit is None else stream.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise BadInput(f"{what} {display_name(path)}: larger than {limit >> 20} MiB")
    if lenient and not data.removeprefix(b"\xef\xbb\xbf").strip():
        raise BadInput(f"{what} {display_name(path)}: empty (nothing to check)")
    try:
        return data.decode("utf-8-sig")  # an editor's byte order mark is not content
    except UnicodeDecodeError as exc:
        error = BadInput(f"{what} {display_name(path)}: not UTF-8 text (byte {exc.start})")
    if not lenient or b"\0" in data:
        raise error
    text = data.decode("utf-8-sig", errors="replace")
    bad = text.count("\ufffd") - data.decode("utf-8-sig", errors="ignore").count("\ufffd")
    if bad * 100 > len(data):
        raise error  # more than one byte in a hundred: not text with a stray byte
    click.echo(
        f"contextward: {what} {display_name(path)}: {counted(bad, 'byte sequence')} that "
        "is not UTF-8 read as U+FFFD",
        err=True,
    )
    return text


def read_json(path: str, *, what: str) -> Any:
    text = read_text(path, what=what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(
            f"{what} {path}: malformed JSON at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise BadInput(f"{what} {path}: JSON nested too deeply") from None
    except ValueError:  # an integer of more digits than Python converts
        raise BadInput(f"{what} {path}: a number in the JSON is too long") from None
