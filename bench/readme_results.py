"""The README's results section, generated: ``python -m bench.readme_results``.

Quality figures are computed here from the same code ``make eval`` runs (the
generated verification pairs, the labelled inspection sessions, and the
peer adapters in bench/peers); speed figures are read from
bench/results/latest.json, which ``make bench`` writes. Every table names
the command that produced it. Prints Markdown to standard output.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from bench import (
    inspect_agreement,
    inspect_bounded,
    inspect_eval,
    inspect_probe,
    inspect_provider,
    restore_probe,
)
from bench.peers import compaction_guard, context_guardian

RESULTS = Path(__file__).parent / "results" / "latest.json"

#: DESIGN.md budgets, matched against benchmark row names: (substrings a name must all
#: hold, budget text).
BUDGETS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("hook cost ratio",), "≤ 1.3×"),
    (("check literal 1000 items",), "< 50 ms"),
    (("check facts 1000 items",), "< 500 ms"),
    (("inspect typical", "throughput"), "≥ 10 MB/s"),
    (("100,000 rows: worst median",), "< 20 ms"),
    (("brief render",), "< 10 ms"),
    (("state block, nothing changed",), "≤ 5 ms"),
)

#: Benchmark modules in README order, with the area title of their table.
AREAS: tuple[tuple[str, str], ...] = (
    ("bench.hook_speed", "Hook cost"),
    ("bench.inspect_speed", "Inspection throughput and memory"),
    ("bench.core_check", "Check throughput (literal)"),
    ("bench.facts_speed", "Check throughput (facts)"),
    ("bench.recall_speed", "Recall latency"),
    ("bench.store_speed", "Store append throughput"),
    ("bench.state_speed", "State block"),
)


def markdown_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return [line(head), "|" + "|".join(" --- " for _ in head) + "|", *map(line, rows)]


def verification_section() -> list[str]:
    version, sets = compaction_guard.results()
    names = [v.name for v in sets[0][2]]
    head = ["verifier", *(f"{label} ({count:,})" for label, count, _ in sets)]
    accuracy = [
        [name, *(f"{v[i].accuracy:.1%}" for _, _, v in sets)] for i, name in enumerate(names)
    ]
    false_preserved = [
        [name, *(f"{100 * v[i].false_preserved:.2f}%" for _, _, v in sets)]
        for i, name in enumerate(names)
    ]
    lines = [
        "### Verification: did the summary keep each item? (`make eval`)",
        "",
        "Generated item/summary pairs in English and Chinese (bench/facts_eval.py): the summary "
        "keeps the item verbatim, with noise or paraphrased (truth: preserved), swaps a value, "
        "flips a negation, weakens must to may or revokes it (changed), or drops it (lost). "
        "Accuracy over the three statuses:",
        "",
        *markdown_table(head, accuracy),
        "",
        "False preserved (a changed or lost item reported as preserved: the error that lets a "
        "lost constraint go unrestored):",
        "",
        *markdown_table(head, false_preserved),
        "",
    ]
    if version is None:
        lines.append(f"{compaction_guard.DISTRIBUTION} was not installed: no peer column.")
    else:
        lines.append(
            f"compaction-guard {version} runs its offline lexical tier (its default `check()`); "
            "its verdicts are mapped preserved|paraphrased → preserved, "
            "weakened|mutated|contradicted → changed, dropped → lost, unverifiable → unknown "
            "(counted wrong). Per-class precision, recall and confusion tables: `make eval`."
        )
    return lines


def inspection_section() -> list[str]:
    version, splits = context_guardian.results()
    by_tool: dict[str, dict[str, inspect_eval.Score]] = {}
    for split, scores in splits:
        for name, score in scores:
            by_tool.setdefault(name, {})[split] = score
    blind = [s for s in inspect_eval.SPLITS if s != "dev"]
    columns = [("contextward rules", ["dev"], "contextward rules, dev (tuned on)")]
    columns += [(name, blind, f"{name}, held-out") for name in by_tool]
    rows_by_column = [
        inspect_eval.merged([by_tool[name][s] for s in spl]).rows() for name, spl, _ in columns
    ]
    # Ours again on the first annotator's labels alone, so the adjudication changes no verdict
    # unseen.
    columns.insert(2, ("", blind, "contextward rules, held-out, first annotator alone"))
    first = [inspect_eval.score(s, adjudicated=False)[0] for s in blind]
    rows_by_column.insert(2, inspect_eval.merged(first).rows())
    # Provider mode, from the recorded answers of a host model (bench/inspect_provider.py).
    replayed = {s: inspect_provider.score(s) for s in inspect_eval.SPLITS}
    models = sorted(set().union(*(r.models for r in replayed.values())))
    for at, (title, spl) in enumerate(
        [("contextward provider mode, dev", ["dev"]), ("provider mode, held-out", blind)], 3
    ):
        columns.insert(at, ("", spl, title))
        rows_by_column.insert(at, inspect_eval.merged(replayed[s].score for s in spl).rows())
    recorded = sum(r.recorded for r in replayed.values())
    total = sum(r.sessions for r in replayed.values())
    fallbacks = sum(r.fallbacks for r in replayed.values())
    rows = [
        [cells[0][0], *(c[1] for c in cells), cells[0][2] or "–"]
        for cells in zip(*rows_by_column, strict=True)
    ]
    sessions = {s: len(inspect_eval.sessions(s)) for s in inspect_eval.SPLITS}
    lines = [
        "### Inspection: what to keep from a transcript (`make eval`)",
        "",
        f"Labelled sessions in bench/data/inspect: dev ({sessions['dev']} sessions, tuned on) "
        f"and the held-out sets {', '.join(f'{s} ({sessions[s]})' for s in blind)}, never "
        "tuned on. Marked spans are memories; every other candidate is noise. A second "
        "annotator, blind to the classifier, re-read the dev sessions of the six later authors "
        "and every held-out set but heldout5 and heldout6 (written last, they have only the "
        "independent annotation below); the columns score what both annotators agree on (a span "
        "they dispute counts as neither), and one column repeats ours on the first "
        "annotator's labels alone (bench/data/inspect/README.md).",
        "",
        *markdown_table(["metric", *(title for _, _, title in columns), "target"], rows),
        "",
    ]
    lines.append(
        f"Provider mode replays the recorded answers of {', '.join(models) or 'no model'} "
        f"to the prompt contextward asks ({recorded} of {total} sessions recorded, "
        f"{fallbacks} ran in rules mode) through the real adapter and policy "
        "(`python -m bench.inspect_provider score`)."
    )
    lines.append("")
    lines.append(inspect_provider.sourceless_line().strip())
    lines.append("")
    # Column 1 is the rules on the merged held-out sets, column 4 provider mode.
    for mode, at in (("rules mode", 1), ("provider mode", 4)):
        missed = [row[0] for row in rows_by_column[at] if not _met(row)]
        lines.append(
            f"Held-out targets not met in {mode}: {', '.join(missed)} (why: docs/inspect.md)."
            if missed
            else f"Every held-out target is met in {mode}."
        )
    lines.append("")
    if version is None:
        lines.append(f"{context_guardian.DISTRIBUTION} was not installed: no peer column.")
    else:
        lines.append(
            f"context-guardian-core {version} runs its local rules mode "
            "(`ContextGuardian().inspect`, no provider) on the same messages, scored by the same "
            "scorer; the keyword baseline is bench/inspect_eval.py's regex approach."
        )
    return lines


def agreement_section() -> list[str]:
    columns = inspect_agreement.scores()
    rows = [
        [cells[0][0], *(c[1] for c in cells), cells[0][2] or "–"]
        for cells in zip(*(score.rows() for _, score in columns), strict=True)
    ]
    return [
        "#### How far two annotators agree (`python -m bench.inspect_agreement`)",
        "",
        "An independent annotator (B; not the one who audited the labels above) labelled every "
        "held-out session again from scratch, blind to the first labels (A), the classifier "
        "and its output "
        f"(bench/data/inspect/independent; {inspect_agreement.summary()}). Scored like the "
        "product, on the same candidates, one careful person against another is the "
        "ceiling of these metrics; the last two columns score only what A and B agree on.",
        "",
        *markdown_table(["metric", *(title for title, _ in columns), "target"], rows),
        "",
        *(
            f"- Against what A and B agree on, {name.split(' vs ')[0]} mode "
            + (
                f"meets every target but {', '.join(missed)}."
                if (missed := [row[0] for row in score.rows() if not _met(row)])
                else "meets every target."
            )
            for name, score in columns
            if name.endswith("agreed")
        ),
    ]


def bounded_section() -> list[str]:
    return [
        "#### What a full guidance keeps (`python -m bench.inspect_bounded`)",
        "",
        "A real compaction segment holds hundreds of kept items and the guidance lists at most "
        "60, so which ones it lists matters. Each labelled session's must-preserve section is "
        "capped at a few items to put it under the same pressure; the shares are of the "
        "labelled items it lists. The guidance lists the owner's goals and standing rules "
        "first, then the critical items and the owner's plain statements, then the rest, the "
        "newest first within each; the earlier choice (the first items in reading order, "
        "critical first) is scored on the same candidates.",
        "",
        *markdown_table(["set", "cap", "chosen by", *inspect_bounded.HEAD], inspect_bounded.rows()),
    ]


def probe_section() -> list[str]:
    out = [
        "#### Replacement phrasings (`python -m bench.inspect_probe`)",
        "",
        "Short sessions in which the owner replaces a decision, rule, value or plan the ways "
        'people say it ("let\'s go with SQS", "make it 5 attempts", "drop the redis idea", '
        '"WebSocket 先不上了"), and controls in which nothing is replaced but the words look '
        "alike, each written by a helper. The first two were used to improve the rules (a "
        "development set, like `dev/`); the third was written later by a helper who saw "
        "neither the rules nor the other probes, and was never tuned on (`make eval` shows "
        "its totals only). Provider mode replays a model's recorded answer to each "
        "session's prompt.",
    ]
    for title, data in inspect_probe.probes():
        out += [
            "",
            f"{title[0].upper()}{title[1:]}; {inspect_probe.recorded(data)} recorded answers:",
            "",
            *markdown_table(inspect_probe.BOTH_HEAD, inspect_probe.both_rows(data)),
        ]
    return out


def restore_section() -> list[str]:
    out = [
        "#### The restore block after a missed replacement (`python -m bench.restore_probe`)",
        "",
        "The same probes through the whole loop, each checked against a compaction summary "
        "written by a helper who saw only the session: a faithful one, and for each control "
        "also a wrong one that replaces a statement which still holds by a value or name "
        "said later. Where supersession missed a replacement, the old statement is still in "
        'the snapshot; restating it as one that "still holds" would undo the owner\'s change. '
        "The later-word check reads it as replaced when a later statement of the session "
        "explains the summary's change; a wrong summary must still get its statement "
        "restored. The second table lays each control's summary out as Claude Code's "
        "/compact does, every user message quoted word for word before the current state: "
        "a wrong summary's error then follows a verbatim copy of the item it changes, and "
        "is found only if the check reads past the copy.",
    ]
    for title, data in inspect_probe.probes():
        out += [
            "",
            f"{title[0].upper()}{title[1:]}:",
            "",
            *markdown_table(restore_probe.HEAD, restore_probe.rows(data)),
            "",
            *markdown_table(restore_probe.QUOTED_HEAD, restore_probe.quoted_rows(data)),
        ]
    return out


def _met(row: tuple[str, str, str]) -> bool:
    """Whether a score row ("noise dropped", "79.1%", ">= 95%") meets its target."""
    _, value, target = row
    if not target:
        return True
    number = float(value.rstrip("%"))
    bound = float(target.lstrip("<>= ").rstrip("%"))
    if target.startswith(">="):
        return number >= bound
    if target.startswith("<="):
        return number <= bound
    return number == bound


def _budget(name: str) -> str:
    return next((budget for keys, budget in BUDGETS if all(k in name for k in keys)), "")


def speed_section(path: Path = RESULTS) -> list[str]:
    lines = ["### Speed and memory (`make bench`)", ""]
    if not path.is_file():
        return [*lines, f"No benchmark results yet: run `make bench` (writes {path.name})."]
    data = json.loads(path.read_text(encoding="utf-8"))
    meta = data.get("meta", {})
    rows = data.get("results", [])
    lines.append(
        f"`{meta.get('command', 'python -m bench')}` on {meta.get('cpus', '?')} CPUs, "
        f"{meta.get('machine', '?')}, Python {meta.get('python', '?')}, {meta.get('when', '?')}; "
        "medians over repeated runs."
    )
    load = meta.get("load_average")
    if isinstance(load, dict):
        lines[-1] += (
            f" Load average {load.get('start')} at the start and {load.get('end')} at the end "
            f"(on {meta.get('cpus', '?')} CPUs: above that, other work skewed the figures)."
        )
    known = [module for module, _ in AREAS]
    modules = known + sorted({str(r.get("module")) for r in rows} - set(known) - {"None"})
    titles = dict(AREAS)
    for module in modules:
        chosen = [r for r in rows if r.get("module") == module]
        if not chosen:
            continue
        table = [
            [str(r["name"]), f"{r['value']} {r['unit']}", _budget(str(r["name"])) or "–"]
            for r in chosen
        ]
        lines += ["", f"**{titles.get(module, module)}** ({module})", ""]
        lines += markdown_table(["figure", "value", "budget"], table)
    unlabelled = [r for r in rows if "module" not in r]
    if unlabelled:
        table = [
            [str(r["name"]), f"{r['value']} {r['unit']}", _budget(str(r["name"])) or "–"]
            for r in unlabelled
        ]
        lines += ["", *markdown_table(["figure", "value", "budget"], table)]
    return lines


HEADING = "## Measured results"


def render(results: Path = RESULTS) -> str:
    parts = [
        HEADING,
        "",
        "Generated by `python -m bench.readme_results` from `make eval` and `make bench`.",
        "",
        *verification_section(),
        "",
        *inspection_section(),
        "",
        *agreement_section(),
        "",
        *bounded_section(),
        "",
        *probe_section(),
        "",
        *restore_section(),
        "",
        *speed_section(results),
    ]
    return "\n".join(parts) + "\n"


def replace_section(readme: str, section: str) -> str:
    """``readme`` with its results section (``HEADING`` up to the next ``## `` heading)
    replaced by ``section``; ValueError when the README has no such section."""
    start = readme.find(f"\n{HEADING}\n")
    if start < 0:
        raise ValueError(f"no '{HEADING}' section to replace")
    end = readme.find("\n## ", start + 1)
    end = len(readme) if end < 0 else end + 1
    return readme[: start + 1] + section + ("\n" if end < len(readme) else "") + readme[end:]


def main(argv: Sequence[str] = ()) -> int:
    """``[RESULTS_JSON]`` prints the section; ``--write README`` replaces it in place."""
    args = list(argv)
    target = None
    if args[:1] == ["--write"] and len(args) >= 2:
        target, args = Path(args[1]), args[2:]
    section = render(Path(args[0]) if args else RESULTS)
    if target is None:
        sys.stdout.write(section)
        return 0
    try:
        target.write_text(replace_section(target.read_text(encoding="utf-8"), section), "utf-8")
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"readme_results: {target}: {exc}\n")
        return 2
    sys.stdout.write(f"{target}: results section rewritten\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
