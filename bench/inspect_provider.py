"""Provider mode on the labelled sessions, from a host model's recorded answers.

Provider mode asks the host's model (``contextward.inspect.provider.prompt``);
to measure it offline, each labelled session's prompt is answered once by a
model and the answer is recorded under ``bench/data/inspect/provider/SPLIT/``
with the SHA-256 of the exact prompt it answered. ``make eval`` replays the
recordings through the real adapter (``HostCandidates``: prompt, parsing,
validation, the policy); a recording whose prompt no longer matches is
reported stale and that session falls back to rules, as it would live.

``python -m bench.inspect_provider export DIR`` writes the prompts under
neutral numbers (``DIR/007.prompt.txt``; ``DIR/map.json`` says which is which)
so whoever answers does not know the split or the session; ``import DIR --model
NAME`` records every ``DIR/NNN.answer.txt``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.inspect_eval import DATA, HELD_OUT, SPLITS, Score, Session, merged, render, sessions
from bench.inspect_eval import score as score_rules
from contextward.hosts.bridge_errors import ProviderError
from contextward.hosts.bridge_library import HostCandidates
from contextward.inspect import InspectionResult, inspect_stream
from contextward.inspect.provider import Answered, parse_answer
from contextward.inspect.provider import asked as asked_of
from contextward.inspect.readers import open_transcript

RECORDED = DATA / "provider"


def asked(session: Session) -> str:
    """The exact text (system, then prompt) the host's model is given for ``session``."""
    return asked_of(list(open_transcript(io.BytesIO(render(session)), None).messages))


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Recording:
    model: str
    prompt_sha256: str
    answer: str

    @classmethod
    def load(cls, split: str, name: str, root: Path | None = None) -> Recording | None:
        """The recording for session ``name`` of ``split`` (under ``root``, by default the
        labelled sessions' recordings)."""
        path = (root or RECORDED) / split / f"{name}.json"
        if not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(str(data["model"]), str(data["prompt_sha256"]), str(data["answer"]))


class Replay:
    """A host ``Provider`` that answers with a recording, if it answers this very prompt."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self.stale = False

    def ask(
        self,
        task: str,
        input: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        text = f"{input['system']}\n\n{input['prompt']}"  # as provider.asked joins them
        if digest(text) != self.recording.prompt_sha256:
            self.stale = True
            raise ProviderError("provider_error", "the recording answers another prompt")
        return {"text": self.recording.answer}


@dataclass
class Replayed:
    score: Score
    sessions: int = 0
    recorded: int = 0
    stale: int = 0
    fallbacks: int = 0  # sessions the product ran in rules mode (any reason)
    rejected: int = 0  # proposals not found verbatim, or of no known kind
    models: set[str] = field(default_factory=set)


def sourceless(answer: str) -> str:
    """``answer`` with no proposal naming its source, as a model that already holds the
    conversation answers ``instructions()`` (an MCP client's agent): each proposal is then
    placed by its verbatim text alone."""
    data = parse_answer(answer)
    items = data.get("candidates") if isinstance(data, dict) else data
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict):
            item.pop("source", None)
    return json.dumps(data, ensure_ascii=False)


def _replayed(
    split: str, session: Session, *, sources: bool = True
) -> tuple[InspectionResult, Replay | None]:
    recording = Recording.load(split, session.name)
    replay = Replay(recording) if recording is not None else None
    provider: HostCandidates | Answered | None = HostCandidates(replay) if replay else None
    if replay is not None and not sources:
        # The same answer handed over directly (as MCP's ``answer``), if it is still current.
        fresh = replay.recording.prompt_sha256 == digest(asked(session))
        replay.stale = not fresh
        provider = Answered(sourceless(replay.recording.answer)) if fresh else None
    return inspect_stream(io.BytesIO(render(session)), provider=provider), replay


def result(split: str, session: Session) -> InspectionResult:
    """Provider mode's inspection of one session, from its recording (else rules mode)."""
    return _replayed(split, session)[0]


def score(split: str, *, sources: bool = True) -> Replayed:
    """Provider mode on ``split`` from its recordings (a session without one runs in rules
    mode); ``sources=False`` replays each answer with its sources removed (``sourceless``)."""
    out = Replayed(Score())
    for session in sessions(split):
        out.sessions += 1
        result, replay = _replayed(split, session, sources=sources)
        out.score.add(session, result)
        if replay is not None:
            out.recorded += 1
            out.models.add(replay.recording.model)
            out.stale += replay.stale
        out.fallbacks += result.mode != "provider"
        out.rejected += result.provider_rejected
    return out


def evaluate() -> str:
    by_split = {split: score(split) for split in SPLITS}
    models = sorted(set().union(*(r.models for r in by_split.values())))
    lines = [
        "inspection in provider mode (recorded host-model answers replayed through the real "
        f"adapter; answered by: {', '.join(models) or 'none recorded'})"
    ]
    for split, r in by_split.items():
        lines.append(
            f"  {split}: {r.recorded} of {r.sessions} sessions recorded, {r.stale} stale, "
            f"{r.fallbacks} ran in rules mode, {r.rejected} proposals rejected"
        )
    rules = {split: score_rules(split)[0] for split in SPLITS}
    columns = {
        "dev rules": rules["dev"],
        "dev provider": by_split["dev"].score,
        "held-out rules": merged(rules[s] for s in HELD_OUT),
        "held-out provider": merged(by_split[s].score for s in HELD_OUT),
    }
    lines.append(f"  {'metric':<32}" + "".join(f" {name:>17}" for name in columns) + "  target")
    table = [score.rows() for score in columns.values()]
    for row in zip(*table, strict=True):
        cells = "".join(f" {cell[1]:>17}" for cell in row)
        lines.append(f"  {row[0][0]:<32}{cells}  {row[0][2]}")
    lines.append(sourceless_line())
    return "\n".join(lines)


def sourceless_line() -> str:
    """Held-out provider mode with and without the answers' sources, as one sentence."""
    shown = (
        "critical items auto-kept",
        "retained (keep + review)",
        "noise dropped",
        "superseded in must-preserve",
    )
    rows = {
        sources: {
            name: value
            for name, value, _ in merged(score(s, sources=sources).score for s in HELD_OUT).rows()
        }
        for sources in (True, False)
    }
    figures = {sources: " / ".join(rows[sources][n] for n in shown) for sources in (True, False)}
    names = " / ".join(shown)
    return (
        "  The same answers with no source named (each proposal placed by its verbatim text "
        "alone, as MCP's `inspect_prompt` without messages asks), held-out "
        f"{names}: {figures[False]} (with sources: {figures[True]})."
    )


def export(out: Path, *, missing: bool = False) -> int:
    """Write every prompt (``missing``: only those no recording answers) under neutral numbers."""
    out.mkdir(parents=True, exist_ok=True)
    every = [(split, s) for split in SPLITS for s in sessions(split)]
    if missing:
        every = [(split, s) for split, s in every if not _answered(split, s)]
    # Neutral numbers in an order unrelated to split or name.
    every.sort(key=lambda pair: digest(pair[0] + "/" + pair[1].name))
    mapping = {}
    for number, (split, session) in enumerate(every, 1):
        key = f"{number:03d}"
        text = asked(session)
        (out / f"{key}.prompt.txt").write_text(text, encoding="utf-8")
        mapping[key] = {"split": split, "session": session.name, "prompt_sha256": digest(text)}
    (out / "map.json").write_text(json.dumps(mapping, indent=1) + "\n", encoding="utf-8")
    print(f"{len(mapping)} prompts in {out}")
    return 0


def _answered(split: str, session: Session) -> bool:
    recording = Recording.load(split, session.name)
    return recording is not None and recording.prompt_sha256 == digest(asked(session))


def record(source: Path, model: str) -> int:
    return record_into(source, model, RECORDED, "split")


def record_into(source: Path, model: str, root: Path, group: str) -> int:
    """Record every ``source/NNN.answer.txt`` under ``root/<group>/<session>.json``, the
    group and session named by ``source/map.json`` (``group``: "split", or "probe")."""
    mapping = json.loads((source / "map.json").read_text(encoding="utf-8"))
    done = 0
    for key, where in sorted(mapping.items()):
        answer = source / f"{key}.answer.txt"
        if not answer.is_file():
            continue
        target = root / where[group] / f"{where['session']}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "model": model,
            "prompt_sha256": where["prompt_sha256"],
            "answer": answer.read_text(encoding="utf-8"),
        }
        target.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        done += 1
    print(f"{done} of {len(mapping)} answers recorded under {root}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.inspect_provider")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("score", help="print provider mode's scores from the recordings")
    exp = sub.add_parser("export")
    exp.add_argument("dir", type=Path)
    exp.add_argument(
        "--missing", action="store_true", help="only sessions with no current recording"
    )
    imp = sub.add_parser("import")
    imp.add_argument("dir", type=Path)
    imp.add_argument("--model", required=True, help="which model answered, as recorded")
    args = parser.parse_args(argv)
    if args.command == "score":
        print(evaluate())
        return 0
    if args.command == "export":
        return export(args.dir, missing=args.missing)
    return record(args.dir, args.model)


if __name__ == "__main__":
    sys.exit(main())
