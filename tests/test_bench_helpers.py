"""Small, fast checks of the benchmark helpers and the peer adapters (no timings asserted)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

# bench/ is a top-level folder of the repository, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import EVALUATIONS, peers
from bench.__main__ import main as bench_main
from bench.inspect_eval import Session, load
from bench.readme_results import markdown_table, speed_section
from bench.timing import median_rows


def labelled(tmp_path: Path, text: str, name: str = "s.txt") -> Session:
    """A labelled session file (``bench/data/inspect`` format) written and loaded."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load(path)


def test_median_rows_keeps_order_samples_and_integer_values() -> None:
    runs = [
        [{"name": "a", "value": 3, "unit": "ms"}, {"name": "b", "value": 1.5, "unit": "x"}],
        [{"name": "a", "value": 1, "unit": "ms"}, {"name": "b", "value": 2.5, "unit": "x"}],
        [{"name": "a", "value": 2, "unit": "ms"}, {"name": "c", "value": "n/a", "unit": ""}],
    ]
    assert median_rows(runs) == [
        {"name": "a", "value": 2, "unit": "ms", "runs": [3, 1, 2]},
        {"name": "b", "value": 2.0, "unit": "x", "runs": [1.5, 2.5]},
        {"name": "c", "value": "n/a", "unit": ""},
    ]


def test_a_single_run_is_returned_as_it_is() -> None:
    row = {"name": "a", "value": 1.25, "unit": "ms"}
    assert median_rows([[row]]) == [row]


def test_markdown_table_escapes_pipes() -> None:
    assert markdown_table(["a", "b"], [["x|y", "1"]]) == [
        "| a | b |",
        "| --- | --- |",
        "| x\\|y | 1 |",
    ]


def test_speed_section_groups_rows_by_module_with_budgets(tmp_path: Path) -> None:
    results = tmp_path / "latest.json"
    results.write_text(
        json.dumps(
            {
                "meta": {"command": "python -m bench", "cpus": 2, "machine": "x86_64"},
                "results": [
                    {
                        "name": "hook cost ratio to a bare start (budget 1.3)",
                        "value": 1.1,
                        "unit": "x",
                        "module": "bench.hook_speed",
                    }
                ],
            }
        )
    )
    lines = speed_section(results)
    assert "**Hook cost** (bench.hook_speed)" in lines
    assert "| hook cost ratio to a bare start (budget 1.3) | 1.1 x | ≤ 1.3× |" in lines
    assert speed_section(tmp_path / "missing.json")[-1].startswith("No benchmark results yet")


def test_an_unknown_benchmark_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        bench_main(["--only", "bench.nope"])
    assert exited.value.code == 2
    assert "unknown benchmark bench.nope" in capsys.readouterr().err


def test_make_eval_runs_both_peers() -> None:
    assert {"bench.peers.compaction_guard", "bench.peers.context_guardian"} <= set(EVALUATIONS)


def test_a_missing_peer_is_skipped_with_the_install_command() -> None:
    assert peers.installed_version("surely-not-an-installed-distribution") is None
    line = peers.skipped("compaction-guard", "verification peer")
    assert line.startswith("# compaction-guard: skipped, not installed")
    assert "pip install '.[eval]'" in line


@pytest.mark.skipif(
    peers.installed_version("compaction-guard") is None, reason="compaction-guard not installed"
)
def test_compaction_guard_verdicts_map_onto_our_statuses() -> None:
    from bench.facts_eval import generate
    from bench.peers.compaction_guard import peer_verdicts

    cases = [c for c in generate(1, 300) if c.operator in ("verbatim", "deleted")][:20]
    verdicts = peer_verdicts(cases, "test")
    # Verbatim text is preserved and a deleted item is lost, for every peer worth the name.
    assert verdicts.confusion[("preserved", "preserved")] == sum(
        c.truth == "preserved" for c in cases
    )
    assert verdicts.total == len(cases)


@pytest.mark.skipif(
    peers.installed_version("context-guardian-core") is None,
    reason="context-guardian-core not installed",
)
def test_context_guardian_covers_every_message_of_a_session() -> None:
    from bench.inspect_eval import sessions
    from bench.peers.context_guardian import inspect_session

    session = sessions("dev")[0]
    result = inspect_session(session)
    covered = {source for c in result.candidates for source in c.sources}
    assert covered == {str(m["id"]) for m in session.messages}
    assert {c.action for c in result.candidates} <= {"keep", "drop", "review"}


def test_adjudicated_scores_count_a_disputed_span_as_neither(tmp_path: Path) -> None:
    from bench.inspect_eval import Score

    from contextward.inspect import Candidate, InspectionResult

    session = labelled(
        tmp_path,
        "lang: en\n--- u1 user\n{{fact?:The DAG is x.}} {{?:It runs hourly.}} Thanks.\n",
        "disputed.txt",
    )

    def cand(cid: str, content: str, action: str) -> Candidate:
        return Candidate(cid, "fact", content, 0.8, 0.8, action, False, "", ("u1",))  # type: ignore[arg-type]

    result = InspectionResult(
        (
            cand("a", "The DAG is x.", "keep"),
            cand("b", "It runs hourly.", "keep"),
            cand("c", "Thanks.", "keep"),
        ),
        1,
    )
    adjudicated, first = Score(), Score()
    adjudicated.add(session, result)
    first.add(session, result, adjudicated=False)
    assert (adjudicated.labels, adjudicated.noise, adjudicated.kept, adjudicated.borderline) == (
        0,
        1,
        1,
        2,
    )
    assert (first.labels, first.noise, first.kept_true, first.kept) == (1, 2, 1, 3)


def test_noise_is_split_by_who_said_it(tmp_path: Path) -> None:
    from bench.inspect_eval import Score

    from contextward.inspect import Candidate, InspectionResult

    session = labelled(
        tmp_path,
        "lang: en\n--- u1 user\n{{fact:The DAG is x.}} Thanks.\n"
        "--- a1 assistant\nOn it.\n--- t1 tool\nok\n",
        "roles.txt",
    )

    def cand(cid: str, content: str, action: str, source: str) -> Candidate:
        return Candidate(cid, "fact", content, 0.8, 0.8, action, False, "", (source,))  # type: ignore[arg-type]

    result = InspectionResult(
        (
            cand("a", "The DAG is x.", "keep", "u1"),
            cand("b", "Thanks.", "keep", "u1"),
            cand("c", "On it.", "drop", "a1"),
            cand("d", "ok", "drop", "t1"),
        ),
        3,
    )
    score = Score()
    score.add(session, result)
    rows = {name.strip(): value for name, value, _ in score.rows()}
    assert (score.noise, score.noise_dropped) == (3, 2)
    assert rows["of which owner's words"] == "0.0%"
    assert rows["of which assistant prose"] == rows["of which tool output"] == "100.0%"


def test_inspect_features_reports_shares() -> None:
    from bench.inspect_features import report

    lines = report("dev", "wa_en_hpa").splitlines()
    assert lines[0].startswith("assistant facts kept by the rules")
    assert any("next speaker" in line and "are memories" in line for line in lines[1:])


def test_a_target_is_met_only_on_its_side_of_the_bound() -> None:
    from bench.readme_results import _met

    assert _met(("retained", "98.7%", ">= 98%")) and not _met(("noise", "79.1%", ">= 95%"))
    assert _met(("review", "2.0%", "<= 10%")) and not _met(("review", "11%", "<= 10%"))
    assert _met(("superseded", "0", "0")) and not _met(("superseded", "16", "0"))
    assert _met(("kind accuracy", "54.3%", ""))


def test_a_recorded_answer_is_replayed_only_for_the_prompt_it_answered(tmp_path: Path) -> None:
    import io

    from bench.inspect_eval import render
    from bench.inspect_provider import Recording, Replay, asked, digest

    from contextward.hosts.bridge_library import HostCandidates
    from contextward.inspect import inspect_stream

    session = labelled(
        tmp_path,
        "lang: en\n--- u1 user\nShip the API.\n"
        "--- a1 assistant\nThe staging run took 420 ms at p95. We deploy with Helm.\n",
        "s.txt",
    )
    answer = (
        '```json\n{"candidates": [{"kind": "decision", "content": "We deploy with Helm."}]}\n```'
    )

    def run(sha: str) -> tuple[str, bool, dict[str, str]]:
        replay = Replay(Recording("test model", sha, answer))
        result = inspect_stream(io.BytesIO(render(session)), provider=HostCandidates(replay))
        return result.mode, replay.stale, {c.content: c.action for c in result.candidates}

    mode, stale, actions = run(digest(asked(session)))
    assert (mode, stale) == ("provider", False)
    assert actions["The staging run took 420 ms at p95."] == "drop"
    assert actions["We deploy with Helm."] == "keep"
    mode, stale, actions = run(digest("another prompt"))
    assert (mode, stale) == ("rules", True)
    assert actions["The staging run took 420 ms at p95."] == "keep"


def test_an_answer_without_sources_is_replayed_as_mcp_takes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    import bench.inspect_provider as ip

    session = labelled(
        tmp_path,
        "lang: en\n--- u1 user\nShip the API.\n"
        "--- a1 assistant\nThe staging run took 420 ms at p95. We deploy with Helm.\n",
        "s.txt",
    )
    answer = '```json\n{"candidates": [{"kind": "decision", "content": "We deploy with Helm.", '
    answer += '"source": "a1"}]}\n```'
    assert json.loads(ip.sourceless(answer)) == {
        "candidates": [{"kind": "decision", "content": "We deploy with Helm."}]
    }
    sha = ip.digest(ip.asked(session))
    monkeypatch.setattr(ip, "sessions", lambda split: [session])
    monkeypatch.setattr(
        ip.Recording, "load", classmethod(lambda cls, split, name: cls("m", sha, answer))
    )
    placed, named = ip.score("dev", sources=False), ip.score("dev")
    assert (placed.recorded, placed.stale, placed.rejected, placed.fallbacks) == (1, 0, 0, 0)
    # Placed by its text, the answer decides as it does with its source: the finding it
    # passed by is dropped (rules mode would keep it).
    kept_finding = "s: noise fact -> keep: The staging run took 420 ms at p95."
    assert placed.score.misses == named.score.misses and kept_finding not in named.score.misses
    # A recording of another prompt is stale on this route too, and rules mode runs.
    sha = ip.digest("another prompt")
    stale = ip.score("dev", sources=False)
    assert (stale.stale, stale.fallbacks) == (1, 1) and kept_finding in stale.score.misses


def test_bounded_guidance_is_scored_against_reading_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bench.inspect_bounded as ib

    session = labelled(
        tmp_path,
        "lang: en\n--- u1 user\n{{constraint:Never push to main.}}\n"
        "--- a1 assistant\n{{decision:We'll use Postgres for the ledger.}}\n"
        "--- a2 assistant\n{{decision:We'll use pgbouncer in transaction mode.}}\n",
    )
    monkeypatch.setattr(ib, "sessions", lambda split: [session])
    scored = ib.score(["dev"], 2)
    # Both list the owner's rule; the guidance then the newest decision, reading order the
    # oldest (a2 is the session's last third).
    assert scored["guidance"].cells() == ["100.0%", "66.7%", "100.0%", "0 of 0"]
    assert scored["reading order"].cells() == ["100.0%", "66.7%", "0.0%", "0 of 0"]


def test_export_missing_writes_only_prompts_no_recording_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    import bench.inspect_provider as ip

    session = labelled(tmp_path, "lang: en\n--- u1 user\nShip the API.\n")
    monkeypatch.setattr(ip, "SPLITS", ("dev",))
    monkeypatch.setattr(ip, "sessions", lambda split: [session])
    monkeypatch.setattr(ip, "RECORDED", tmp_path / "provider")

    def exported() -> list[str]:
        out = tmp_path / "out"
        ip.export(out, missing=True)
        return sorted(p.name for p in out.glob("*.prompt.txt"))

    assert exported() == ["001.prompt.txt"]
    (tmp_path / "out" / "001.answer.txt").write_text('{"candidates": []}', encoding="utf-8")
    ip.record(tmp_path / "out", "test model")
    recorded = json.loads((tmp_path / "provider" / "dev" / "s.json").read_text(encoding="utf-8"))
    assert recorded["prompt_sha256"] == ip.digest(ip.asked(session))
    for stale in (tmp_path / "out").glob("*.prompt.txt"):
        stale.unlink()
    assert exported() == []


def test_an_independent_annotation_decides_the_candidates_it_marks(tmp_path: Path) -> None:
    from bench.inspect_agreement import as_annotated

    from contextward.inspect import Candidate, InspectionResult

    annotator = labelled(
        tmp_path,
        "lang: en\n--- u1 user\n{{decision*:Use 8 workers.}} Thanks. "
        "{{fact:token only lives 2 hours}}\n--- u2 user\n{{?:Ignored.}} Bye.\n",
        "second.txt",
    )

    def cand(cid: str, content: str, source: str = "u1") -> Candidate:
        return Candidate(cid, "fact", content, 0.8, 0.8, "review", False, "", (source,))

    result = InspectionResult(
        (
            cand("a", "Use 8 workers."),
            cand("b", "Thanks."),
            # The splitter cut elsewhere: most of the span is shared, so it is marked.
            cand("c", "asked around: token only lives 2 hours, refresh 7 days."),
            cand("d", "Ignored.", "u2"),  # another annotator's addition, not this one's mark
        ),
        2,
    )
    out = {c.id: c for c in as_annotated(result, annotator).candidates}
    assert (out["a"].action, out["a"].superseded_by) == ("drop", "independent annotator")
    assert out["b"].action == "drop" and out["d"].action == "drop"
    assert (out["c"].action, out["c"].kind) == ("keep", "fact")


def test_an_independent_copy_must_keep_the_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench import inspect_agreement
    from bench.inspect_eval import DATA

    split = "heldout"
    first = sorted((DATA / split).glob("*.txt"))[0]
    copy = tmp_path / split / first.name
    copy.parent.mkdir()
    copy.write_text(first.read_text(encoding="utf-8").rstrip("\n") + " typo\n", encoding="utf-8")
    monkeypatch.setattr(inspect_agreement, "INDEPENDENT", tmp_path)
    with pytest.raises(ValueError, match="changed the text"):
        inspect_agreement.independent(split)


def test_only_what_both_annotators_mark_alike_is_a_memory(tmp_path: Path) -> None:
    from bench.inspect_agreement import agreed

    a = labelled(
        tmp_path,
        "lang: en\n--- u1 user\n{{decision:Use 8 workers.}} {{fact:Port is 8080.}} "
        "{{todo:Ship it.}} Fine.\n",
        "a.txt",
    )
    b = labelled(
        tmp_path,
        "lang: en\n--- u1 user\n{{decision*:Use 8 workers.}} {{fact:Port is 8080}}. "
        "Ship it. {{state:Fine.}}\n",
        "b.txt",
    )
    both = agreed(a, b)
    verdict = {label.span: (label.disputed, label.kinds) for label in both.labels}
    assert verdict == {
        "Use 8 workers.": (True, ("decision",)),  # B says a later message replaces it
        "Port is 8080.": (False, ("fact",)),
        "Ship it.": (True, ("todo",)),  # only A
        "Fine.": (True, ("?",)),  # only B
    }


def test_a_span_and_a_candidate_cut_differently_are_the_same_text(tmp_path: Path) -> None:
    from bench.inspect_eval import overlaps

    from contextward.inspect import Candidate

    session = labelled(
        tmp_path,
        "lang: en\n--- u1 user\nThanks. One change: {{correction:max_ttl 24h is too short, so "
        "max_ttl must be 48h. default_ttl 1h is ok.}} Use 4 workers for the export job.\n",
        "cut.txt",
    )
    (label,) = session.labels
    texts = {"u1": str(session.messages[0]["content"])}

    def size(content: str) -> int:
        c = Candidate("x", "fact", content, 0.8, 0.8, "keep", False, "", ("u1",))
        return overlaps(label, c, texts)

    assert size("One change: max_ttl 24h is too short, so max_ttl must be 48h.") == 49
    assert size("default_ttl 1h is ok.") == len("default_ttl 1h is ok.")
    assert size("Thanks.") == 0
    # Words in common elsewhere in the message are not the span.
    assert size("Use 4 workers for the export job.") == 0


def test_every_independent_annotation_keeps_its_session_s_text() -> None:
    from bench.inspect_agreement import independent
    from bench.inspect_eval import SPLITS, sessions

    for split in SPLITS:
        assert len(independent(split)) == len(sessions(split))  # raises if a text changed


def test_the_results_section_is_replaced_in_place_and_nothing_else() -> None:
    from bench.readme_results import HEADING, replace_section

    readme = f"# Tool\n\nIntro.\n\n{HEADING}\n\nold table\n\n## Development\n\nmake test\n"
    new = replace_section(readme, f"{HEADING}\n\nnew table\n")
    assert new == f"# Tool\n\nIntro.\n\n{HEADING}\n\nnew table\n\n## Development\n\nmake test\n"
    assert replace_section(new, f"{HEADING}\n\nnew table\n") == new  # idempotent
    last = f"# Tool\n\n{HEADING}\n\nold\n"
    assert replace_section(last, f"{HEADING}\n\nnew\n") == f"# Tool\n\n{HEADING}\n\nnew\n"
    with pytest.raises(ValueError, match="no '## Measured results' section"):
        replace_section("# Tool\n\n## Results\n", "x")


def test_the_replacement_probe_counts_found_missed_and_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    import bench.inspect_probe as probe

    def session(sid: str, replaces: bool, *turns: str, old: str = "", new: str = "") -> dict:
        roles = ["user", "assistant"] * 3
        return {
            "id": sid,
            "pattern": "test",
            "replaces": replaces,
            "messages": [{"role": r, "content": t} for r, t in zip(roles, turns, strict=False)],
            "replaced": [old] if old else [],
            "current": [new] if new else [],
            "either": [],
        }

    data = tmp_path / "replacements.json"
    choice = "Use SQLite for the invoice store."
    data.write_text(
        json.dumps(
            {
                "sessions": [
                    session(
                        "R1",
                        True,
                        choice,
                        "OK.",
                        "Switch the invoice store to PostgreSQL.",
                        old=choice,
                        new="PostgreSQL",
                    ),
                    session(
                        "R2",
                        True,
                        choice,
                        "OK.",
                        "Add an index on invoices.created_at.",
                        old=choice,
                        new="index",
                    ),
                    # The "control" names the real replacement as current: retiring the
                    # choice it replaces is then something current retired.
                    session(
                        "C1",
                        False,
                        choice,
                        "OK.",
                        "Switch the invoice store to PostgreSQL.",
                        new=choice,
                    ),
                ]
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setattr(probe, "DATA", data)
    tallies = probe.score()
    found = tallies["replacements, en"]
    assert (found.sessions, found.found, found.missed, found.wrong) == (2, 1, ["R2"], [])
    assert tallies["controls, en"].wrong == ["C1"]
    assert probe.rows(tallies)[0] == ["replacements, en", "2", "1 of 2", "0"]


@pytest.mark.parametrize("name", ["replacements.json", "replacements2.json", "unseen.json"])
def test_every_probe_session_is_well_formed(name: str) -> None:
    """Each session alternates roles from the user's, and every statement it names is in
    one of its messages, so a miss is the rules' and never the data's."""
    import json

    import bench.inspect_probe as probe

    sessions = json.loads(probe.DATA.with_name(name).read_text(encoding="utf-8"))["sessions"]
    assert len({s["id"] for s in sessions}) == len(sessions)
    for s in sessions:
        roles = [m["role"] for m in s["messages"]]
        assert roles == [("user", "assistant")[n % 2] for n in range(len(roles))], s["id"]
        texts = [" ".join(m["content"].split()).casefold() for m in s["messages"]]
        for said in [*s["replaced"], *s["current"], *s["either"]]:
            want = " ".join(said.split()).casefold()
            assert any(want in t for t in texts), (s["id"], said)
        assert bool(s["replaced"]) is s["replaces"], s["id"]


def test_the_probe_replays_a_recorded_answer_in_provider_mode_and_only_a_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    import bench.inspect_probe as probe

    from contextward.inspect.provider import asked

    choice = "Use SQLite for the invoice store."
    new = "Put the invoices in PostgreSQL from now on, please."
    session = {
        "id": "R1",
        "pattern": "test",
        "replaces": True,
        "messages": [
            {"role": "user", "content": choice},
            {"role": "assistant", "content": "OK."},
            {"role": "user", "content": new},
        ],
        "replaced": [choice],
        "current": [new],
        "either": [],
    }
    data = tmp_path / "replacements.json"
    data.write_text(json.dumps({"sessions": [session]}), encoding="utf-8")
    monkeypatch.setattr(probe, "DATA", data)
    monkeypatch.setattr(probe, "RECORDED", tmp_path / "provider")
    answer = {
        "candidates": [
            {"kind": "decision", "content": new, "source": "m4", "replaces": choice},
        ]
    }
    exported = tmp_path / "out"
    monkeypatch.setattr(probe, "UNSEEN", data)  # export writes every probe's prompts
    monkeypatch.setattr(probe, "HARD", data)
    assert probe.export(exported) == 0
    mapping = json.loads((exported / "map.json").read_text(encoding="utf-8"))
    key = next(k for k, v in mapping.items() if v["session"] == "R1")
    assert (exported / f"{key}.prompt.txt").read_text(encoding="utf-8") == asked(
        probe.messages(session)
    )
    (exported / f"{key}.answer.txt").write_text(json.dumps(answer), encoding="utf-8")
    assert probe.record(exported, "test model") == 0

    assert probe.score(data)["replacements, en"].found == 0  # the rules miss it
    assert probe.score(data, provider=True)["replacements, en"].found == 1
    assert probe.recorded(data) == "1 of 1"

    # An answer to another prompt is stale: that session runs in rules mode.
    stored = tmp_path / "provider" / "replacements" / "R1.json"
    entry = json.loads(stored.read_text(encoding="utf-8"))
    stored.write_text(json.dumps({**entry, "prompt_sha256": "0" * 64}), encoding="utf-8")
    assert probe.score(data, provider=True)["replacements, en"].found == 0
    assert probe.recorded(data) == "0 of 1"


def test_the_restore_probe_never_hides_a_control_statement_under_a_wrong_summary() -> None:
    from bench import restore_probe
    from bench.inspect_probe import DATA

    replaced, wrong, faithful = restore_probe.score(DATA).values()
    assert (replaced.sessions, wrong.sessions, faithful.sessions) == (64, 32, 32)
    assert wrong.checked == 0 and faithful.checked == 0
    assert replaced.checked <= replaced.plain  # the later-word check never restates more
