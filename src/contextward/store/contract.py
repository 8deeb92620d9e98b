"""The contract: seed constraints, the personal layer, and project constraints.

Owns: the twelve built-in seed constraints (one rule per failure mode of
long agent sessions), reading and editing the owner-authored ``contract.md``
files (project ``.contextward/contract.md``, personal ``contract.md`` in the
personal directory), merging the layers, and the trust rules:

* the owner may add, reword (same id) and remove project or personal rows;
  seeds can be reworded by the owner but never removed;
* the model-facing path (``provenance="agent"``) may add project rows only,
  which are stored under an "Agent (unverified)" heading; it can never
  remove or reword a seed, touch an owner row, or touch the personal layer.

Files are edited line by line: every line the parser does not understand is
kept exactly as it was, and the file is replaced atomically.

Must never: create or repair the personal layer implicitly, or drop lines it
did not write.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import ContractError, InputError
from ..redact import mask
from .paths import CONTRACT_NAME, personal_dir, store_dir
from .text import storable

Layer = Literal["seed", "personal", "project"]

#: The floor every project shares. One rule per failure mode; ids are stable.
SEEDS: tuple[tuple[str, str], ...] = (
    (
        "01-follow-the-owner",
        "Follow the owner's explicit instructions and standing constraints exactly; "
        "when two of them conflict, ask instead of picking one.",
    ),
    (
        "02-evidence-before-success",
        "Say something works only with a fresh verification run behind it, and cite it "
        "(an ev- id or the pasted output) for that exact claim.",
    ),
    (
        "03-stay-in-scope",
        "Change only what the task needs; name any further change you think is "
        "warranted and ask before making it.",
    ),
    (
        "04-read-before-writing",
        "Read the project's conventions files and the code you are about to change "
        "first, and follow the patterns already there.",
    ),
    (
        "05-test-the-behaviour",
        "Back every behaviour change with a test that fails without it; code that only "
        "looks right is not done.",
    ),
    (
        "06-write-it-down",
        "Record decisions, rejected approaches and open work as they happen, and re-read "
        "them after a compaction before you continue.",
    ),
    (
        "07-corrections-stand",
        "Treat every owner correction as standing: check the recorded corrections before "
        "trying an approach the owner already turned down.",
    ),
    (
        "08-small-diffs",
        "Keep each change small enough to review; split large work into steps that are "
        "each verified.",
    ),
    (
        "09-no-retry-loops",
        "Never re-run a failing command unchanged; after two identical failures change the "
        "approach or gather new information.",
    ),
    (
        "10-check-the-environment",
        "Confirm tools and versions exist before relying on them, and report an environment "
        "failure as one, never as a result about the code.",
    ),
    (
        "11-ask-before-destroying",
        "Ask before destructive or irreversible actions (deleting data, force-pushing, "
        "rewriting history, writing to devices), and ask once for the whole batch.",
    ),
    (
        "12-spend-context-carefully",
        "Keep context lean: read what you need, summarise long tool output, and never paste "
        "large files back.",
    ),
)
SEED_IDS = frozenset(seed_id for seed_id, _ in SEEDS)

#: An id as read back: new ids stay under 64 characters; the longer ones earlier
#: versions wrote for a rule with a long word are read too, so those rules hold again.
_ID = r"[0-9a-z][0-9a-z._-]{0,255}"
_ROW = re.compile(rf"^\s*[-*]\s+(?P<id>{_ID}):\s+(?P<text>\S.*)$")
_OWNER_HEADING = "## Owner"
_AGENT_HEADING = "## Agent (unverified)"
MAX_CONSTRAINT = 400

_TEMPLATE = """# contextward contract

Standing constraints for this project, one per line as `- ID: text`.
The twelve seed constraints are built in: `contextward contract list` shows them.
Rows under "Agent (unverified)" were added by the agent and are not owner authority.
Lines that are not constraint rows are kept as they are.

{owner}

{agent}
"""


@dataclass(frozen=True)
class Constraint:
    id: str
    text: str
    layer: Layer
    provenance: Literal["owner", "agent"] = "owner"

    @property
    def trusted(self) -> bool:
        return self.provenance == "owner"


@dataclass(frozen=True)
class Contract:
    """The merged contract, in display order: seeds, personal, project."""

    constraints: tuple[Constraint, ...]
    problems: tuple[str, ...] = ()

    def get(self, constraint_id: str) -> Constraint | None:
        return next((c for c in self.constraints if c.id == constraint_id), None)


def project_contract_path(root: Path) -> Path:
    return store_dir(root) / CONTRACT_NAME


def personal_contract_path(env: Mapping[str, str] | None = None) -> Path:
    return personal_dir(env) / CONTRACT_NAME


#: Parsed files keyed by path, reused while (mtime, size, inode) is unchanged: hooks read
#: the contract on every event, the file changes rarely.
_PARSED: dict[tuple[Path, Layer], tuple[tuple[int, int, int], list[Constraint], list[str]]] = {}


def _parse(path: Path, layer: Layer) -> tuple[list[Constraint], list[str]]:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return [], []
    except OSError:
        stat = None
    # The inode too: our edits replace the file, so two edits within one clock tick
    # that keep the size still differ.
    stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino) if stat is not None else None
    cached = _PARSED.get((path, layer))
    if stamp is not None and cached is not None and cached[0] == stamp:
        return list(cached[1]), list(cached[2])
    rows, problems = _parse_file(path, layer)
    if stamp is not None:
        _PARSED[(path, layer)] = (stamp, rows, problems)
    return list(rows), list(problems)


def _parse_file(path: Path, layer: Layer) -> tuple[list[Constraint], list[str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], []
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        return [], [f"{layer} contract {path.name}: unreadable ({reason}); ignored"]
    rows: list[Constraint] = []
    section: Literal["owner", "agent"] = "owner"
    for line in text.splitlines():
        if line.startswith("## "):
            section = "agent" if "agent" in line.lower() and layer == "project" else "owner"
            continue
        match = _ROW.match(line)
        if match:
            rows.append(Constraint(match["id"], match["text"].strip(), layer, section))
    return rows, []


def load_contract(root: Path | None, *, env: Mapping[str, str] | None = None) -> Contract:
    """Seeds, reworded by same-id owner rows; then personal and project rows, de-duplicated."""
    personal, problems = _parse(personal_contract_path(env), "personal")
    project: list[Constraint] = []
    if root is not None:
        project, more = _parse(project_contract_path(root), "project")
        problems += more
    merged: dict[str, Constraint] = {}
    for seed_id, text in SEEDS:
        merged[seed_id] = Constraint(seed_id, text, "seed")
    for row in [*personal, *project]:
        if row.id in SEED_IDS and not row.trusted:
            problems.append(f"agent row {row.id} cannot reword a seed constraint; ignored")
            continue
        previous = merged.get(row.id)
        if previous is not None and previous.trusted and not row.trusted:
            problems.append(f"agent row {row.id} cannot override an owner row; ignored")
            continue
        # The later layer wins (project over personal over seed); keep the seed's layer
        # so a reworded seed still counts as a seed.
        layer: Layer = "seed" if row.id in SEED_IDS else row.layer
        merged[row.id] = Constraint(row.id, row.text, layer, row.provenance)
    seen_text: set[str] = set()
    ordered: list[Constraint] = []
    for layer_name in ("seed", "personal", "project"):
        for row in merged.values():
            key = " ".join(row.text.lower().split())
            if row.layer == layer_name and key not in seen_text:
                seen_text.add(key)
                ordered.append(row)
    return Contract(tuple(ordered), tuple(problems))


#: A row's id must stay within what the parser reads back (64 characters).
_SLUG_CHARS = 48


def _slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    # One long word (a test name, a hostname) must not push the id past what is read back:
    # an id too long was written, never listed, and handed out again.
    return "-".join(words[:5])[:_SLUG_CHARS].rstrip("-") or "constraint"


def printable_id(value: str) -> str:
    """An id as an error may show it: one line, bounded."""
    return " ".join(value.split())[:60]


def new_id(contract: Contract, text: str) -> str:
    numbers = [int(m.group(1)) for c in contract.constraints if (m := re.match(r"(\d+)-", c.id))]
    return f"{max([12, *numbers]) + 1:02d}-{_slug(text)}"


def add_constraint(
    root: Path,
    text: str,
    *,
    layer: Literal["project", "personal"] = "project",
    provenance: Literal["owner", "agent"] = "owner",
    constraint_id: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Constraint:
    """Add (or, for the owner, reword by id) one constraint; returns it as stored."""
    if provenance == "agent" and layer == "personal":
        raise ContractError("the personal layer is owner-only", code="contract_personal_protected")
    body = " ".join(mask(storable(text)).split())
    if not any(char.isalnum() for char in body.replace("\ufffd", "")):
        # Empty, blank, or bytes no encoding could read ("\xff\xfe" arrives as "��").
        raise InputError("the constraint text is empty", code="empty_text")
    if len(body) > MAX_CONSTRAINT:
        raise InputError(
            f"a constraint is at most {MAX_CONSTRAINT} characters (this one has {len(body)})",
            code="invalid_input",
        )
    contract = load_contract(root, env=env)
    if constraint_id is not None:
        if mask(constraint_id) != constraint_id:  # it would be written to a committed file
            raise InputError(
                "the constraint id looks like a secret; choose another", code="invalid_input"
            )
        if not re.fullmatch(_ID, constraint_id):
            raise InputError(
                f"invalid constraint id {printable_id(constraint_id)!r} "
                "(lowercase letters, digits, '.', '_' and '-')",
                code="invalid_input",
            )
        existing = contract.get(constraint_id)
        if provenance == "agent" and existing is not None:
            code = (
                "contract_seed_protected"
                if existing.layer == "seed"
                else "contract_owner_protected"
            )
            raise ContractError(f"{constraint_id} exists and is not the agent's", code=code)
    if constraint_id is None:
        same = next((c for c in contract.constraints if c.text == body), None)
        if same is not None:
            return same  # said already: no second row under a new id
    cid = constraint_id or new_id(contract, body)
    path = project_contract_path(root) if layer == "project" else personal_contract_path(env)
    heading = _AGENT_HEADING if provenance == "agent" else _OWNER_HEADING
    _edit(path, lambda lines: _with_row(lines, heading, cid, body))
    return Constraint(cid, body, "seed" if cid in SEED_IDS else layer, provenance)


def remove_constraint(
    root: Path,
    constraint_id: str,
    *,
    layer: Literal["project", "personal"] = "project",
    provenance: Literal["owner", "agent"] = "owner",
    env: Mapping[str, str] | None = None,
) -> Constraint:
    """Remove one row from a layer's file; seeds are never removed (rewording is reverted)."""
    if provenance == "agent" and layer == "personal":
        raise ContractError("the personal layer is owner-only", code="contract_personal_protected")
    path = project_contract_path(root) if layer == "project" else personal_contract_path(env)
    rows, _ = _parse(path, layer)
    row = next((r for r in rows if r.id == constraint_id), None)
    if row is None:
        if constraint_id in SEED_IDS:
            raise ContractError(
                f"{constraint_id} is a seed constraint; seeds cannot be removed",
                code="contract_seed_protected",
            )
        other = "personal" if layer == "project" else "project"
        hint = " (it is in the personal layer: use --global)" if layer == "project" else ""
        found_elsewhere = load_contract(root, env=env).get(constraint_id)
        if found_elsewhere is not None and found_elsewhere.layer == other:
            raise ContractError(f"{constraint_id} is not in the {layer} layer{hint}")
        raise ContractError(f"no constraint {constraint_id} in the {layer} layer")
    if provenance == "agent" and (row.trusted or constraint_id in SEED_IDS):
        code = (
            "contract_seed_protected" if constraint_id in SEED_IDS else "contract_owner_protected"
        )
        raise ContractError(f"{constraint_id} is not the agent's to remove", code=code)
    _edit(path, lambda lines: [ln for ln in lines if not _is_row(ln, constraint_id)])
    return row


def _is_row(line: str, constraint_id: str) -> bool:
    match = _ROW.match(line)
    return bool(match and match["id"] == constraint_id)


def _with_row(lines: list[str], heading: str, cid: str, text: str) -> list[str]:
    row = f"- {cid}: {text}"
    for index, line in enumerate(lines):
        if _is_row(line, cid):
            out = list(lines)
            out[index] = row
            return out
    if heading not in (ln.rstrip() for ln in lines):
        while lines and not lines[-1].strip():
            lines = lines[:-1]
        return [*lines, "", heading, row]
    start = [ln.rstrip() for ln in lines].index(heading)
    end = start + 1
    while end < len(lines) and not lines[end].startswith("## "):
        end += 1
    # Insert after the section's last non-blank line.
    insert = end
    while insert > start + 1 and not lines[insert - 1].strip():
        insert -= 1
    return [*lines[:insert], row, *lines[insert:]]


def _edit(path: Path, change: Callable[[list[str]], list[str]]) -> None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = _TEMPLATE.format(owner=_OWNER_HEADING, agent=_AGENT_HEADING)
    except (OSError, UnicodeDecodeError) as exc:
        raise ContractError(
            f"contract {path.name} cannot be read; left untouched ({exc.__class__.__name__})",
            code="contract_unreadable",
        ) from None
    new_lines = change(text.splitlines())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write("\n".join(new_lines) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise ContractError(
            f"contract {path.name} cannot be written ({exc.strerror})", code="contract_unreadable"
        ) from None


def initial_contract() -> str:
    """The project ``contract.md`` that ``contextward init`` writes."""
    return _TEMPLATE.format(owner=_OWNER_HEADING, agent=_AGENT_HEADING)


__all__ = [
    "SEEDS",
    "SEED_IDS",
    "Constraint",
    "Contract",
    "add_constraint",
    "initial_contract",
    "load_contract",
    "new_id",
    "personal_contract_path",
    "project_contract_path",
    "remove_constraint",
]
