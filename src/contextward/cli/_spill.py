"""``contextward inspect`` in bounded memory: each candidate rendered as it is frozen.

Owns the two sinks of a streamed inspection (``inspect.inspect_into``): the ``--json``
document and the table, each candidate's rendering spilled to an anonymous temporary
file (gone when closed, never named on disk) and read back in transcript order at the
end, byte for byte what the whole result renders to. Only masked renderings are
written; a message id a mask would change stays in memory. Never classifies or decides.
"""

from __future__ import annotations

import json
import tempfile
from abc import ABC, abstractmethod
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any

from ..inspect import ACTIONS, Candidate, InspectionResult
from ..printable import json_visible
from .inspect_io import HEADER, dumps, row, summary_lines, table_line

#: Output is written in pieces of about this many characters.
_CHUNK = 1 << 20


class _Spill(ABC):
    """Rendered candidates by ordinal in a temporary file, and what the document says
    of them all (how many, their actions)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by ``close``)
        self._at = array("q")
        self._size = array("q")
        self._end = 0
        self.counts: Counter[str] = Counter(dict.fromkeys(ACTIONS, 0))
        self.superseded = 0
        #: Sources a mask changes, which the file holds masked only.
        self._sources: dict[int, tuple[str, ...]] = {}

    def __enter__(self) -> _Spill:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._file.close()

    def __len__(self) -> int:
        return len(self._at)

    def put(self, ordinal: int, candidate: Candidate) -> None:
        if ordinal >= len(self._at):
            grow = ordinal + 1 - len(self._at)
            self._at.extend([-1] * grow)
            self._size.extend([0] * grow)
        self.counts[candidate.action] += 1
        self.superseded += candidate.superseded_by is not None
        self._write(ordinal, candidate, self._render(ordinal, candidate))

    def revise(self, ordinal: int, change: Callable[[Candidate], Candidate]) -> None:
        superseded_by, role, body = self._read(ordinal)
        old = self._candidate(ordinal, body, superseded_by, role)
        new = change(old)
        self.counts[old.action] -= 1
        self.counts[new.action] += 1
        self._forget(old)
        self._write(ordinal, new, self._rerender(body, new))

    def bodies(self) -> Iterator[str]:
        """Each candidate's rendering, in transcript order."""
        file = self._file
        for at, size in zip(self._at, self._size, strict=True):
            if file.tell() != at:
                file.seek(at)
            data = file.read(size)
            yield data[data.index(b"\n") + 1 :].decode()

    def _write(self, ordinal: int, candidate: Candidate, body: str) -> None:
        # What ``revise`` needs that the rendering does not say: what superseded it (an
        # id, of no space) and who said it (a role).
        data = f"{candidate.superseded_by or ''} {candidate.role}\n{body}".encode()
        if self._file.tell() != self._end:  # a seek writes out what is buffered
            self._file.seek(self._end)
        self._file.write(data)
        self._at[ordinal], self._size[ordinal] = self._end, len(data)
        self._end += len(data)

    def _read(self, ordinal: int) -> tuple[str | None, str, str]:
        """The candidate's superseding id, role and rendering."""
        self._file.seek(self._at[ordinal])
        head, _, body = self._file.read(self._size[ordinal]).decode().partition("\n")
        superseded_by, _, role = head.partition(" ")
        return superseded_by or None, role, body

    @abstractmethod
    def _render(self, ordinal: int, candidate: Candidate) -> str:
        """The candidate as the output shows it."""

    @abstractmethod
    def _rerender(self, body: str, candidate: Candidate) -> str:
        """A revised candidate, its content as ``body`` showed it (masked)."""

    @abstractmethod
    def _candidate(
        self, ordinal: int, body: str, superseded_by: str | None, role: str
    ) -> Candidate:
        """What a revision reads of a spilled candidate, from its rendering."""

    def _forget(self, candidate: Candidate) -> None:  # noqa: B027 (most spills forget nothing)
        """A revised candidate's old rendering no longer counts."""

    @abstractmethod
    def rendered(self, result: InspectionResult) -> Iterator[str]:
        """What the command prints for ``result`` and the spilled candidates, in pieces."""


class JsonSpill(_Spill):
    """The ``--json`` document: each candidate's object as ``json_text`` indents it
    inside the document's ``candidates`` list."""

    def _render(self, ordinal: int, candidate: Candidate) -> str:
        data = candidate.to_dict()
        if data["sources"] != list(candidate.sources):
            self._sources[ordinal] = candidate.sources
        return _indented(data)

    def _rerender(self, body: str, candidate: Candidate) -> str:
        data = candidate.to_dict()
        data["content"] = json.loads(body)["content"]  # masked as it was written
        return _indented(data)

    def _candidate(
        self, ordinal: int, body: str, superseded_by: str | None, role: str
    ) -> Candidate:
        data = json.loads(body)
        return Candidate(
            id=data["id"],
            kind=data["kind"],
            content="",
            importance=data["importance"],
            confidence=data["confidence"],
            action=data["action"],
            critical=data["critical"],
            reason="",
            sources=self._sources.get(ordinal) or tuple(data["sources"]),
            supersedes=tuple(data["supersedes"]),
            superseded_by=superseded_by,
            role=role,
        )

    def rendered(self, result: InspectionResult) -> Iterator[str]:
        """The ``inspect --json`` document of ``result`` and the spilled candidates, in
        pieces, as ``dumps`` writes the whole result."""
        whole = dumps({**result.to_dict(), "counts": dict(self.counts), **result.provider_notes()})
        head, empty, tail = whole.partition('"candidates": []')
        assert empty, "the document lists its candidates"
        if not len(self):
            yield whole
            return
        yield from _pieces(head + '"candidates": [\n', self.bodies(), ",\n", "\n  ]" + tail)


class TableSpill(_Spill):
    """The table: each candidate's row, and how wide each column has to be."""

    def __init__(self) -> None:
        super().__init__()
        self._widths = [Counter({len(cell): 1}) for cell in HEADER[:4]]

    def _render(self, ordinal: int, candidate: Candidate) -> str:
        return self._row(row(candidate))

    def _row(self, cells: tuple[str, ...]) -> str:
        for column, cell in zip(self._widths, cells, strict=False):
            column[len(cell)] += 1
        return json.dumps(cells, ensure_ascii=False)

    def _rerender(self, body: str, candidate: Candidate) -> str:
        preview = json.loads(body)[4]
        return self._row((*row(candidate)[:4], preview))

    def _candidate(
        self, ordinal: int, body: str, superseded_by: str | None, role: str
    ) -> Candidate:
        action, kind, critical, cid, _preview = json.loads(body)
        return Candidate(
            id=cid,
            kind=kind,
            content="",
            importance=0.0,
            confidence=0.0,
            action=action,
            critical=critical == "yes",
            reason="",
            sources=(),
            superseded_by=superseded_by,
            role=role,
        )

    def _forget(self, candidate: Candidate) -> None:
        for column, cell in zip(self._widths, row(candidate), strict=False):
            column[len(cell)] -= 1

    def rendered(self, result: InspectionResult) -> Iterator[str]:
        """The table of ``result`` and the spilled candidates, in pieces, as
        ``candidates_table`` renders the whole result."""
        widths = [max(n for n, rows in column.items() if rows > 0) for column in self._widths]
        rows = ("\n" + table_line(tuple(json.loads(body)), widths) for body in self.bodies())
        end = summary_lines(result, len(self), self.counts, self.superseded)
        yield from _pieces(
            table_line(HEADER, widths), rows, "", "".join(f"\n{line}" for line in end)
        )


def _indented(data: dict[str, Any]) -> str:
    """A candidate's object as ``json_text`` writes it two levels down (in the document's
    list): each value as the C encoder writes it, laid out as ``indent=2`` lays it out.
    The pure-Python encoder that indents was most of the time the whole document took."""
    lines = []
    for key, value in data.items():
        if isinstance(value, list):
            text = (
                f"[\n{_ITEM}" + f",\n{_ITEM}".join(map(_json, value)) + "\n      ]"
                if value
                else "[]"
            )
        elif value is True or value is False:
            text = "true" if value else "false"
        elif isinstance(value, float):
            text = float.__repr__(value)  # as json writes a finite float, without its encoder
        else:
            text = _json(value)
        prefix = _KEYS.get(key) or _KEYS.setdefault(key, f"      {_json(key)}: ")
        lines.append(prefix + text)
    return json_visible("    {\n" + ",\n".join(lines) + "\n    }")


_json = json.JSONEncoder(ensure_ascii=False).encode
_ITEM = " " * 8
_KEYS: dict[str, str] = {}


def _pieces(head: str, items: Iterator[str], between: str, tail: str) -> Iterator[str]:
    """``head + between.join(items) + tail`` in pieces of about ``_CHUNK`` characters."""
    buffer, size = [head], len(head)
    for n, item in enumerate(items):
        if n:
            buffer.append(between)
        buffer.append(item)
        size += len(item)
        if size >= _CHUNK:
            yield "".join(buffer)
            buffer, size = [], 0
    buffer.append(tail)
    yield "".join(buffer)
